// The simulator as a reset/step environment for learning policies:
// observation, action = Plan, reward = -cost, done at the end of the trace.
// A value type: copying one copies its queues and position and shares the
// immutable system and arrivals, so many can run side by side (one per
// thread); step allocates nothing once the observation's buffers have grown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "plan.h"
#include "policy.h"
#include "simulator.h"

namespace nfv {

struct StepResult {
  double reward = 0;  // -cost.total()
  bool done = false;  // the slot just run was the schedule's last
  CostBreakdown cost;
  ChainTraffic traffic;  // over all chains
};

class ScalerEnvironment {
 public:
  // `initial_plan` is what runs when an episode starts (no deployment cost for it).
  ScalerEnvironment(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> arrivals,
                    Plan initial_plan);

  const Observation& reset();
  // Runs the next slot under `plan`. Throws std::logic_error after done,
  // std::invalid_argument naming the plan's problems.
  StepResult step(const Plan& plan);

  const Observation& observation() const { return simulator_.last().observation; }
  const SlotOutcome& last_slot() const { return simulator_.last(); }
  std::size_t slot() const { return simulator_.slot(); }
  std::size_t slots() const { return arrivals_->slots(); }
  bool done() const { return slot() >= slots(); }
  const SystemModel& model() const { return simulator_.model(); }

 private:
  std::shared_ptr<const ArrivalSchedule> arrivals_;
  Plan initial_plan_;
  FluidSimulator simulator_;
};

// A whole episode under one policy: what nfv-sim prints at the end.
struct EpisodeSummary {
  std::string policy;
  std::size_t slots = 0;
  CostBreakdown cost;
  ChainTraffic traffic;           // over all chains and slots
  double min_instances = 0;       // running instances, over the slots
  double mean_instances = 0;
  double max_instances = 0;
  double final_instances = 0;
  double started_instances = 0;   // deployments over the episode
  // Wall time of the policy's decisions (decide() alone), milliseconds.
  double decision_p50_ms = 0, decision_p99_ms = 0, decision_max_ms = 0;
};

// Called after every slot (progress lines, per-slot CSV).
using SlotObserver = std::function<void(const SlotOutcome& outcome)>;

// Resets the environment and the policy, then runs every slot: the policy
// decides from the observation and a persistence forecast `horizon` slots ahead.
EpisodeSummary run_episode(ScalerEnvironment& environment, Policy& policy, std::size_t horizon,
                           const SlotObserver& observer = {});

}  // namespace nfv
