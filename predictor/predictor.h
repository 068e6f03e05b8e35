// The traffic predictor (DESIGN.md section 4): per-chain arrival rates for
// the next H slots, from the rates measured so far. Every model sits behind
// one interface, Predictor, fed one row of per-chain rates per slot:
//   - baselines: last value, EWMA, seasonal naive (daily period), Holt-Winters;
//   - RnnPredictor: a GRU or LSTM in LibTorch, one model shared by all
//     chains, forecasting a correction of each chain's EWMA level (in
//     log1p space) from recent changes, time-of-day and day-of-week
//     features, a multi-horizon head and optional quantile heads, trained
//     on MASE's own per-chain weighting,
//     trained offline with validation early stopping and fine-tuned online
//     on a background thread.
// Rates are in the trace's unit (Mbit/s, req/s, ...); the scaler's
// forecaster maps them to and from packets/s. Forecasts are never NaN and
// never negative, whatever the input (gaps, zeros, outliers). Predictors
// register themselves by name (make_predictor); the RNN lives in its own
// library (rnn_predictor.h) so that what needs no LibTorch does not link it.
// docs/predictor.md explains the models, the features and the metrics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "option_values.h"
#include "rate_trace.h"

namespace nfv {

// Rates per chain for the next `horizon` slots; step 0 is the slot after
// the last one observed.
struct RateForecast {
  std::size_t chains = 0;
  std::size_t horizon = 0;
  std::vector<double> mean;             // [chain * horizon + step]
  std::vector<double> quantile_levels;  // e.g. {0.1, 0.9}; empty when none
  std::vector<double> quantiles;        // [(chain * horizon + step) * levels + q]

  double at(std::size_t chain, std::size_t step) const { return mean[chain * horizon + step]; }
  double quantile(std::size_t chain, std::size_t step, std::size_t level) const {
    return quantiles[(chain * horizon + step) * quantile_levels.size() + level];
  }
};


class Predictor {
 public:
  virtual ~Predictor() = default;
  virtual std::string name() const = 0;
  virtual std::size_t chains() const = 0;
  // The rates measured in one slot, one per chain, and when the slot began
  // (unix seconds; any steady clock of slot starts will do). Non-finite
  // values count as missing, negative ones as 0.
  virtual void observe(std::span<const double> rates, double slot_start_unix_s) = 0;
  // Throws std::logic_error before the first observe().
  virtual RateForecast forecast(std::size_t horizon) = 0;
  // What the model did lately (e.g. online fine-tunings), for a decision's
  // reason; empty when nothing.
  virtual std::string note() const { return {}; }
  // The most steps forecast() gives; a forecaster repeats the last beyond it.
  virtual std::size_t max_horizon() const { return SIZE_MAX; }
};

// --- Predictors by name ----------------------------------------------------

// What every predictor is built for.
struct PredictorContext {
  std::vector<std::string> chain_names;  // one per rate column, in order
  double step_seconds = 300;             // trace time of one slot
};
using PredictorFactory = std::function<std::unique_ptr<Predictor>(const ParamReader& params, const PredictorContext& context)>;

// Each predictor registers itself from its own file:
//   static const PredictorRegistration ewma{"ewma", "...", {"alpha"}, factory};
struct PredictorRegistration {
  PredictorRegistration(std::string name, std::string description, std::set<std::string> params, PredictorFactory factory);
};
// Throws std::invalid_argument naming an unknown predictor (and the known
// ones) or parameter, or a bad value.
std::unique_ptr<Predictor> make_predictor(const std::string& name, const NamedParams& params,
                                          const PredictorContext& context);
// name -> description, for --help and errors.
std::map<std::string, std::string> predictor_names();

// --- Baselines -------------------------------------------------------------

std::unique_ptr<Predictor> make_last_value(std::size_t chains);
// level <- alpha * rate + (1 - alpha) * level; alpha per chain (or one for all).
std::unique_ptr<Predictor> make_ewma(std::vector<double> alpha, std::size_t chains);
// The rate one period earlier (the last value until a period has been seen).
std::unique_ptr<Predictor> make_seasonal_naive(std::size_t chains, std::size_t period_slots);

// Additive Holt-Winters: level, trend and a seasonal term of `period_slots`.
struct HoltWintersParams {
  double alpha = 0.2;  // level
  double beta = 0.01;  // trend
  double gamma = 0.1;  // season
};
// `params` per chain (or one for all). The model initializes itself from
// the first two periods it observes (the last value until then).
std::unique_ptr<Predictor> make_holt_winters(std::vector<HoltWintersParams> params, std::size_t chains,
                                             std::size_t period_slots);
// Per chain, the grid point with the least one-step squared error over `trace`.
std::vector<HoltWintersParams> fit_holt_winters(const RateTrace& trace, std::size_t period_slots);
// Per chain, the EWMA alpha with the least one-step squared error over `trace`.
std::vector<double> fit_ewma(const RateTrace& trace);

// --- Accuracy --------------------------------------------------------------

// The in-sample MAE of the seasonal-naive forecast on `train`, per chain:
// mean over t in [period, rows) of |y[t] - y[t - period]|. MASE divides by it.
std::vector<double> seasonal_naive_scale(const RateTrace& train, std::size_t period_slots);

struct ForecastErrors {
  std::size_t horizon = 0;     // 1-based step ahead
  std::size_t points = 0;
  double mae = 0;              // over every chain and target slot, trace units
  double rmse = 0;
  double mape = 0;             // percent, over targets >= mape_floor x the chain's scale
  std::size_t mape_points = 0;
  double mase = 0;             // mean over chains of MAE_chain / scale_chain (scale > 0)
};

// Walks `predictor` through `test` row by row: before observing row t it
// forecasts max(horizons) steps, and the forecast for step h - 1 is scored
// against row t + h - 1. Targets for which `skip_target(row)` is true are
// left out (e.g. an outage). `latency_us`, when given, receives the time of
// every observe() + forecast() pair.
struct EvaluationSettings {
  std::vector<std::size_t> horizons{1, 3, 12};
  double mape_floor = 0.05;   // of the chain's mean training rate
  std::function<bool(std::size_t row)> skip_target;
  // Called with every forecast made (row of the origin, the forecast), e.g. to plot it.
  std::function<void(std::size_t row, const RateForecast&)> on_forecast;
};
std::vector<ForecastErrors> evaluate_forecasts(Predictor& predictor, const RateTrace& test,
                                               const std::vector<double>& mase_scale,
                                               const std::vector<double>& train_mean, const EvaluationSettings& settings,
                                               std::vector<double>* latency_us = nullptr);

// Feeds every row of `trace` to `predictor` (warm-up before a test).
void observe_all(Predictor& predictor, const RateTrace& trace);
// The time `trace`'s row starts: start_unix_s + row x step (0-based start when unknown).
double row_start_unix_s(const RateTrace& trace, std::size_t row);

}  // namespace nfv
