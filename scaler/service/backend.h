// What the scaler's slot loop runs against: the simulator or real pods. The
// loop and the policies are the same for both (docs/scaler.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cost_model.h"
#include "plan.h"
#include "scaler_setup.h"

namespace nfv {

// What one slot measured.
struct SlotReport {
  Observation observation;        // for the next decision
  CostBreakdown cost;             // of the slot, by the one cost model
  std::vector<double> p99_ms;     // per chain; pods: since the pods started (their histograms are cumulative)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // The observation the first decision starts from; `running` is the plan in force.
  virtual Observation start(const Plan& running) = 0;
  // Runs one slot: `plan` is put in force when `apply` (else the previous
  // one stays), then the slot passes and is measured. Throws
  // std::runtime_error when the plan could not be applied (nothing changed then).
  virtual SlotReport run_slot(const Plan& plan, bool apply) = 0;
  // No slot left (the trace's end); pods never finish on their own.
  virtual bool done() const = 0;
};

// The fluid simulator over the setup's arrivals; `realtime` paces one slot
// per slot_seconds.
std::unique_ptr<Backend> make_sim_backend(const ScalerSetup& setup, const Plan& running, bool realtime);
// Real pods: apply_plan to the pod hosting each site, telemetry at the end of every slot.
std::unique_ptr<Backend> make_pods_backend(const ScalerSetup& setup);

}  // namespace nfv
