// A whole run of the slot loop, summed up: what nfv-sim prints at the end
// and what the benches compare policies by.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "slot_loop.h"

namespace nfv {

struct EpisodeSummary {
  std::string policy;
  std::string forecast;
  std::size_t slots = 0;
  CostBreakdown cost;
  ChainTraffic traffic;           // over all chains and slots
  double min_instances = 0;       // running instances, over the slots
  double mean_instances = 0;
  double max_instances = 0;
  double final_instances = 0;
  double started_instances = 0;   // deployments over the run
  std::size_t kept_last_plan = 0; // slots whose decision failed
  // Wall time of the policy's decisions (decide() alone), milliseconds.
  double decision_p50_ms = 0, decision_p99_ms = 0, decision_max_ms = 0;
};

// Called after every slot (progress lines, per-slot CSV).
using SlotObserver = std::function<void(const SlotRecord& record)>;

// Starts the loop and runs it until its backend is done (or `max_slots`
// slots, when > 0).
EpisodeSummary run_episode(SlotLoop& loop, const SlotObserver& observer = {}, std::size_t max_slots = 0);

// The common case: `policy` on the simulator over `arrivals` from `start`,
// forecasting with `forecast`, `horizon` steps ahead; the forecaster first
// learns the last `history_slots` of `history` when given.
EpisodeSummary simulate(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> arrivals,
                        std::unique_ptr<Policy> policy, const Plan& start, const ForecastSpec& forecast,
                        std::size_t horizon, const SlotObserver& observer = {},
                        std::shared_ptr<const ArrivalSchedule> history = nullptr, std::size_t history_slots = 0);

}  // namespace nfv
