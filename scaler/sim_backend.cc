// The simulator backend: ScalerEnvironment stepped once per slot.
#include <chrono>
#include <thread>

#include "backend.h"
#include "environment.h"

namespace nfv {
namespace {

class SimBackend final : public Backend {
 public:
  SimBackend(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> arrivals, const Plan& running,
             double realtime_slot_seconds)
      : environment_(std::move(model), std::move(arrivals), running), realtime_slot_seconds_(realtime_slot_seconds),
        in_force_(running) {}

  std::string name() const override { return "sim"; }

  Observation start(const Plan& running) override {
    in_force_ = running;
    next_slot_ = std::chrono::steady_clock::now();
    return environment_.reset();
  }

  const SlotReport& run_slot(const Plan& plan, bool apply) override {
    if (apply) in_force_ = plan;
    if (realtime_slot_seconds_ > 0) {
      next_slot_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(realtime_slot_seconds_));
      std::this_thread::sleep_until(next_slot_);
    }
    const StepResult result = environment_.step(in_force_);
    const SlotOutcome& outcome = environment_.last_slot();
    report_.observation = outcome.observation;  // assignments keep the buffers: no allocation once grown
    report_.cost = result.cost;
    report_.usage = outcome.usage;
    return report_;
  }

  bool done() const override { return environment_.done(); }
  bool reruns_history() const override { return true; }
  void start_history_at(std::size_t slot) override {
    EpisodeSpec episode;
    episode.start_slot = slot;
    environment_.reset(episode);
  }

 private:
  ScalerEnvironment environment_;
  double realtime_slot_seconds_;
  Plan in_force_;
  SlotReport report_;
  std::chrono::steady_clock::time_point next_slot_;
};

}  // namespace

std::unique_ptr<Backend> make_sim_backend(std::shared_ptr<const SystemModel> model,
                                          std::shared_ptr<const ArrivalSchedule> arrivals, const Plan& running,
                                          double realtime_slot_seconds) {
  return std::make_unique<SimBackend>(std::move(model), std::move(arrivals), running, realtime_slot_seconds);
}

}  // namespace nfv
