// The LibTorch model behind a plain C++ face, so that only rnn_network.cc
// and rnn_training.cc include <torch/torch.h> (slow to compile) and the
// rest of the predictor stays ordinary C++.
//
// One GRU or LSTM, shared by all chains (a chain is a batch row), reads
// rnn_inputs.h's features slot by slot; a linear head maps its hidden state
// to every step ahead, as a correction in u = log1p(rate / scale) of the
// chain's EWMA level (a zero head is the EWMA baseline), for the point
// forecast and each quantile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint_extras.h"

#include "rnn_predictor.h"
#include "rnn_inputs.h"

namespace nfv {

// The recurrent state of a batch of chains (opaque: tensors inside).
class RnnState {
 public:
  RnnState();
  ~RnnState();
  RnnState(RnnState&&) noexcept;
  RnnState& operator=(RnnState&&) noexcept;
  struct Tensors;
  std::unique_ptr<Tensors> tensors;  // empty = zeros
};


class RnnNetwork {
 public:
  // Fresh weights, deterministic for `seed`.
  RnnNetwork(const RnnConfig& config, std::uint64_t seed);
  ~RnnNetwork();
  // The same weights in a separate model (no optimizer state).
  std::unique_ptr<RnnNetwork> clone() const;
  const RnnConfig& config() const { return config_; }

  // One slot of `chains` chains: inputs [chain][rnn_input_size], outputs
  // [chain][rnn_output_size] in z (step-major per head: head * horizon + step).
  // No gradient, no allocation beyond LibTorch's own.
  void step(std::span<const float> inputs, std::size_t chains, RnnState& state, std::span<float> outputs) const;
  // The state after reading rows [first, last) of `data` from zeros.
  RnnState warm_up(const RnnDataset& data, std::size_t first, std::size_t last) const;

  // Trains on rows [data.first_row, train_end) (rnn_training.cc). With
  // validate, rows from train_end on validate and the best epoch is kept;
  // without, every epoch runs and the last weights stay.
  TrainReport train(const RnnDataset& data, std::size_t train_end, const RnnTrainSettings& settings, bool validate,
                    const TrainProgress& progress);

  void save(const std::string& path, const CheckpointExtras& extras) const;
  // Reads the extras whose keys `wanted` lists (text and number keys).
  static std::unique_ptr<RnnNetwork> load(const std::string& path, CheckpointExtras& wanted);

  struct Model;  // the torch module and its optimizer

 private:
  RnnNetwork(const RnnConfig& config, std::unique_ptr<Model> model);
  RnnConfig config_;
  std::unique_ptr<Model> model_;
};

}  // namespace nfv
