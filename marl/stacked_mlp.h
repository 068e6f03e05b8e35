// N ReLU MLPs of one shape, one per agent, whose parameters live in one
// [N, P] tensor (row i = agent i's weights and biases, layer by layer):
// gossip is W @ parameters, the ball projection works on rows, and a
// forward pass on [N, B, in] is one baddbmm per layer for all agents.
// The looped layout keeps N separate [1, P] tensors and runs them one after
// another: the same math, for measuring what stacking buys.
// Included only by the module's LibTorch sources and tests.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "marl_settings.h"

namespace nfv {

struct MlpShape {
  std::int64_t inputs = 0, width = 0, depth = 0, outputs = 0;  // depth: hidden ReLU layers
  std::int64_t layers() const { return depth + 1; }
  std::int64_t layer_inputs(std::int64_t layer) const { return layer == 0 ? inputs : width; }
  std::int64_t layer_outputs(std::int64_t layer) const { return layer == depth ? outputs : width; }
  std::int64_t parameters() const;  // per agent
};

class StackedMlp {
 public:
  // Zero parameters; initialize() draws them. Throws std::invalid_argument for an empty shape.
  StackedMlp(std::int64_t agents, MlpShape shape, NetworkLayout layout, torch::Device device);

  // Agent a's parameters from a generator seeded with seeds[a], as
  // torch.nn.Linear draws them (uniform within +-1/sqrt(fan_in)); the last
  // layer is scaled by `last_layer_scale` (small: a policy starts near uniform).
  void initialize(const std::vector<std::uint64_t>& seeds, double last_layer_scale = 1.0);

  // [N, B, inputs] -> [N, B, outputs]; agent i's rows go through agent i's network.
  torch::Tensor forward(const torch::Tensor& x) const;

  // Every agent's parameters, [N, P] (a copy), and setting them back.
  torch::Tensor parameters() const;
  void set_parameters(const torch::Tensor& flat);
  // d(loss)/d(parameters) of the last backward(), [N, P] (zeros before any).
  torch::Tensor gradient() const;
  void zero_grad();
  // The stacked layout's [N, P] leaf itself, to differentiate with respect
  // to (static_update.h). Throws std::logic_error for the looped layout.
  const torch::Tensor& stacked() const;

  // Agent a's layer as torch.nn.Linear would hold it transposed: weight [in, out], bias [out].
  torch::Tensor weight(std::int64_t agent, std::int64_t layer) const;
  torch::Tensor bias(std::int64_t agent, std::int64_t layer) const;

  std::int64_t agents() const { return agents_; }
  const MlpShape& shape() const { return shape_; }

 private:
  // Agent a's row: which tensor holds it, and where.
  torch::Tensor row(std::int64_t agent) const;
  std::int64_t agents_;
  MlpShape shape_;
  NetworkLayout layout_;
  std::vector<torch::Tensor> flats_;  // stacked: one [N, P]; looped: N of [1, P]
};

}  // namespace nfv
