// The torch side of RnnNetwork, shared by rnn_network.cc and
// rnn_training.cc only (they are the two files that include LibTorch).
#pragma once

#include <optional>

#include <torch/torch.h>

#include "rnn_network.h"

namespace nfv {

struct RnnState::Tensors {
  torch::Tensor h;
  torch::Tensor c;  // LSTM only
};

struct RnnModuleImpl : torch::nn::Module {
  RnnModuleImpl(const RnnConfig& config, std::int64_t inputs);
  // x [slots, chains, inputs] -> [slots, chains, outputs]; `state` is read
  // (empty = zeros) and replaced by the state after the last slot.
  torch::Tensor forward(const torch::Tensor& x, RnnState::Tensors& state);

  RnnCell cell;
  std::int64_t horizon;
  std::int64_t heads;
  torch::nn::GRU gru{nullptr};
  torch::nn::LSTM lstm{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(RnnModule);

struct RnnNetwork::Model {
  RnnModule module;
  std::optional<torch::optim::Adam> optimizer;  // after training or from a checkpoint
};

}  // namespace nfv
