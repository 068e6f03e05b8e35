// RnnPredictor: the trained network in the slot loop. Each observe() runs
// one recurrent step for all chains at once (the state carries the
// history, so a slot costs one step, not a window), and forecast() turns
// the head's u outputs back into rates. Fine-tuning runs on a copy of the
// network in a background thread; the slot loop only checks, at the start
// of observe(), whether a new network is ready, catches it up on the slots
// it missed and swaps it in.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "rnn_predictor.h"
#include "rnn_inputs.h"
#include "rnn_network.h"
#include "rnn_scaling.h"

namespace nfv {

RnnCell parse_rnn_cell(const std::string& text) {
  if (text == "gru") return RnnCell::gru;
  if (text == "lstm") return RnnCell::lstm;
  throw std::invalid_argument("expected gru or lstm, got '" + text + "'");
}

std::string rnn_cell_name(RnnCell cell) { return cell == RnnCell::gru ? "gru" : "lstm"; }

namespace {

void check_config(const RnnConfig& c) {
  if (c.hidden == 0 || c.layers == 0) throw std::invalid_argument("rnn: hidden size and layers must be at least 1");
  if (c.horizon == 0) throw std::invalid_argument("rnn: the horizon must be at least 1 slot");
  if (c.period_slots < c.horizon)
    throw std::invalid_argument("rnn: the period (" + std::to_string(c.period_slots) +
                                " slots) must be at least the horizon (" + std::to_string(c.horizon) + ")");
  for (std::size_t q = 0; q < c.quantiles.size(); ++q) {
    if (!(c.quantiles[q] > 0 && c.quantiles[q] < 1))
      throw std::invalid_argument("rnn: quantile levels must be in (0, 1), got " + std::to_string(c.quantiles[q]));
    if (q > 0 && c.quantiles[q] <= c.quantiles[q - 1]) throw std::invalid_argument("rnn: quantile levels must ascend");
  }
}

// A network trained in the background, with its state after slot `through - 1`.
struct FineTuned {
  std::unique_ptr<RnnNetwork> network;
  RnnState state;
  std::size_t through = 0;
};

}  // namespace

struct RnnPredictor::Online {
  RnnConfig config;
  std::shared_ptr<const RnnScaling> scaling;
  std::vector<std::string> names;
  std::size_t chains = 0;
  std::unique_ptr<RnnNetwork> network;
  RnnState state;

  // The last `capacity` slots, by slot mod capacity: cleaned rates, z, start times.
  std::size_t capacity = 0;
  std::vector<double> rates;
  std::vector<float> z;
  std::vector<float> u_base;  // the EWMA level, in u
  std::vector<double> times;
  std::vector<double> last_usable;
  std::vector<double> level;  // the EWMA level per chain
  std::size_t observed = 0;
  std::vector<float> inputs, outputs, lagged;

  std::optional<FineTuneSettings> tuning;
  std::thread worker;
  std::atomic<bool> busy{false};
  std::mutex ready_mutex;
  std::mutex history_mutex;  // the worker copies rows while the slot loop writes the next one
  std::unique_ptr<FineTuned> ready;
  std::string error;  // of the last failed fine-tuning
  std::atomic<std::size_t> applied{0};

  ~Online() {
    if (worker.joinable()) worker.join();
  }

  void size_history(std::size_t slots) {
    capacity = slots;
    rates.assign(capacity * chains, 0);
    z.assign(capacity * chains, 0);
    u_base.assign(capacity * chains, 0);
    times.assign(capacity, 0);
  }

  // Runs slot `slot` (in the history) through `net`.
  void step(const RnnNetwork& net, RnnState& st, std::size_t slot) {
    const std::size_t width = rnn_input_size(config);
    const std::size_t at = slot % capacity;
    for (std::size_t c = 0; c < chains; ++c) {
      const float z_now = z[at * chains + c];
      const float z_before = slot > 0 ? z[((slot - 1) % capacity) * chains + c] : z_now;
      const bool day_seen = slot >= config.period_slots;
      const float lag_origin = day_seen ? z[((slot - config.period_slots) % capacity) * chains + c] : z_now;
      for (std::size_t h = 0; h < config.horizon; ++h)
        lagged[h] = day_seen ? z[((slot + 1 + h - config.period_slots) % capacity) * chains + c] : z_now;
      write_rnn_inputs(&inputs[c * width], config, *scaling, c, z_now, z_before, lagged.data(), lag_origin,
                       u_base[at * chains + c], times[at] + config.step_seconds);
    }
    net.step(inputs, chains, st, outputs);
  }

