// The scaler's slot loop, the one that nfv-sim, the benches and nfv-scaler
// (simulator or real pods) all run. Every slot:
//   1. forecast the slots ahead from what was measured so far (forecaster.h);
//   2. ask the policy for a plan (timed); before any slot was measured the
//      plan in force stays;
//   3. keep the plan within the per-site limits (a site down, whose pod does
//      not answer, has none: its pools move to the sites up), check it; on any failure
//      (the policy threw, the plan is invalid or has no instance at all)
//      the last good plan stays, never zero;
//   4. run the slot on the backend with the plan (applied unless in shadow
//      mode; a plan the system refuses leaves the last good one in force);
//   5. account: the slot's measurements and cost by the one cost model.
// The caller gets a SlotRecord per slot: the journal, a CSV or a summary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "forecaster.h"
#include "plan.h"
#include "policy.h"
#include "site_limits.h"
#include "system_model.h"

namespace nfv {

struct SlotLoopSettings {
  std::size_t horizon = 1;  // forecast steps handed to the policy
  SiteLimits limits;
  bool shadow = false;      // decide and record, never apply
  // What the forecaster learns from before the first slot (e.g. the rows
  // before the ones run), and how many of its last slots; none: nothing.
  std::shared_ptr<const ArrivalSchedule> history;
  std::size_t history_slots = 0;
};

// What one slot did.
struct SlotRecord {
  std::size_t slot = 0;
  Forecast forecast;
  double forecast_ms = 0;
  Plan plan;             // what the slot ran with (or, in shadow mode, would have)
  bool decided = false;  // `plan` is the policy's (else the last good plan, see error)
  bool applied = false;
  double decision_ms = 0;  // the policy's decide() alone
  std::string reason;      // the policy's explanation, switches, limits, fallbacks
  PolicyDetails details;   // a learning policy's action, value and guard
  std::string error;       // what failed, if anything
  SlotReport report;       // what the slot measured and cost
};

class SlotLoop {
 public:
  SlotLoop(std::shared_ptr<const SystemModel> model, std::unique_ptr<Backend> backend,
           std::unique_ptr<Forecaster> forecaster, std::unique_ptr<Policy> policy, Plan start, SlotLoopSettings settings);
  ~SlotLoop();

  // Starts the backend's clock: the first observation (and slot number).
  void start();
  bool done() const { return backend_->done(); }
  const SlotRecord& run_slot();

  // The new policy decides from the next slot on; `why` starts that slot's reason.
  void switch_policy(std::unique_ptr<Policy> policy, std::string why);

  // A restarted loop takes up where a journal left off.
  struct PastSlot {
    std::size_t slot = 0;
    Plan plan;
    bool applied = false;
    std::size_t slots = 1;            // slots it measured (SlotReport::slots)
    std::vector<double> arrival_pps;  // what it measured
  };
  // After start(): the forecaster learns the measured rates again; a backend
  // that reruns history (the simulator) runs the slots again; the last
  // applied plan is in force; the next slot follows the last one. A past
  // that starts after slot 0 (a rotated journal) is re-run from its first
  // slot, the simulator's queues empty there.
  void resume(const std::vector<PastSlot>& past, const CostBreakdown& cost_so_far);

  Policy& policy() { return *policy_; }
  const Policy& policy() const { return *policy_; }
  Backend& backend() { return *backend_; }
  Forecaster& forecaster() { return *forecaster_; }
  const SystemModel& model() const { return *model_; }
  std::size_t next_slot() const { return observation_.slot; }
  const Observation& observation() const { return observation_; }
  const Plan& last_good() const { return last_good_; }
  const CostBreakdown& cost_so_far() const { return cost_so_far_; }
  const SlotLoopSettings& settings() const { return settings_; }
  std::uint64_t kept_last_plan() const { return kept_last_plan_; }
  std::uint64_t apply_failures() const { return apply_failures_; }

 private:
  std::shared_ptr<const SystemModel> model_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Forecaster> forecaster_;
  std::unique_ptr<Policy> policy_;
  SlotLoopSettings settings_;
  PlanValidator validator_;
  Plan last_good_;
  Observation observation_;
  CostBreakdown cost_so_far_;
  std::string pending_reason_;
  SiteLimits limits_;  // the settings' limits with the sites down, while some are
  SlotRecord record_;
  std::uint64_t kept_last_plan_ = 0, apply_failures_ = 0;
};

}  // namespace nfv
