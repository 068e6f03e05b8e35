#include "episode.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

namespace nfv {

EpisodeSummary run_episode(SlotLoop& loop, const SlotObserver& observer, std::size_t max_slots) {
  EpisodeSummary summary;
  summary.policy = loop.policy().name();
  summary.forecast = loop.forecaster().name();
  summary.min_instances = std::numeric_limits<double>::infinity();
  loop.start();
  double instance_slots = 0;
  std::vector<double> decision_ms;
  while (!loop.done() && (max_slots == 0 || summary.slots < max_slots)) {
    const SlotRecord& record = loop.run_slot();
    const SlotUsage& usage = record.report.usage;
    if (record.decided || !record.error.empty()) decision_ms.push_back(record.decision_ms);
    const double running = std::accumulate(usage.instances_per_site.begin(), usage.instances_per_site.end(), 0.0);
    summary.started_instances += std::accumulate(usage.started_per_site.begin(), usage.started_per_site.end(), 0.0);
    summary.min_instances = std::min(summary.min_instances, running);
    summary.max_instances = std::max(summary.max_instances, running);
    summary.final_instances = running;
    instance_slots += running;
    summary.cost += record.report.cost;
    for (const ChainTraffic& chain : record.report.observation.chains) summary.traffic += chain;
    ++summary.slots;
    if (observer) observer(record);
  }
  summary.kept_last_plan = loop.kept_last_plan();
  if (summary.slots == 0) summary.min_instances = 0;
  if (!decision_ms.empty()) {
    std::sort(decision_ms.begin(), decision_ms.end());
    const auto at = [&](double q) { return decision_ms[static_cast<std::size_t>(q * (decision_ms.size() - 1))]; };
    summary.decision_p50_ms = at(0.5);
    summary.decision_p99_ms = at(0.99);
    summary.decision_max_ms = decision_ms.back();
  }
  summary.mean_instances = summary.slots ? instance_slots / summary.slots : 0;
  return summary;
}

EpisodeSummary simulate(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> arrivals,
                        std::unique_ptr<Policy> policy, const Plan& start, const ForecastSpec& forecast,
                        std::size_t horizon, const SlotObserver& observer,
                        std::shared_ptr<const ArrivalSchedule> history, std::size_t history_slots) {
  auto forecaster = std::make_unique<Forecaster>(forecast, *model, arrivals->mapping, arrivals);
  SlotLoopSettings settings;
  settings.horizon = horizon;
  settings.history = std::move(history);
  settings.history_slots = history_slots;
  SlotLoop loop(model, make_sim_backend(model, arrivals, start), std::move(forecaster), std::move(policy), start, settings);
  return run_episode(loop, observer);
}

}  // namespace nfv