  void adopt_fine_tuned() {
    std::unique_ptr<FineTuned> next;
    {
      std::lock_guard lock(ready_mutex);
      next = std::move(ready);
    }
    if (!next) return;
    // Catch up on the slots observed while it trained (they are still in the history).
    if (observed - next->through + config.period_slots + config.horizon > capacity) return;
    for (std::size_t slot = next->through; slot < observed; ++slot) step(*next->network, next->state, slot);
    network = std::move(next->network);
    state = std::move(next->state);
    applied.fetch_add(1);
  }

  // The window to fine-tune on, as a trace (rows of cleaned rates).
  RateTrace window(std::size_t rows) const {
    RateTrace t;
    t.label = "fine-tuning window";
    t.step_seconds = config.step_seconds;
    t.columns = names;
    const std::size_t first = observed - rows;
    t.start_unix_s = static_cast<std::int64_t>(times[first % capacity]);
    t.values.resize(rows * chains);
    for (std::size_t r = 0; r < rows; ++r)
      std::copy_n(&rates[((first + r) % capacity) * chains], chains, &t.values[r * chains]);
    return t;
  }

  void maybe_start_fine_tuning() {
    if (!tuning || observed % *tuning->every_slots != 0 || busy.load()) return;
    const std::size_t rows = std::min(observed, *tuning->window_slots + config.period_slots);
    RnnTrainSettings settings;
    settings.max_epochs = tuning->epochs;
    settings.validation_slots = 0;
    settings.learning_rate = tuning->learning_rate;
    settings.seed = tuning->seed + observed;
    try {
      settings = resolved_train_settings(settings, config, rows, "the fine-tuning window");
    } catch (const std::invalid_argument&) {
      return;  // too little to learn from yet
    }
    if (worker.joinable()) worker.join();  // finished: busy was false
    busy.store(true);
    worker = std::thread([this, trace = window(rows), net = network->clone(), settings]() mutable {
      try {
        const RnnDataset data = build_rnn_dataset(trace, *scaling, config);
        net->train(data, data.rows, settings, false, {});
        // Warm the new network up on the freshest history (the slot loop went
        // on meanwhile), so that the slot loop has only a few slots to catch up.
        RateTrace fresh;
        std::size_t fresh_through = 0;
        {
          std::lock_guard lock(history_mutex);
          fresh_through = observed;
          fresh = window(std::min(observed, *settings.sequence_slots + config.period_slots));
        }
        const RnnDataset recent = build_rnn_dataset(fresh, *scaling, config);
        auto result = std::make_unique<FineTuned>();
        result->state = net->warm_up(recent, recent.rows - std::min(recent.rows, *settings.sequence_slots), recent.rows);
        result->network = std::move(net);
        result->through = fresh_through;
        std::lock_guard lock(ready_mutex);
        ready = std::move(result);
      } catch (const std::exception& e) {
        std::lock_guard lock(ready_mutex);
        error = e.what();
      }
      busy.store(false);
    });
  }
};

RnnPredictor::RnnPredictor(RnnConfig config, std::unique_ptr<RnnNetwork> network,
                           std::shared_ptr<const RnnScaling> scaling, std::vector<std::string> chain_names)
    : online_(std::make_unique<Online>()) {
  Online& o = *online_;
  o.config = std::move(config);
  o.scaling = std::move(scaling);
  o.names = std::move(chain_names);
  o.chains = o.names.size();
  o.network = std::move(network);
  o.last_usable.assign(o.chains, 0);
  o.level.assign(o.chains, 0);
  o.size_history(o.config.period_slots + o.config.horizon + 1);
  o.inputs.resize(o.chains * rnn_input_size(o.config));
  o.outputs.resize(o.chains * rnn_output_size(o.config));
  o.lagged.resize(o.config.horizon);
}

RnnPredictor::~RnnPredictor() = default;

RnnConfig resolved_rnn_config(RnnConfig config, double step_seconds) {
  config.step_seconds = step_seconds;
  if (config.period_slots == 0) config.period_slots = daily_period_slots(step_seconds);
  check_config(config);
  return config;
}

RnnTrainSettings resolved_train_settings(const RnnTrainSettings& settings_in, const RnnConfig& config, std::size_t rows,
                                         const std::string& what) {
  RnnTrainSettings s = settings_in;
  const std::size_t period = config.period_slots, horizon = config.horizon;
  if (!s.burn_in_slots) s.burn_in_slots = std::max<std::size_t>(1, period / 6);
  if (!s.sequence_slots) s.sequence_slots = std::max(*s.burn_in_slots + 1, 2 * period / 3);
  const auto validation_for = [&](std::size_t r) { return std::min(2 * period, std::max(horizon + 1, r / 4)); };
  if (!s.validation_slots) s.validation_slots = validation_for(rows);
  if (*s.sequence_slots == 0 || *s.burn_in_slots >= *s.sequence_slots)
    throw std::invalid_argument("rnn: the burn-in (" + std::to_string(*s.burn_in_slots) +
                                " slots) must be shorter than the sequence (" + std::to_string(*s.sequence_slots) + ")");
  // Rows beside the validation's; where the validation follows the rows
  // (a quarter of them), the minimum is the least count that leaves room for
  // its own validation.
  const std::size_t rest = period + *s.burn_in_slots + horizon + 2;
  std::size_t needed = *s.validation_slots + rest;
  if (!settings_in.validation_slots) {
    needed = rest + horizon + 1;
    while (needed < validation_for(needed) + rest) ++needed;
  }
  if (rows < needed)
    throw std::invalid_argument("rnn: " + what + " has " + std::to_string(rows) + " rows; training needs at least " +
                                std::to_string(needed) + ": a day of " + std::to_string(period) +
                                " slots for the daily lags, a burn-in of " + std::to_string(*s.burn_in_slots) +
                                ", a horizon of " + std::to_string(horizon) + ", " +
                                std::to_string(needed - rest) +
                                " validation rows and one to learn from (a longer trace, or fewer validation rows, a "
                                "shorter burn-in or horizon)");
  return s;
}

std::unique_ptr<RnnPredictor> RnnPredictor::train(const RateTrace& trace, const RnnConfig& config_in,
                                                  const RnnTrainSettings& settings_in, TrainReport* report,
                                                  const TrainProgress& progress) {
  const RnnConfig config = resolved_rnn_config(config_in, trace.step_seconds);
  const RnnTrainSettings settings = resolved_train_settings(settings_in, config, trace.rows(), trace.label);
  const std::size_t train_end = trace.rows() - *settings.validation_slots;
  auto scaling = std::make_shared<const RnnScaling>(RnnScaling::fit(trace, train_end, config.period_slots));
  const RnnDataset data = build_rnn_dataset(trace, *scaling, config);
  auto network = std::make_unique<RnnNetwork>(config, settings.seed);
  TrainReport result = network->train(data, train_end, settings, *settings.validation_slots > 0, progress);
  if (report) *report = std::move(result);
  return std::unique_ptr<RnnPredictor>(new RnnPredictor(config, std::move(network), std::move(scaling), trace.columns));
}

namespace {

const char* const kScalingKeys[] = {"scale", "mu", "sigma", "alpha", "mase_scale"};

std::vector<double>* scaling_field(RnnScaling& s, std::size_t i) {
  std::vector<double>* fields[] = {&s.scale, &s.mu, &s.sigma, &s.alpha, &s.mase_scale};
  return fields[i];
}

}  // namespace

void RnnPredictor::save(const std::string& path) const {
  const Online& o = *online_;
  CheckpointExtras extras;
  std::string names;
  for (const std::string& name : o.names) names += name + "\n";
  extras.text.emplace_back("chains", names);
  RnnScaling copy = *o.scaling;
  for (std::size_t i = 0; i < std::size(kScalingKeys); ++i) extras.numbers.emplace_back(kScalingKeys[i], *scaling_field(copy, i));
  o.network->save(path, extras);
}

std::unique_ptr<RnnPredictor> RnnPredictor::load(const std::string& path) {
  CheckpointExtras extras;
  extras.text.emplace_back("chains", "");
  for (const char* key : kScalingKeys) extras.numbers.emplace_back(key, std::vector<double>{});
  std::unique_ptr<RnnNetwork> network = RnnNetwork::load(path, extras);
  std::vector<std::string> names;
  std::istringstream lines(extras.text[0].second);
  for (std::string line; std::getline(lines, line);) names.push_back(line);
  RnnScaling scaling;
  for (std::size_t i = 0; i < std::size(kScalingKeys); ++i) {
    *scaling_field(scaling, i) = extras.numbers[i].second;
    if (scaling_field(scaling, i)->size() != names.size())
      throw std::runtime_error(path + ": normalization '" + kScalingKeys[i] + "' has " +
                               std::to_string(scaling_field(scaling, i)->size()) + " chains, the checkpoint names " +
                               std::to_string(names.size()));
  }
  const RnnConfig config = network->config();
  check_config(config);
  return std::unique_ptr<RnnPredictor>(new RnnPredictor(config, std::move(network),
                                                        std::make_shared<const RnnScaling>(std::move(scaling)),
                                                        std::move(names)));
}

const RnnConfig& RnnPredictor::config() const { return online_->config; }
std::vector<std::string> RnnPredictor::chain_names() const { return online_->names; }
std::string RnnPredictor::name() const { return rnn_cell_name(online_->config.cell); }
std::size_t RnnPredictor::chains() const { return online_->chains; }

void RnnPredictor::observe(std::span<const double> rates, double slot_start_unix_s) {
  Online& o = *online_;
  if (rates.size() != o.chains)
    throw std::invalid_argument(name() + ": a row of " + std::to_string(rates.size()) + " rates, expected " +
                                std::to_string(o.chains));
  {
    std::unique_lock lock(o.history_mutex, std::defer_lock);
    if (o.tuning) lock.lock();  // only a fine-tuning worker reads the history concurrently
    const std::size_t at = o.observed % o.capacity;
    for (std::size_t c = 0; c < o.chains; ++c) {
      const double rate = o.last_usable[c] = clean_rate(rates[c], o.last_usable[c]);
      o.rates[at * o.chains + c] = rate;
      o.z[at * o.chains + c] = static_cast<float>(o.scaling->to_z(c, rate));
      o.level[c] = o.scaling->next_level(c, o.level[c], rate, o.observed == 0);
      o.u_base[at * o.chains + c] = static_cast<float>(o.scaling->to_u(c, o.level[c]));
    }
    o.times[at] = slot_start_unix_s;
  }
  o.adopt_fine_tuned();
  o.step(*o.network, o.state, o.observed);
  {
    std::unique_lock lock(o.history_mutex, std::defer_lock);
    if (o.tuning) lock.lock();
    ++o.observed;
  }
  o.maybe_start_fine_tuning();
}

RateForecast RnnPredictor::forecast(std::size_t horizon) {
  const Online& o = *online_;
  if (o.observed == 0) throw std::logic_error(name() + ": forecast before the first observe");
  if (horizon > o.config.horizon)
    throw std::invalid_argument(name() + ": horizon " + std::to_string(horizon) + " beyond the model's " +
                                std::to_string(o.config.horizon));
  RateForecast f;
  f.chains = o.chains;
  f.horizon = horizon;
  f.mean.resize(o.chains * horizon);
  f.quantile_levels = o.config.quantiles;
  const std::size_t levels = f.quantile_levels.size();
  f.quantiles.resize(o.chains * horizon * levels);
  const std::size_t width = rnn_output_size(o.config);
  for (std::size_t c = 0; c < o.chains; ++c) {
    const float* out = &o.outputs[c * width];
    for (std::size_t h = 0; h < horizon; ++h) {
      f.mean[c * horizon + h] = o.scaling->u_to_rate(c, out[h]);
      double* q = f.quantiles.data() + (c * horizon + h) * levels;
      for (std::size_t l = 0; l < levels; ++l) q[l] = o.scaling->u_to_rate(c, out[(l + 1) * o.config.horizon + h]);
      std::sort(q, q + levels);  // separately trained heads may cross
    }
  }
  return f;
}

void RnnPredictor::enable_fine_tuning(const FineTuneSettings& settings_in) {
  Online& o = *online_;
  FineTuneSettings settings = settings_in;
  if (!settings.every_slots) settings.every_slots = o.config.period_slots;
  if (!settings.window_slots) settings.window_slots = 7 * o.config.period_slots;
  if (*settings.every_slots == 0 || settings.epochs == 0)
    throw std::invalid_argument("fine-tuning: every_slots and epochs must be at least 1");
  if (o.observed > 0) throw std::logic_error("fine-tuning: enable it before the first observe");
  o.tuning = settings;
  // The window, its daily lags, and the slots that pass while it trains.
  const std::size_t sequence = std::max<std::size_t>(2, 2 * o.config.period_slots / 3);
  o.size_history(std::max(*settings.window_slots, sequence) + o.config.period_slots + o.config.horizon +
                 *settings.every_slots);
}

std::size_t RnnPredictor::fine_tunings_applied() const { return online_->applied.load(); }
bool RnnPredictor::fine_tuning_running() const { return online_->busy.load(); }

std::string RnnPredictor::fine_tuning_error() const {
  std::lock_guard lock(online_->ready_mutex);
  return online_->error;
}

void RnnPredictor::wait_for_fine_tuning() {
  if (online_->worker.joinable()) online_->worker.join();
}

std::string RnnPredictor::note() const {
  std::string text = name() + ": " + std::to_string(fine_tunings_applied()) + " fine-tunings applied";
  if (fine_tuning_running()) text += ", one running";
  if (const std::string error = fine_tuning_error(); !error.empty()) text += ", last failed: " + error;
  return online_->tuning ? text : std::string();
}

namespace {

// `rnn`: a checkpoint of nfv-train predictor, optionally fine-tuned online.
const PredictorRegistration kRnn{
    "rnn", "GRU/LSTM from a checkpoint of nfv-train predictor (checkpoint=FILE, fine_tune_every=N, fine_tune_window=N)",
    {"checkpoint", "fine_tune_every", "fine_tune_window"},
    [](const ParamReader& params, const PredictorContext& context) -> std::unique_ptr<Predictor> {
      const std::string checkpoint = params.text("checkpoint", "");
      if (checkpoint.empty())
        throw std::invalid_argument(params.what() + ": parameter 'checkpoint': a checkpoint of nfv-train predictor");
      set_torch_threads(1);
      std::unique_ptr<RnnPredictor> rnn = RnnPredictor::load(checkpoint);
      const auto names = rnn->chain_names();
      if (names.size() != context.chain_names.size())
        throw std::invalid_argument(params.what() + ": checkpoint " + checkpoint + " models " + std::to_string(names.size()) +
                                    " chains, this system has " + std::to_string(context.chain_names.size()));
      for (std::size_t c = 0; c < names.size(); ++c)
        if (names[c] != context.chain_names[c])
          throw std::invalid_argument(params.what() + ": checkpoint " + checkpoint + ": chain " + std::to_string(c) +
                                      " is '" + names[c] + "', the system's is '" + context.chain_names[c] +
                                      "' (the chains must be in the same order)");
      if (rnn->config().step_seconds != context.step_seconds)
        throw std::invalid_argument(params.what() + ": checkpoint " + checkpoint + " was trained on steps of " +
                                    std::to_string(rnn->config().step_seconds) + " s, this trace's are " +
                                    std::to_string(context.step_seconds) + " s");
      const std::uint32_t every = params.count("fine_tune_every", 0);
      if (every > 0) {
        FineTuneSettings tuning;
        tuning.every_slots = every;
        if (params.has("fine_tune_window")) tuning.window_slots = params.count("fine_tune_window", 0);
        rnn->enable_fine_tuning(tuning);
      }
      return rnn;
    }};

}  // namespace

}  // namespace nfv
