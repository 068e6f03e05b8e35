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
// Rates are in the trace's unit (Mbit/s, req/s, ...); to_forecast() turns a
// forecast into the scaler's packets/s Forecast. Forecasts are never NaN
// and never negative, whatever the input (gaps, zeros, outliers).
// docs/predictor.md explains the models, the features and the metrics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "plan.h"
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

// The scaler's Forecast: every rate times `pps_per_unit` (e.g. from
// EmulationScale::emulated_packets_per_s(1, unit)).
Forecast to_forecast(const RateForecast& rates, double pps_per_unit);

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
};

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

// --- RNN -------------------------------------------------------------------

enum class RnnCell { gru, lstm };
RnnCell parse_rnn_cell(const std::string& text);  // "gru" | "lstm"
std::string rnn_cell_name(RnnCell cell);

struct RnnConfig {
  RnnCell cell = RnnCell::gru;
  std::size_t hidden = 48;
  std::size_t layers = 1;
  std::size_t horizon = 12;          // slots predicted at once
  std::vector<double> quantiles;     // extra pinball-loss heads, e.g. {0.1, 0.9}
  std::size_t period_slots = 288;    // the daily period, for the seasonal-lag inputs
  double step_seconds = 300;         // trace time of one slot
};

struct RnnTrainSettings {
  std::size_t max_epochs = 40;
  std::size_t patience = 5;             // epochs without a better validation loss
  std::size_t validation_slots = 576;   // the last rows of the block
  std::size_t sequence_slots = 192;     // truncated BPTT window
  std::size_t burn_in_slots = 48;       // first slots of a window carry no loss
  std::size_t batch = 128;
  double learning_rate = 3e-3;
  double clip_norm = 1.0;
  std::uint64_t seed = 1;
};

struct EpochRecord {
  std::size_t epoch = 0;          // 1-based
  double train_loss = 0;          // mean over the epoch's batches
  double validation_loss = 0;
  double seconds = 0;             // since training began
};
struct TrainReport {
  std::vector<EpochRecord> epochs;
  std::size_t best_epoch = 0;     // whose weights were kept (0: the untrained EWMA base)
  double seconds = 0;
  bool stopped_early = false;
  // Validation, per step ahead, in MASE units (rate error / the chain's
  // seasonal-naive MAE, averaged over chains and slots): the EWMA base alone
  // (the untrained network), and the kept network after the blend below.
  std::vector<double> base_validation;
  std::vector<double> validation;
  // Per step ahead, the share g of the network's correction kept: forecast
  // = EWMA + g x correction, g in [0, 1] picked on the validation rows.
  std::vector<double> blend;
};
// Called after every batch (epoch, batches done, batches per epoch, running
// training loss, NaN) and after every epoch (..., the epoch's training loss,
// its validation loss), for a progress bar.
using TrainProgress =
    std::function<void(std::size_t epoch, std::size_t batch, std::size_t batches, double loss, double validation_loss)>;

// Online fine-tuning: every `every_slots` slots a background thread trains
// a copy of the model on the last `window_slots` slots and swaps it in at a
// later slot boundary; observe() and forecast() never wait for it.
struct FineTuneSettings {
  std::size_t every_slots = 288;
  std::size_t window_slots = 2016;
  std::size_t epochs = 2;
  double learning_rate = 1e-3;
  std::uint64_t seed = 1;
};

class RnnNetwork;   // the LibTorch model (private)
struct RnnScaling;  // per-chain normalization (private)

class RnnPredictor : public Predictor {
 public:
  // Trains a new model on `trace`: the last settings.validation_slots rows
  // validate (early stopping keeps the best epoch, epoch 0 = the EWMA
  // base included; then a per-step blend with the EWMA, TrainReport::blend),
  // the rest train. Deterministic for a seed on one thread.
  static std::unique_ptr<RnnPredictor> train(const RateTrace& trace, const RnnConfig& config,
                                             const RnnTrainSettings& settings, TrainReport* report = nullptr,
                                             const TrainProgress& progress = {});
  // A checkpoint written by save(): model, optimizer, normalization, config.
  static std::unique_ptr<RnnPredictor> load(const std::string& path);
  ~RnnPredictor() override;

  void save(const std::string& path) const;
  const RnnConfig& config() const;
  std::vector<std::string> chain_names() const;

  std::string name() const override;
  std::size_t chains() const override;
  void observe(std::span<const double> rates, double slot_start_unix_s) override;
  RateForecast forecast(std::size_t horizon) override;

  void enable_fine_tuning(const FineTuneSettings& settings);
  // Fine-tunings finished and swapped in so far.
  std::size_t fine_tunings_applied() const;
  bool fine_tuning_running() const;
  // Why the last fine-tuning failed (the model in use stays); empty when none did.
  std::string fine_tuning_error() const;
  // Blocks until a running fine-tuning has finished (for tests and shutdown).
  void wait_for_fine_tuning();

 private:
  struct Online;
  RnnPredictor(RnnConfig config, std::unique_ptr<RnnNetwork> network, std::shared_ptr<const RnnScaling> scaling,
               std::vector<std::string> chain_names);
  std::unique_ptr<Online> online_;
};

// LibTorch's intra-op threads for this process (1 for determinism and so
// that inference does not fight the slot loop for cores).
void set_torch_threads(int threads);

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
