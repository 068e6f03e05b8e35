#include "forecaster.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "predictor.h"
#include "rate_trace.h"

namespace nfv {

ForecastSpec parse_forecast_spec(const std::string& text) {
  ForecastSpec spec;
  const auto colon = text.find(':');
  spec.model = text.substr(0, colon);
  if (spec.model.empty()) throw std::invalid_argument("--forecast: expected MODEL or MODEL:key=value,..., got '" + text + "'");
  if (colon != std::string::npos) {
    // A piece without '=' continues the value before it: ewma:alpha=0.3,0.5 is one alpha per chain.
    std::vector<std::string> pairs;
    std::stringstream in(text.substr(colon + 1));
    for (std::string piece; std::getline(in, piece, ',');)
      if (piece.find('=') == std::string::npos && !pairs.empty()) pairs.back() += "," + piece;
      else pairs.push_back(piece);
    for (const std::string& pair : pairs) add_named_param("--forecast " + spec.model, pair, spec.params);
  }
  return spec;
}

std::string forecast_spec_text(const ForecastSpec& spec) {
  std::string text = spec.model;
  char separator = ':';
  for (const auto& [key, value] : spec.params) {
    text += separator + key + "=" + value;
    separator = ',';
  }
  return text;
}

Forecaster::Forecaster(const ForecastSpec& spec, const SystemModel& model, const TraceMapping& mapping,
                       std::shared_ptr<const ArrivalSchedule> truth)
    : spec_(spec), model_(&model), mapping_(mapping), truth_(std::move(truth)), name_(spec.model) {
  if (!(mapping_.pps_per_unit > 0)) throw std::invalid_argument("forecaster: the trace mapping has no packets/s per unit");
  if (spec_.model == "persistence" || spec_.model == "oracle") {
    if (!spec_.params.empty())
      throw std::invalid_argument("forecast " + spec_.model + ": unknown parameter '" + spec_.params.begin()->first +
                                  "' (known: none)");
    if (spec_.model == "oracle" && !truth_)
      throw std::invalid_argument("forecast oracle: needs the true arrivals, which only a simulated system has");
    if (truth_ && truth_->chains != model.chains())
      throw std::invalid_argument("forecast oracle: arrivals of " + std::to_string(truth_->chains) + " chains, the system has " +
                                  std::to_string(model.chains()));
  } else {
    PredictorContext context;
    for (const Chain& chain : model.topology().chains) context.chain_names.push_back(chain.name);
    context.step_seconds = mapping_.step_seconds;
    predictor_ = make_predictor(spec_.model, spec_.params, context);
    name_ = forecast_spec_text(spec_);
  }
  last_pps_.assign(model.chains(), 0.0);
  rates_.assign(model.chains(), 0.0);
}

Forecaster::~Forecaster() = default;

void Forecaster::reset() {
  std::fill(last_pps_.begin(), last_pps_.end(), 0.0);
  observed_ = false;
  if (predictor_) {
    // A predictor keeps its history: a fresh one is built from the same spec.
    PredictorContext context;
    for (const Chain& chain : model_->topology().chains) context.chain_names.push_back(chain.name);
    context.step_seconds = mapping_.step_seconds;
    predictor_ = make_predictor(spec_.model, spec_.params, context);
  }
}

void Forecaster::observe(std::span<const double> arrival_pps, std::size_t slot) {
  observe_at(arrival_pps, mapping_.unix_s(slot));
}

void Forecaster::observe_at(std::span<const double> arrival_pps, double unix_s) {
  for (std::size_t c = 0; c < last_pps_.size(); ++c) last_pps_[c] = c < arrival_pps.size() ? arrival_pps[c] : 0.0;
  observed_ = true;
  if (!predictor_) return;
  for (std::size_t c = 0; c < rates_.size(); ++c) rates_[c] = last_pps_[c] / mapping_.pps_per_unit;
  predictor_->observe(rates_, unix_s);
}

void Forecaster::warm_up(const ArrivalSchedule& history, std::size_t rows) {
  if (history.chains != last_pps_.size())
    throw std::invalid_argument("forecaster: a history of " + std::to_string(history.chains) + " chains, the system has " +
                                std::to_string(last_pps_.size()));
  for (std::size_t s = history.slots() > rows ? history.slots() - rows : 0; s < history.slots(); ++s)
    observe_at(history.slot(s), history.mapping.unix_s(s));
}

Forecast Forecaster::forecast(std::size_t slot, std::size_t horizon) {
  horizon = std::max<std::size_t>(horizon, 1);
  const std::size_t chains = model_->chains();
  Forecast f;
  f.chains = chains;
  f.horizon = horizon;
  f.mean_pps.assign(chains * horizon, 0.0);
  if (spec_.model == "oracle") {
    const std::size_t last = truth_->slots() == 0 ? 0 : truth_->slots() - 1;
    for (std::size_t c = 0; c < chains; ++c)
      for (std::size_t h = 0; h < horizon; ++h)
        f.mean_pps[c * horizon + h] = truth_->slots() == 0 ? 0.0 : truth_->slot(std::min(slot + h, last))[c];
    return f;
  }
  if (!observed_) return f;
  if (!predictor_) {
    for (std::size_t c = 0; c < chains; ++c) std::fill_n(f.mean_pps.begin() + c * horizon, horizon, last_pps_[c]);
    return f;
  }
  const std::size_t steps = std::min(horizon, predictor_->max_horizon());
  const RateForecast rates = predictor_->forecast(steps);
  for (std::size_t c = 0; c < chains; ++c)
    for (std::size_t h = 0; h < horizon; ++h)
      f.mean_pps[c * horizon + h] = rates.at(c, std::min(h, steps - 1)) * mapping_.pps_per_unit;
  if (!rates.quantile_levels.empty()) {
    const std::size_t levels = rates.quantile_levels.size();
    f.quantile_levels = rates.quantile_levels;
    f.quantile_pps.resize(chains * horizon * levels);
    for (std::size_t c = 0; c < chains; ++c)
      for (std::size_t h = 0; h < horizon; ++h)
        for (std::size_t q = 0; q < levels; ++q)
          f.quantile_pps[(c * horizon + h) * levels + q] = rates.quantile(c, std::min(h, steps - 1), q) * mapping_.pps_per_unit;
  }
  return f;
}

std::string Forecaster::note() const { return predictor_ ? predictor_->note() : std::string(); }

std::vector<std::pair<std::string, std::string>> forecast_models() {
  std::vector<std::pair<std::string, std::string>> out{
      {"persistence", "the last measured rate"},
      {"oracle", "the true arrivals of the slots ahead (simulated systems only)"}};
  for (const auto& [name, description] : predictor_names()) out.emplace_back(name, description);
  return out;
}

std::size_t default_warm_up_slots(double step_seconds) { return 7 * daily_period_slots(step_seconds); }

}  // namespace nfv
