// What the slot loop runs against: the simulator or real pods. The loop,
// the forecaster and the policies are the same for both (docs/scaler.md).
// A backend keeps the slot clock: slot k of the scaler measures and plans
// slot k of the traffic.
#pragma once

#include <memory>
#include <string>

#include "arrival_schedule.h"
#include "cost_model.h"
#include "plan.h"
#include "system_model.h"

namespace nfv {

// What one slot measured, and what it cost by the one cost model.
struct SlotReport {
  Observation observation;  // for the next decision: per chain arrivals, deliveries, drops, late, p99
  CostBreakdown cost;
  SlotUsage usage;
  // Slots the report covers: more than one when a backend on a wall clock
  // fell behind it (a slow decision or apply) and rejoined it at the next
  // boundary; the rates are then per second of the whole span.
  std::size_t slots = 1;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Starts the clock; `running` is the plan in force. The observation the
  // first decision starts from: its slot is the first slot to run (0, or
  // later when joining a clock that already runs), measured = false.
  virtual Observation start(const Plan& running) = 0;
  // Runs one slot: `plan` is put in force when `apply` (else the previous
  // one stays), then the slot passes and is measured (SlotReport::slots
  // says how many slots passed when the backend had to catch up). Throws
  // std::runtime_error when the plan could not be applied; nothing changed
  // then. The report stays valid until the next call.
  virtual const SlotReport& run_slot(const Plan& plan, bool apply) = 0;
  // No slot left (the trace's end); pods never finish on their own.
  virtual bool done() const = 0;
  // Whether running the journaled slots again rebuilds the backend's state
  // (the simulator: queues and place in the trace); pods carry their own.
  virtual bool reruns_history() const { return false; }
  // Such a backend's history starts at `slot` (a rotated journal keeps only
  // the later slots): the re-run starts there, queues empty.
  virtual void start_history_at(std::size_t /*slot*/) {}
  // Whether the system can run a pool of `hop` (0-based) of `chain` at
  // `site`: pods run only the placements of their configs. Where a site
  // down sends a hop's pools; the simulator runs any.
  virtual bool runs_pool(std::size_t chain, std::size_t hop, std::size_t site) const {
    (void)chain, (void)hop, (void)site;
    return true;
  }
};

// The fluid simulator over `arrivals`, as fast as it goes; with
// `realtime_slot_seconds` > 0, one slot per that many wall seconds.
std::unique_ptr<Backend> make_sim_backend(std::shared_ptr<const SystemModel> model,
                                          std::shared_ptr<const ArrivalSchedule> arrivals, const Plan& running,
                                          double realtime_slot_seconds = 0);

}  // namespace nfv
