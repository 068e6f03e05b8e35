// The slot loop of a simulated run: observe, forecast, decide, step, account.
#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>

#include "environment.h"

namespace nfv {

EpisodeSummary run_episode(ScalerEnvironment& environment, Policy& policy, std::size_t horizon,
                           const SlotObserver& observer) {
  EpisodeSummary summary;
  summary.policy = policy.name();
  summary.min_instances = std::numeric_limits<double>::infinity();
  policy.reset();
  const Observation* observation = &environment.reset();
  double instance_slots = 0;
  std::vector<double> decision_ms;
  while (!environment.done()) {
    const Forecast forecast = persistence_forecast(*observation, horizon);
    const auto started = std::chrono::steady_clock::now();
    const Plan plan = policy.decide(*observation, forecast);
    decision_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
    const StepResult result = environment.step(plan);
    const SlotOutcome& outcome = environment.last_slot();
    const auto& usage = outcome.usage;
    const double running = std::accumulate(usage.instances_per_site.begin(), usage.instances_per_site.end(), 0.0);
    summary.started_instances += std::accumulate(usage.started_per_site.begin(), usage.started_per_site.end(), 0.0);
    summary.min_instances = std::min(summary.min_instances, running);
    summary.max_instances = std::max(summary.max_instances, running);
    summary.final_instances = running;
    instance_slots += running;
    summary.cost += result.cost;
    summary.traffic += result.traffic;
    ++summary.slots;
    if (observer) observer(outcome);
    observation = &outcome.observation;
  }
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

}  // namespace nfv
