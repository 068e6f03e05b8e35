// The slot loop of a simulated run: observe, forecast, decide, step, account.
#include <algorithm>
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
  while (!environment.done()) {
    const Plan plan = policy.decide(*observation, persistence_forecast(*observation, horizon));
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
  summary.mean_instances = summary.slots ? instance_slots / summary.slots : 0;
  return summary;
}

}  // namespace nfv
