// The simulator backend: ScalerEnvironment stepped once per slot.
#include <chrono>
#include <thread>

#include "backend.h"
#include "environment.h"

namespace nfv {
namespace {

class SimBackend final : public Backend {
 public:
  SimBackend(const ScalerSetup& setup, const Plan& running, bool realtime)
      : environment_(setup.model, setup.arrivals, running),
        slot_seconds_(setup.config.slot_seconds()),
        realtime_(realtime),
        in_force_(running) {}

  std::string name() const override { return "sim"; }

  Observation start(const Plan&) override {
    next_slot_ = std::chrono::steady_clock::now();
    return environment_.reset();
  }

  SlotReport run_slot(const Plan& plan, bool apply) override {
    if (apply) in_force_ = plan;
    if (realtime_) {
      next_slot_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(slot_seconds_));
      std::this_thread::sleep_until(next_slot_);
    }
    const StepResult result = environment_.step(in_force_);
    SlotReport report;
    report.observation = environment_.last_slot().observation;
    report.cost = result.cost;
    // The fluid model has a mean latency per chain, no distribution: report it as such.
    for (const ChainTraffic& chain : report.observation.chains) report.p99_ms.push_back(chain.mean_latency_ms);
    done_ = result.done;
    return report;
  }

  bool done() const override { return done_; }

 private:
  ScalerEnvironment environment_;
  double slot_seconds_;
  bool realtime_;
  Plan in_force_;
  bool done_ = false;
  std::chrono::steady_clock::time_point next_slot_;
};

}  // namespace

std::unique_ptr<Backend> make_sim_backend(const ScalerSetup& setup, const Plan& running, bool realtime) {
  return std::make_unique<SimBackend>(setup, running, realtime);
}

}  // namespace nfv
