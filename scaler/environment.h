// The simulator as a reset/step environment for learning policies:
// observation (with the forecast the policy would get), action = Plan,
// reward = -cost with every term visible, done at the episode's end.
// Episodes start at any slot of the trace (given or drawn from a seed),
// run any number of slots, and can perturb the trace's rates with seeded
// noise; the forecaster is warmed up on the slots before the start. The
// same seed gives the same episode, step for step. step() allocates nothing
// once the observation's buffers have grown (persistence forecasts).
// featurizer.h turns an observation into a network's input and
// action_decoder.h a network's output into a valid Plan;
// vector_environment.h steps K of these at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>

#include "forecaster.h"
#include "plan.h"
#include "simulator.h"

namespace nfv {

struct EnvironmentSettings {
  // What the observation's forecast comes from; none: no forecast (the
  // slot loop, which has its own forecaster, runs environments so).
  std::optional<ForecastSpec> forecast;
  std::size_t horizon = 1;      // forecast steps
  // Slots of history fed to the forecaster before an episode's first slot;
  // default one day of trace steps.
  std::optional<std::size_t> warmup_slots;
  // Each slot's rate of each chain is multiplied by a log-normal factor with
  // mean 1 and this standard deviation of its log (0 = the trace as it is).
  double arrival_noise = 0;
};

struct EpisodeSpec {
  std::uint64_t seed = 0;
  // The trace slot the episode starts at; none: drawn uniformly (from the
  // seed) among the starts that leave room for episode_slots.
  std::optional<std::size_t> start_slot = 0;
  std::size_t episode_slots = 0;  // 0: to the end of the trace
};

struct StepResult {
  double reward = 0;  // -cost.total()
  bool done = false;  // the slot just run was the episode's last
  CostBreakdown cost;
  ChainTraffic traffic;  // over all chains
};

class ScalerEnvironment {
 public:
  // `initial_plan` is what runs when an episode starts (no deployment cost
  // for it). Throws std::invalid_argument on arrivals of another system.
  ScalerEnvironment(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> arrivals,
                    Plan initial_plan, EnvironmentSettings settings = {});
  ScalerEnvironment(ScalerEnvironment&&) noexcept;
  ScalerEnvironment& operator=(ScalerEnvironment&&) noexcept;
  ~ScalerEnvironment();

  // The whole trace from slot 0 (seed 0: noise, when set, is seed 0's).
  const Observation& reset();
  // Throws std::invalid_argument when the episode does not fit the trace.
  const Observation& reset(const EpisodeSpec& episode);
  // Runs the next slot under `plan`. Throws std::logic_error after done,
  // std::invalid_argument naming the plan's problems.
  StepResult step(const Plan& plan);

  const Observation& observation() const { return simulator_.last().observation; }
  // For the decision at observation().slot; empty without a forecast setting.
  const Forecast& forecast() const { return forecast_; }
  const SlotOutcome& last_slot() const { return simulator_.last(); }
  // Trace slots: the episode runs [first_slot, end_slot); slot() is the next to run.
  std::size_t slot() const { return simulator_.slot(); }
  std::size_t first_slot() const { return first_slot_; }
  std::size_t end_slot() const { return end_slot_; }
  bool done() const { return slot() >= end_slot_; }
  std::size_t slots() const { return arrivals_->slots(); }  // of the trace
  const SystemModel& model() const { return simulator_.model(); }
  std::shared_ptr<const SystemModel> shared_model() const { return model_; }
  const ArrivalSchedule& arrivals() const { return *arrivals_; }
  std::shared_ptr<const ArrivalSchedule> shared_arrivals() const { return arrivals_; }
  const Plan& initial_plan() const { return initial_plan_; }
  const EnvironmentSettings& settings() const { return settings_; }

 private:
  void update_forecast();

  std::shared_ptr<const SystemModel> model_;
  std::shared_ptr<const ArrivalSchedule> arrivals_;
  Plan initial_plan_;
  EnvironmentSettings settings_;
  FluidSimulator simulator_;
  std::unique_ptr<Forecaster> forecaster_;
  Forecast forecast_;
  std::size_t first_slot_ = 0, end_slot_ = 0;
  std::mt19937_64 random_;
  std::vector<double> rates_;  // this slot's, noise applied
};

}  // namespace nfv
