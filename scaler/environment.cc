#include "environment.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace nfv {

ScalerEnvironment::ScalerEnvironment(std::shared_ptr<const SystemModel> model,
                                     std::shared_ptr<const ArrivalSchedule> arrivals, Plan initial_plan,
                                     EnvironmentSettings settings)
    : model_(model), arrivals_(std::move(arrivals)), initial_plan_(std::move(initial_plan)),
      settings_(std::move(settings)), simulator_(std::move(model)) {
  if (arrivals_->chains != model_->chains())
    throw std::invalid_argument("environment: arrivals for " + std::to_string(arrivals_->chains) + " chains, the system has " +
                                std::to_string(model_->chains()));
  if (!(settings_.arrival_noise >= 0)) throw std::invalid_argument("environment: arrival_noise: expected >= 0");
  if (settings_.forecast)
    forecaster_ = std::make_unique<Forecaster>(*settings_.forecast, *model_, arrivals_->mapping, arrivals_);
  rates_.assign(model_->chains(), 0.0);
  reset();
}

ScalerEnvironment::ScalerEnvironment(ScalerEnvironment&&) noexcept = default;
ScalerEnvironment& ScalerEnvironment::operator=(ScalerEnvironment&&) noexcept = default;
ScalerEnvironment::~ScalerEnvironment() = default;

const Observation& ScalerEnvironment::reset() { return reset(EpisodeSpec{}); }

const Observation& ScalerEnvironment::reset(const EpisodeSpec& episode) {
  const std::size_t total = slots();
  const std::size_t length = episode.episode_slots;
  random_.seed(episode.seed);
  std::size_t start = 0;
  if (episode.start_slot) {
    start = *episode.start_slot;
  } else {
    const std::size_t room = total > length ? total - length : 0;
    start = std::uniform_int_distribution<std::size_t>(0, length == 0 ? (total > 0 ? total - 1 : 0) : room)(random_);
  }
  if (start >= total || (length > 0 && start + length > total))
    throw std::invalid_argument("environment: an episode of " + std::to_string(length) + " slots from slot " +
                                std::to_string(start) + " does not fit a trace of " + std::to_string(total) + " slots");
  first_slot_ = start;
  end_slot_ = length == 0 ? total : start + length;
  // The slot before the start was measured: its rates are known.
  simulator_.reset(initial_plan_, start, start > 0 ? arrivals_->slot(start - 1) : std::span<const double>{});
  if (forecaster_) {
    forecaster_->reset();
    const std::size_t warmup = settings_.warmup_slots.value_or(daily_period_slots(arrivals_->mapping.step_seconds));
    for (std::size_t s = start > warmup ? start - warmup : 0; s < start; ++s) forecaster_->observe(arrivals_->slot(s), s);
    update_forecast();
  }
  return observation();
}

void ScalerEnvironment::update_forecast() {
  forecast_ = forecaster_->forecast(slot(), settings_.horizon);
}

StepResult ScalerEnvironment::step(const Plan& plan) {
  if (done())
    throw std::logic_error("environment: step after the episode's last slot (" + std::to_string(end_slot_) +
                           "); call reset()");
  const auto trace = arrivals_->slot(slot());
  std::span<const double> rates = trace;
  if (settings_.arrival_noise > 0) {
    const double sigma = settings_.arrival_noise;
    std::normal_distribution<double> normal(0.0, 1.0);
    for (std::size_t c = 0; c < rates_.size(); ++c)
      rates_[c] = trace[c] * std::exp(sigma * normal(random_) - sigma * sigma / 2);
    rates = rates_;
  }
  const std::size_t ran = slot();
  const SlotOutcome& outcome = simulator_.step(plan, rates);
  if (forecaster_) {
    forecaster_->observe(outcome.observation.arrival_pps, ran);
    update_forecast();
  }
  return StepResult{-outcome.cost.total(), done(), outcome.cost, outcome.total};
}

}  // namespace nfv
