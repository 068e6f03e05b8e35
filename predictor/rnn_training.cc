// RnnNetwork::train: truncated back-propagation through time over windows
// of (chain, start slot) drawn at random from the training rows, Adam with
// gradient clipping, and early stopping on the validation rows. One of the
// two files that include LibTorch.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "rnn_module.h"

namespace nfv {
namespace {

// A single series (NASA) has few windows; an epoch still takes this many steps.
constexpr std::size_t kMinBatchesPerEpoch = 16;
// The blend shares tried per step ahead (rnn_network.h: EWMA + g x correction).
constexpr int kBlendSteps = 20;
constexpr double kMaxTrainingU = 60;

using Clock = std::chrono::steady_clock;

torch::Tensor as_tensor(const std::vector<float>& values, const RnnDataset& d, std::size_t width) {
  return torch::from_blob(const_cast<float*>(values.data()),
                          {static_cast<std::int64_t>(d.rows * d.chains), static_cast<std::int64_t>(width)});
}

// Inputs, targets and mask of a batch of windows [slots, windows, ...], and
// the loss constants of each window's chain [1, windows, kRnnLossConstants].
// Origin slot t carries loss when t >= start + burn_in and its target slot
// t + 1 + step is before `limit`.
struct Batch {
  torch::Tensor x, y, mask, k;
};

// u forecasts [..., steps] -> rate / MASE scale, as RnnScaling::u_to_rate
// does (the cap only keeps float finite; training data stays far below it).
torch::Tensor to_mase_units(const torch::Tensor& u, const torch::Tensor& k) {
  return (k.narrow(-1, 0, 1) * torch::expm1(u.clamp_max(kMaxTrainingU))).clamp_min(0);
}

// Absolute error per slot and step in MASE units (what MASE averages).
torch::Tensor point_errors(const torch::Tensor& out, const Batch& b, std::int64_t horizon) {
  return (to_mase_units(out.narrow(-1, 0, horizon), b.k) - b.y).abs();
}

// The training loss over the slots whose mask is 1: the absolute error of
// the point forecast in MASE units (rate error / the chain's MASE scale, so
// that every chain counts as it does in MASE), plus the pinball loss of each
// quantile head in the same units.
torch::Tensor forecast_loss(const torch::Tensor& out, const Batch& b, const RnnConfig& config) {
  const std::int64_t h = static_cast<std::int64_t>(config.horizon);
  const torch::Tensor weight = b.mask / b.mask.sum().clamp_min(1);
  torch::Tensor loss = (point_errors(out, b, h) * weight).sum();
  for (std::size_t q = 0; q < config.quantiles.size(); ++q) {
    const double level = config.quantiles[q];
    const torch::Tensor error = b.y - to_mase_units(out.narrow(-1, static_cast<std::int64_t>(q + 1) * h, h), b.k);
    loss = loss + (torch::max(level * error, (level - 1) * error) * weight).sum();
  }
  return loss;
}

Batch gather(const torch::Tensor& x_all, const torch::Tensor& y_all, const torch::Tensor& k_all, const RnnDataset& d,
             const std::vector<std::pair<std::size_t, std::size_t>>& windows, std::size_t slots, std::size_t burn_in,
             std::size_t limit) {
  const std::size_t n = windows.size();
  std::vector<std::int64_t> index(slots * n), chains(n);
  std::vector<float> mask(slots * n * d.horizon, 0);
  for (std::size_t w = 0; w < n; ++w) {
    const auto [chain, start] = windows[w];
    chains[w] = static_cast<std::int64_t>(chain);
    for (std::size_t s = 0; s < slots; ++s) {
      const std::size_t row = start + s;
      index[s * n + w] = static_cast<std::int64_t>(row * d.chains + chain);
      if (s < burn_in) continue;
      for (std::size_t h = 0; h < d.horizon; ++h) mask[(s * n + w) * d.horizon + h] = row + 1 + h < limit ? 1.f : 0.f;
    }
  }
  const torch::Tensor idx = torch::tensor(at::ArrayRef<std::int64_t>(index), torch::kInt64);
  const auto L = static_cast<std::int64_t>(slots), N = static_cast<std::int64_t>(n);
  Batch b;
  b.x = x_all.index_select(0, idx).view({L, N, static_cast<std::int64_t>(d.inputs)});
  b.y = y_all.index_select(0, idx).view({L, N, static_cast<std::int64_t>(d.horizon)});
  b.mask = torch::from_blob(mask.data(), {L, N, static_cast<std::int64_t>(d.horizon)}).clone();
  b.k = k_all.index_select(0, torch::tensor(at::ArrayRef<std::int64_t>(chains), torch::kInt64))
            .view({1, N, static_cast<std::int64_t>(kRnnLossConstants)});
  return b;
}

// Per step, the mean absolute error in MASE units over the masked slots of
// base + g x (out - base) (the base is the last input column).
std::vector<double> step_errors(const torch::Tensor& out, const Batch& b, std::int64_t horizon, double g) {
  const torch::Tensor base = b.x.narrow(-1, b.x.size(-1) - 1, 1);
  const torch::Tensor point = base + g * (out.narrow(-1, 0, horizon) - base);
  const torch::Tensor e = (to_mase_units(point, b.k) - b.y).abs() * b.mask;
  const torch::Tensor per_step = (e.sum(at::IntArrayRef{0, 1}) / b.mask.sum(at::IntArrayRef{0, 1}).clamp_min(1)).to(torch::kFloat64).contiguous();
  return std::vector<double>(per_step.data_ptr<double>(), per_step.data_ptr<double>() + horizon);
}

std::vector<torch::Tensor> copy_parameters(torch::nn::Module& module) {
  std::vector<torch::Tensor> copies;
  for (const torch::Tensor& p : module.parameters()) copies.push_back(p.detach().clone());
  return copies;
}

}  // namespace

TrainReport RnnNetwork::train(const RnnDataset& data, std::size_t train_end, const RnnTrainSettings& settings,
                              bool validate, const TrainProgress& progress) {
  if (train_end > data.rows || train_end <= data.first_row + settings.burn_in_slots.value() + 1)
    throw std::invalid_argument("RnnNetwork::train: " + std::to_string(train_end) + " training rows are too few (" +
                                std::to_string(data.first_row) + " go to the daily lags, " +
                                std::to_string(settings.burn_in_slots.value()) + " to the burn-in)");
  const auto start_time = Clock::now();
  torch::manual_seed(settings.seed);
  std::mt19937_64 random(settings.seed);
  RnnModule& module = model_->module;
  module->train();
  if (!model_->optimizer)
    model_->optimizer.emplace(module->parameters(), torch::optim::AdamOptions(settings.learning_rate));
  for (auto& group : model_->optimizer->param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(settings.learning_rate);

  const torch::Tensor x_all = as_tensor(data.x, data, data.inputs);
  const torch::Tensor y_all = as_tensor(data.y, data, data.horizon);
  const torch::Tensor k_all =
      torch::from_blob(const_cast<float*>(data.loss_constants.data()),
                       {static_cast<std::int64_t>(data.chains), static_cast<std::int64_t>(kRnnLossConstants)});
  const std::int64_t horizon = static_cast<std::int64_t>(data.horizon);
  const std::size_t slots = std::min(settings.sequence_slots.value(), train_end - data.first_row);
  const std::size_t burn_in = std::min(settings.burn_in_slots.value(), slots - 1);
  const std::size_t last_start = train_end - slots;
  // Each epoch sees about every (chain, slot) once, in at least kMinBatchesPerEpoch steps.
  const std::size_t windows_per_epoch = std::max<std::size_t>(
      settings.batch * kMinBatchesPerEpoch, data.chains * (train_end - data.first_row) / (slots - burn_in));
  const std::size_t batches = (windows_per_epoch + settings.batch - 1) / settings.batch;
  std::uniform_int_distribution<std::size_t> pick_chain(0, data.chains - 1);
  std::uniform_int_distribution<std::size_t> pick_start(data.first_row, last_start);

  // Validation: every chain over the validation rows, after a burn-in on the rows before.
  const std::size_t val_burn_in = std::min(settings.sequence_slots.value(), train_end - 1 - data.first_row);
  const std::size_t val_start = train_end - 1 - val_burn_in;
  std::vector<std::pair<std::size_t, std::size_t>> val_windows;
  for (std::size_t c = 0; c < data.chains; ++c) val_windows.emplace_back(c, val_start);
  const bool can_validate = validate && data.rows > train_end + 1;

  TrainReport report;
  std::optional<Batch> val;
  if (can_validate) val = gather(x_all, y_all, k_all, data, val_windows, data.rows - val_start, val_burn_in, data.rows);
  // The validation loss: the point forecast's mean absolute error in MASE units.
  auto validation_loss = [&]() {
    torch::NoGradGuard no_grad;
    module->eval();
    RnnState::Tensors state;
    const torch::Tensor out = module->forward(val->x, state);
    return ((point_errors(out, *val, horizon) * val->mask).sum() / val->mask.sum().clamp_min(1)).item<double>();
  };
  // Epoch 0, the untrained network (zero head), is the EWMA itself: keep it
  // unless an epoch does better on the validation rows.
  double best = can_validate ? validation_loss() : INFINITY;
  std::vector<torch::Tensor> best_parameters = copy_parameters(*module);
  std::size_t since_best = 0;
  for (std::size_t epoch = 1; epoch <= settings.max_epochs; ++epoch) {
    module->train();
    double loss_sum = 0;
    for (std::size_t b = 0; b < batches; ++b) {
      std::vector<std::pair<std::size_t, std::size_t>> windows(settings.batch);
      for (auto& w : windows) w = {pick_chain(random), pick_start(random)};
      const Batch batch = gather(x_all, y_all, k_all, data, windows, slots, burn_in, train_end);
      RnnState::Tensors state;
      const torch::Tensor loss = forecast_loss(module->forward(batch.x, state), batch, config_);
      model_->optimizer->zero_grad();
      loss.backward();
      torch::nn::utils::clip_grad_norm_(module->parameters(), settings.clip_norm);
      model_->optimizer->step();
      loss_sum += loss.item<double>();
      if (progress) progress(epoch, b + 1, batches, loss_sum / double(b + 1), NAN);
    }
    EpochRecord record;
    record.epoch = epoch;
    record.train_loss = loss_sum / double(batches);
    if (can_validate) {
      record.validation_loss = validation_loss();
    } else {
      record.validation_loss = NAN;
    }
    record.seconds = std::chrono::duration<double>(Clock::now() - start_time).count();
    report.epochs.push_back(record);
    if (progress) progress(epoch, batches, batches, record.train_loss, record.validation_loss);
    if (!can_validate) continue;
    if (record.validation_loss < best) {
      best = record.validation_loss;
      best_parameters = copy_parameters(*module);
      report.best_epoch = epoch;
      since_best = 0;
    } else if (++since_best >= settings.patience) {
      report.stopped_early = true;
      break;
    }
  }
  if (can_validate) {
    torch::NoGradGuard no_grad;
    auto parameters = module->parameters();
    for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(best_parameters[i]);
    // Per step ahead, keep the share g of the correction that does best on
    // the validation rows (g = 0: the EWMA). The head is linear, so scaling
    // its row for the step by g is exactly EWMA + g x correction.
    module->eval();
    RnnState::Tensors state;
    const torch::Tensor out = module->forward(val->x, state);
    report.base_validation = step_errors(out, *val, horizon, 0);
    report.validation = report.base_validation;
    report.blend.assign(data.horizon, 0);
    for (int i = 1; i <= kBlendSteps; ++i) {
      const double g = double(i) / kBlendSteps;
      const std::vector<double> e = step_errors(out, *val, horizon, g);
      for (std::size_t h = 0; h < data.horizon; ++h)
        if (e[h] < report.validation[h]) {
          report.validation[h] = e[h];
          report.blend[h] = g;
        }
    }
    for (std::size_t h = 0; h < data.horizon; ++h) {
      const auto row = static_cast<std::int64_t>(h);
      module->head->weight[row].mul_(report.blend[h]);
      module->head->bias[row].mul_(report.blend[h]);
    }
  } else {
    report.best_epoch = report.epochs.size();
  }
  module->eval();
  report.seconds = std::chrono::duration<double>(Clock::now() - start_time).count();
  return report;
}

}  // namespace nfv
