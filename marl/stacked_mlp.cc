#include "stacked_mlp.h"

#include <cmath>
#include <random>
#include <stdexcept>

namespace nfv {

namespace {

// One agent-stacked network: flat [n, P], x [n, B, in] -> [n, B, out].
torch::Tensor run_layers(const torch::Tensor& flat, const MlpShape& shape, const torch::Tensor& x) {
  const std::int64_t n = flat.size(0);
  torch::Tensor h = x;
  std::int64_t at = 0;
  for (std::int64_t l = 0; l < shape.layers(); ++l) {
    const std::int64_t in = shape.layer_inputs(l), out = shape.layer_outputs(l);
    const torch::Tensor w = flat.narrow(1, at, in * out).view({n, in, out});
    const torch::Tensor b = flat.narrow(1, at + in * out, out).view({n, 1, out});
    at += in * out + out;
    h = torch::baddbmm(b, h, w);
    if (l + 1 < shape.layers()) h = torch::relu(h);
  }
  return h;
}

// Where layer `layer`'s weights start in an agent's row.
std::int64_t layer_offset(const MlpShape& shape, std::int64_t layer) {
  std::int64_t at = 0;
  for (std::int64_t l = 0; l < layer; ++l) at += (shape.layer_inputs(l) + 1) * shape.layer_outputs(l);
  return at;
}

}  // namespace

std::int64_t MlpShape::parameters() const { return layer_offset(*this, layers()); }

StackedMlp::StackedMlp(std::int64_t agents, MlpShape shape, NetworkLayout layout, torch::Device device)
    : agents_(agents), shape_(shape), layout_(layout) {
  if (agents < 1 || shape.inputs < 1 || shape.width < 1 || shape.depth < 0 || shape.outputs < 1)
    throw std::invalid_argument("stacked MLP: agents, inputs, width and outputs must be >= 1");
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  const std::int64_t tensors = layout == NetworkLayout::stacked ? 1 : agents;
  for (std::int64_t t = 0; t < tensors; ++t)
    flats_.push_back(torch::zeros({agents / tensors, shape.parameters()}, options).requires_grad_(true));
}

void StackedMlp::initialize(const std::vector<std::uint64_t>& seeds, double last_layer_scale) {
  if (seeds.size() != static_cast<std::size_t>(agents_)) throw std::invalid_argument("stacked MLP: one seed per agent");
  const std::int64_t p = shape_.parameters();
  std::vector<float> values(static_cast<std::size_t>(agents_ * p));
  for (std::int64_t a = 0; a < agents_; ++a) {
    // Bits to [0, 1) by hand: the same numbers from any standard library.
    std::mt19937_64 bits(seeds[static_cast<std::size_t>(a)]);
    float* row_values = values.data() + a * p;
    for (std::int64_t l = 0; l < shape_.layers(); ++l) {
      const double bound = 1.0 / std::sqrt(static_cast<double>(shape_.layer_inputs(l))) *
                           (l + 1 == shape_.layers() ? last_layer_scale : 1.0);
      const std::int64_t begin = layer_offset(shape_, l), end = layer_offset(shape_, l + 1);
      for (std::int64_t k = begin; k < end; ++k) {
        const double unit = static_cast<double>(bits() >> 40) / static_cast<double>(1ULL << 24);
        row_values[k] = static_cast<float>(bound * (2 * unit - 1));
      }
    }
  }
  set_parameters(torch::from_blob(values.data(), {agents_, p}, torch::kFloat32));
}

torch::Tensor StackedMlp::forward(const torch::Tensor& x) const {
  if (layout_ == NetworkLayout::stacked) return run_layers(flats_[0], shape_, x);
  std::vector<torch::Tensor> outputs;
  for (std::int64_t a = 0; a < agents_; ++a) outputs.push_back(run_layers(flats_[static_cast<std::size_t>(a)], shape_, x.narrow(0, a, 1)));
  return torch::cat(outputs, 0);
}

torch::Tensor StackedMlp::parameters() const { return torch::cat(flats_, 0).detach().clone(); }

void StackedMlp::set_parameters(const torch::Tensor& flat) {
  torch::NoGradGuard no_grad;
  const torch::Tensor source = flat.to(flats_[0].device());
  std::int64_t at = 0;
  for (torch::Tensor& t : flats_) {
    t.copy_(source.narrow(0, at, t.size(0)));
    at += t.size(0);
  }
}

torch::Tensor StackedMlp::gradient() const {
  std::vector<torch::Tensor> parts;
  for (const torch::Tensor& t : flats_) parts.push_back(t.grad().defined() ? t.grad() : torch::zeros_like(t));
  return torch::cat(parts, 0);
}

void StackedMlp::zero_grad() {
  for (torch::Tensor& t : flats_)
    if (t.grad().defined()) t.mutable_grad().zero_();
}

const torch::Tensor& StackedMlp::stacked() const {
  if (layout_ != NetworkLayout::stacked) throw std::logic_error("stacked MLP: the looped layout has no single parameter tensor");
  return flats_[0];
}

torch::Tensor StackedMlp::row(std::int64_t agent) const {
  if (layout_ == NetworkLayout::stacked) return flats_[0][agent];
  return flats_[static_cast<std::size_t>(agent)][0];
}

torch::Tensor StackedMlp::weight(std::int64_t agent, std::int64_t layer) const {
  const std::int64_t in = shape_.layer_inputs(layer), out = shape_.layer_outputs(layer);
  return row(agent).detach().narrow(0, layer_offset(shape_, layer), in * out).view({in, out});
}

torch::Tensor StackedMlp::bias(std::int64_t agent, std::int64_t layer) const {
  const std::int64_t in = shape_.layer_inputs(layer), out = shape_.layer_outputs(layer);
  return row(agent).detach().narrow(0, layer_offset(shape_, layer) + in * out, out);
}

}  // namespace nfv
