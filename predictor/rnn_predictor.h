// The RNN traffic predictor (predictor.h's Predictor): a GRU or LSTM in
// LibTorch, one model shared by all chains, forecasting a correction of
// each chain's EWMA level (in log1p space) from recent changes, time-of-day
// and day-of-week features, a multi-horizon head and optional quantile
// heads, trained on MASE's own per-chain weighting, offline with validation
// early stopping, and fine-tuned online on a background thread. Its own
// library (nfv_predictor_rnn) because it links LibTorch; it registers
// itself as predictor `rnn` (params: checkpoint, fine_tune_every,
// fine_tune_window). docs/predictor.md explains the model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "predictor.h"

namespace nfv {

enum class RnnCell { gru, lstm };
RnnCell parse_rnn_cell(const std::string& text);  // "gru" | "lstm"
std::string rnn_cell_name(RnnCell cell);

struct RnnConfig {
  RnnCell cell = RnnCell::gru;
  std::size_t hidden = 48;
  std::size_t layers = 1;
  std::size_t horizon = 12;          // slots predicted at once
  std::vector<double> quantiles;     // extra pinball-loss heads, e.g. {0.1, 0.9}
  // The daily period, for the seasonal-lag inputs; 0: one day of the
  // trace's steps (288 at 5 minutes, 96 at 15, 24 at an hour).
  std::size_t period_slots = 0;
  double step_seconds = 300;         // trace time of one slot
};

// Windows in slots; unset, they follow the daily period P (and the rows
// there are), so that a trace of any step trains: validation 2 P (at most a
// quarter of the rows, at least a horizon and one), sequence 2/3 P (16 h),
// burn-in P/6 (4 h). At 5-minute steps: 576, 192, 48.
struct RnnTrainSettings {
  std::size_t max_epochs = 40;
  std::size_t patience = 5;                       // epochs without a better validation loss
  std::optional<std::size_t> validation_slots;    // the last rows of the block
  std::optional<std::size_t> sequence_slots;      // truncated BPTT window
  std::optional<std::size_t> burn_in_slots;       // first slots of a window carry no loss
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
// Unset: every day, on the last week (of the model's daily period).
struct FineTuneSettings {
  std::optional<std::size_t> every_slots;
  std::optional<std::size_t> window_slots;
  std::size_t epochs = 2;
  double learning_rate = 1e-3;
  std::uint64_t seed = 1;
};

// `config.period_slots` resolved for a trace of `step_seconds`, and the
// settings' windows for `rows` rows of it. Throws std::invalid_argument
// naming the minimum rows when `rows` are too few to train on.
RnnConfig resolved_rnn_config(RnnConfig config, double step_seconds);
RnnTrainSettings resolved_train_settings(const RnnTrainSettings& settings, const RnnConfig& config, std::size_t rows,
                                         const std::string& what);

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
  // Fine-tunings applied, one running, the last failure.
  std::string note() const override;
  std::size_t max_horizon() const override { return config().horizon; }

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

}  // namespace nfv
