#include "gossip.h"

#include <stdexcept>
#include <vector>

namespace nfv {

Gossip::Gossip(const MixingMatrix& matrix, torch::Device device) : device_(device) { set_matrix(matrix); }

void Gossip::set_matrix(const MixingMatrix& matrix) {
  const auto n = static_cast<std::int64_t>(matrix.agents());
  std::vector<float> w(matrix.weights().begin(), matrix.weights().end());
  weights_ = torch::from_blob(w.data(), {n, n}, torch::kFloat32).clone().to(device_);
  messages_per_round_ = matrix.messages_per_round();
}

torch::Tensor Gossip::mix(const torch::Tensor& values, std::size_t rounds) {
  if (values.size(0) != weights_.size(0))
    throw std::invalid_argument("gossip: " + std::to_string(values.size(0)) + " rows for " + std::to_string(weights_.size(0)) + " agents");
  if (rounds == 0) return values;
  torch::NoGradGuard no_grad;
  torch::Tensor x = values.reshape({values.size(0), -1});
  for (std::size_t r = 0; r < rounds; ++r) x = weights_.mm(x);
  traffic_.rounds += rounds;
  traffic_.messages += rounds * messages_per_round_;
  traffic_.bytes += rounds * messages_per_round_ * static_cast<std::uint64_t>(x.size(1)) * sizeof(float);
  return x.reshape(values.sizes());
}

}  // namespace nfv
