// RnnNetwork's model, inference, copies and checkpoints (training is in
// rnn_training.cc). One of the two files that include LibTorch.
#include <cstring>
#include <stdexcept>

#include "checkpoint_archive.h"
#include "rnn_module.h"

namespace nfv {

RnnState::RnnState() = default;
RnnState::~RnnState() = default;
RnnState::RnnState(RnnState&&) noexcept = default;
RnnState& RnnState::operator=(RnnState&&) noexcept = default;

RnnModuleImpl::RnnModuleImpl(const RnnConfig& config, std::int64_t inputs)
    : cell(config.cell),
      horizon(static_cast<std::int64_t>(config.horizon)),
      heads(static_cast<std::int64_t>(1 + config.quantiles.size())) {
  const auto hidden = static_cast<std::int64_t>(config.hidden);
  const auto layers = static_cast<std::int64_t>(config.layers);
  if (cell == RnnCell::gru)
    gru = register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(inputs - 1, hidden).num_layers(layers)));
  else
    lstm = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(inputs - 1, hidden).num_layers(layers)));
  head = register_module("head", torch::nn::Linear(hidden, heads * horizon));
  // A zero head: an untrained model forecasts exactly the EWMA level (the
  // outputs are corrections of it), so training starts from the baseline.
  torch::NoGradGuard no_grad;
  head->weight.zero_();
  head->bias.zero_();
}

torch::Tensor RnnModuleImpl::forward(const torch::Tensor& x, RnnState::Tensors& state) {
  torch::Tensor hidden_out;
  // The last input column is the base z (EWMA level) the outputs correct; the network never reads it.
  const torch::Tensor seen = x.narrow(2, 0, x.size(2) - 1);
  if (cell == RnnCell::gru) {
    auto [out, h] = gru->forward(seen, state.h.defined() ? state.h : torch::Tensor());
    hidden_out = out;
    state.h = h;
  } else {
    torch::optional<std::tuple<torch::Tensor, torch::Tensor>> hc;
    if (state.h.defined()) hc = std::make_tuple(state.h, state.c);
    auto [out, new_hc] = lstm->forward(seen, hc);
    hidden_out = out;
    state.h = std::get<0>(new_hc);
    state.c = std::get<1>(new_hc);
  }
  return head->forward(hidden_out) + x.narrow(2, x.size(2) - 1, 1);
}

RnnNetwork::RnnNetwork(const RnnConfig& config, std::uint64_t seed) : config_(config) {
  torch::manual_seed(seed);
  model_ = std::make_unique<Model>(Model{RnnModule(config, static_cast<std::int64_t>(rnn_input_size(config))), {}});
}

RnnNetwork::RnnNetwork(const RnnConfig& config, std::unique_ptr<Model> model)
    : config_(config), model_(std::move(model)) {}

RnnNetwork::~RnnNetwork() = default;

