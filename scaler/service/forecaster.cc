#include "forecaster.h"

#include <chrono>
#include <stdexcept>

#include "predictor.h"

namespace nfv {

Forecaster::Forecaster(const ScalerSetup& setup) {
  const auto& source = setup.config.forecast();
  const SystemModel& model = *setup.model;
  chains_ = model.chains();
  name_ = source.model().empty() ? "persistence" : source.model();
  const EmulationScale& scale = model.settings().scale;
  step_seconds_ = scale.trace_step_seconds;
  pps_per_unit_ = scale.emulated_packets_per_s(1.0, RateUnit::mbit_per_s);
  // Trace time when the traffic comes from a trace, else the wall clock.
  start_unix_s_ = setup.trace_start_unix_s.value_or(static_cast<double>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()));
  const std::size_t season = source.season_slots() ? source.season_slots()
                                                   : static_cast<std::size_t>(86400 / std::max(1.0, step_seconds_));
  const auto field = [&](const std::string& name, const std::string& expected) {
    return std::runtime_error(setup.source.locate("forecast." + name, expected));
  };
  if (name_ == "persistence") return;
  if (name_ == "last_value") predictor_ = make_last_value(chains_);
  else if (name_ == "ewma") {
    const double alpha = source.ewma_alpha() > 0 ? source.ewma_alpha() : 0.5;
    if (alpha > 1) throw field("ewma_alpha", "a weight in (0, 1]");
    predictor_ = make_ewma({alpha}, chains_);
  } else if (name_ == "seasonal_naive") predictor_ = make_seasonal_naive(chains_, season);
  else if (name_ == "holt_winters") predictor_ = make_holt_winters({HoltWintersParams{}}, chains_, season);
  else if (name_ == "rnn") {
    if (source.checkpoint().empty()) throw field("checkpoint", "a checkpoint of nfv-train predictor for model rnn");
    set_torch_threads(1);
    std::unique_ptr<RnnPredictor> rnn = RnnPredictor::load(source.checkpoint());
    if (rnn->chains() != chains_)
      throw field("checkpoint", "a model of " + std::to_string(chains_) + " chains, this one has " +
                                    std::to_string(rnn->chains()));
    const auto names = rnn->chain_names();
    for (std::size_t c = 0; c < chains_; ++c)
      if (names[c] != model.topology().chains[c].name)
        throw field("checkpoint", "chains in the topology's order; chain " + std::to_string(c) + " is '" + names[c] +
                                      "', not '" + model.topology().chains[c].name + "'");
    if (source.fine_tune_every() > 0) {
      FineTuneSettings tuning;
      tuning.every_slots = source.fine_tune_every();
      if (source.fine_tune_window() > 0) tuning.window_slots = source.fine_tune_window();
      rnn->enable_fine_tuning(tuning);
    }
    rnn_ = rnn.get();
    predictor_ = std::move(rnn);
    name_ = "rnn (" + predictor_->name() + ")";
  } else {
    throw field("model", "persistence, last_value, ewma, seasonal_naive, holt_winters or rnn, not '" + name_ + "'");
  }
}

Forecaster::~Forecaster() {
  if (rnn_ != nullptr) rnn_->wait_for_fine_tuning();
}

Forecast Forecaster::forecast(const Observation& observation, std::size_t horizon, std::uint64_t slot) {
  if (!predictor_) return persistence_forecast(observation, horizon);
  rates_.assign(chains_, 0.0);
  for (std::size_t c = 0; c < chains_ && c < observation.arrival_pps.size(); ++c)
    rates_[c] = observation.arrival_pps[c] / pps_per_unit_;
  const double measured_slot = slot > 0 ? static_cast<double>(slot - 1) : 0.0;
  predictor_->observe(rates_, start_unix_s_ + measured_slot * step_seconds_);
  return to_forecast(predictor_->forecast(std::max<std::size_t>(horizon, 1)), pps_per_unit_);
}

std::string Forecaster::note() const {
  if (rnn_ == nullptr) return {};
  std::string text = "forecast " + name_ + ": " + std::to_string(rnn_->fine_tunings_applied()) + " fine-tunings applied";
  if (rnn_->fine_tuning_running()) text += ", one running";
  if (!rnn_->fine_tuning_error().empty()) text += ", last failed: " + rnn_->fine_tuning_error();
  return text;
}

}  // namespace nfv
