// RnnNetwork::train: truncated back-propagation through time over windows
// of (chain, start slot) drawn at random from the training rows, Adam with
// gradient clipping, and early stopping on the validation rows. One of the
// two files that include LibTorch.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "rnn_module.h"

namespace nfv {
namespace {

constexpr double kHuberBeta = 0.01;  // z units: L1 (the median, which MAE wants) but for a smooth minimum

// A single series (NASA) has few windows; an epoch still takes this many steps.
constexpr std::size_t kMinBatchesPerEpoch = 16;

using Clock = std::chrono::steady_clock;

torch::Tensor as_tensor(const std::vector<float>& values, const RnnDataset& d, std::size_t width) {
  return torch::from_blob(const_cast<float*>(values.data()),
                          {static_cast<std::int64_t>(d.rows * d.chains), static_cast<std::int64_t>(width)});
}

// Loss over the slots whose mask is 1: Huber for the point forecast (head
// 0), pinball for each quantile head.
torch::Tensor forecast_loss(const torch::Tensor& out, const torch::Tensor& target, const torch::Tensor& mask,
                            const RnnConfig& config) {
  const std::int64_t h = static_cast<std::int64_t>(config.horizon);
  const torch::Tensor weight = mask / mask.sum().clamp_min(1);
  const torch::Tensor point = out.narrow(-1, 0, h);
  // (In LibTorch 1.13 the options' beta is ignored; only the argument counts.)
  torch::Tensor loss = (torch::nn::functional::smooth_l1_loss(
                            point, target, torch::nn::functional::SmoothL1LossFuncOptions().reduction(torch::kNone),
                            kHuberBeta) *
                        weight)
                           .sum();
  for (std::size_t q = 0; q < config.quantiles.size(); ++q) {
    const double level = config.quantiles[q];
    const torch::Tensor error = target - out.narrow(-1, static_cast<std::int64_t>(q + 1) * h, h);
    loss = loss + (torch::max(level * error, (level - 1) * error) * weight).sum();
  }
  return loss;
}

// Inputs, targets and mask of a batch of windows [slots, windows, ...].
// Origin slot t carries loss when t >= start + burn_in and its target slot
// t + 1 + step is before `limit`.
struct Batch {
  torch::Tensor x, y, mask;
};

Batch gather(const torch::Tensor& x_all, const torch::Tensor& y_all, const RnnDataset& d,
             const std::vector<std::pair<std::size_t, std::size_t>>& windows, std::size_t slots, std::size_t burn_in,
             std::size_t limit) {
  const std::size_t n = windows.size();
  std::vector<std::int64_t> index(slots * n);
  std::vector<float> mask(slots * n * d.horizon, 0);
  for (std::size_t w = 0; w < n; ++w) {
    const auto [chain, start] = windows[w];
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
  return b;
}

std::vector<torch::Tensor> copy_parameters(torch::nn::Module& module) {
  std::vector<torch::Tensor> copies;
  for (const torch::Tensor& p : module.parameters()) copies.push_back(p.detach().clone());
  return copies;
}

}  // namespace

TrainReport RnnNetwork::train(const RnnDataset& data, std::size_t train_end, const RnnTrainSettings& settings,
                              bool validate, const TrainProgress& progress) {
  if (train_end > data.rows || train_end <= data.first_row + settings.burn_in_slots + 1)
    throw std::invalid_argument("RnnNetwork::train: " + std::to_string(train_end) + " training rows are too few (" +
                                std::to_string(data.first_row) + " go to the daily lags, " +
                                std::to_string(settings.burn_in_slots) + " to the burn-in)");
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
  const std::size_t slots = std::min(settings.sequence_slots, train_end - data.first_row);
  const std::size_t burn_in = std::min(settings.burn_in_slots, slots - 1);
  const std::size_t last_start = train_end - slots;
  // Each epoch sees about every (chain, slot) once, in at least kMinBatchesPerEpoch steps.
  const std::size_t windows_per_epoch = std::max<std::size_t>(
      settings.batch * kMinBatchesPerEpoch, data.chains * (train_end - data.first_row) / (slots - burn_in));
  const std::size_t batches = (windows_per_epoch + settings.batch - 1) / settings.batch;
  std::uniform_int_distribution<std::size_t> pick_chain(0, data.chains - 1);
  std::uniform_int_distribution<std::size_t> pick_start(data.first_row, last_start);

  // Validation: every chain over the validation rows, after a burn-in on the rows before.
  const std::size_t val_burn_in = std::min(settings.sequence_slots, train_end - 1 - data.first_row);
  const std::size_t val_start = train_end - 1 - val_burn_in;
  std::vector<std::pair<std::size_t, std::size_t>> val_windows;
  for (std::size_t c = 0; c < data.chains; ++c) val_windows.emplace_back(c, val_start);
  const bool can_validate = validate && data.rows > train_end + 1;

  TrainReport report;
  double best = INFINITY;
  std::vector<torch::Tensor> best_parameters;
  std::size_t since_best = 0;
  for (std::size_t epoch = 1; epoch <= settings.max_epochs; ++epoch) {
    module->train();
    double loss_sum = 0;
    for (std::size_t b = 0; b < batches; ++b) {
      std::vector<std::pair<std::size_t, std::size_t>> windows(settings.batch);
      for (auto& w : windows) w = {pick_chain(random), pick_start(random)};
      const Batch batch = gather(x_all, y_all, data, windows, slots, burn_in, train_end);
      RnnState::Tensors state;
      const torch::Tensor loss = forecast_loss(module->forward(batch.x, state), batch.y, batch.mask, config_);
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
      torch::NoGradGuard no_grad;
      module->eval();
      const Batch val = gather(x_all, y_all, data, val_windows, data.rows - val_start, val_burn_in, data.rows);
      RnnState::Tensors state;
      record.validation_loss = forecast_loss(module->forward(val.x, state), val.y, val.mask, config_).item<double>();
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
  if (can_validate && !best_parameters.empty()) {
    torch::NoGradGuard no_grad;
    auto parameters = module->parameters();
    for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(best_parameters[i]);
  } else {
    report.best_epoch = report.epochs.size();
  }
  module->eval();
  report.seconds = std::chrono::duration<double>(Clock::now() - start_time).count();
  return report;
}

}  // namespace nfv