std::unique_ptr<RnnNetwork> RnnNetwork::clone() const {
  auto model = std::make_unique<Model>(Model{RnnModule(config_, static_cast<std::int64_t>(rnn_input_size(config_))), {}});
  torch::NoGradGuard no_grad;
  const auto from = model_->module->parameters();
  auto to = model->module->parameters();
  for (std::size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  return std::unique_ptr<RnnNetwork>(new RnnNetwork(config_, std::move(model)));
}

void RnnNetwork::step(std::span<const float> inputs, std::size_t chains, RnnState& state,
                      std::span<float> outputs) const {
  const auto n = static_cast<std::int64_t>(chains);
  const auto width = static_cast<std::int64_t>(rnn_input_size(config_));
  const std::size_t out_width = rnn_output_size(config_);
  if (inputs.size() != chains * width || outputs.size() != chains * out_width)
    throw std::invalid_argument("RnnNetwork::step: wrong input or output size");
  c10::InferenceMode inference;
  if (!state.tensors) state.tensors = std::make_unique<RnnState::Tensors>();
  const torch::Tensor x = torch::from_blob(const_cast<float*>(inputs.data()), {1, n, width});
  const torch::Tensor y = model_->module->forward(x, *state.tensors).contiguous();
  std::memcpy(outputs.data(), y.data_ptr<float>(), outputs.size() * sizeof(float));
}

RnnState RnnNetwork::warm_up(const RnnDataset& data, std::size_t first, std::size_t last) const {
  RnnState state;
  state.tensors = std::make_unique<RnnState::Tensors>();
  if (last <= first) return state;
  c10::InferenceMode inference;
  const torch::Tensor x = torch::from_blob(const_cast<float*>(data.x.data()),
                                           {static_cast<std::int64_t>(data.rows), static_cast<std::int64_t>(data.chains),
                                            static_cast<std::int64_t>(data.inputs)});
  model_->module->forward(x.narrow(0, static_cast<std::int64_t>(first), static_cast<std::int64_t>(last - first)),
                          *state.tensors);
  return state;
}

// --- Checkpoints ---------------------------------------------------------------

void RnnNetwork::save(const std::string& path, const CheckpointExtras& extras) const {
  torch::serialize::OutputArchive archive;
  torch::serialize::OutputArchive module_archive;
  model_->module->save(module_archive);
  archive.write("model", module_archive);
  if (model_->optimizer) {
    torch::serialize::OutputArchive optimizer_archive;
    model_->optimizer->save(optimizer_archive);
    archive.write("optimizer", optimizer_archive);
  }
  archive.write("config", numbers_tensor({config_.cell == RnnCell::gru ? 0.0 : 1.0, double(config_.hidden),
                                          double(config_.layers), double(config_.horizon),
                                          double(config_.period_slots), config_.step_seconds}));
  archive.write("quantiles", numbers_tensor(config_.quantiles));
  write_extras(archive, extras);
  try {
    archive.save_to(path);
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": cannot write the checkpoint (" + e.what_without_backtrace() + ")");
  }
}

std::unique_ptr<RnnNetwork> RnnNetwork::load(const std::string& path, CheckpointExtras& wanted) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
    torch::Tensor config_numbers, quantiles;
    archive.read("config", config_numbers);
    archive.read("quantiles", quantiles);
    const std::vector<double> c = tensor_numbers(config_numbers);
    if (c.size() != 6) throw std::runtime_error("config has " + std::to_string(c.size()) + " numbers, expected 6");
    RnnConfig config;
    config.cell = c[0] == 0 ? RnnCell::gru : RnnCell::lstm;
    config.hidden = static_cast<std::size_t>(c[1]);
    config.layers = static_cast<std::size_t>(c[2]);
    config.horizon = static_cast<std::size_t>(c[3]);
    config.period_slots = static_cast<std::size_t>(c[4]);
    config.step_seconds = c[5];
    config.quantiles = tensor_numbers(quantiles);

    auto model = std::make_unique<Model>(Model{RnnModule(config, static_cast<std::int64_t>(rnn_input_size(config))), {}});
    torch::serialize::InputArchive module_archive;
    archive.read("model", module_archive);
    model->module->load(module_archive);
    torch::serialize::InputArchive optimizer_archive;
    if (archive.try_read("optimizer", optimizer_archive)) {
      model->optimizer.emplace(model->module->parameters(), torch::optim::AdamOptions());
      model->optimizer->load(optimizer_archive);
    }
    read_extras(archive, wanted);
    return std::unique_ptr<RnnNetwork>(new RnnNetwork(config, std::move(model)));
  } catch (const c10::Error& e) {
    throw std::runtime_error(path + ": not a predictor checkpoint (" + e.what_without_backtrace() + ")");
  }
}

}  // namespace nfv

namespace nfv {

void set_torch_threads(int threads) { torch::set_num_threads(threads); }

}  // namespace nfv
