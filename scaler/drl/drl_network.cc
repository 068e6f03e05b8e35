#include "drl_network.h"

namespace nfv {

namespace {

// The pool's features next to the global ones: [N, M, F + G].
torch::Tensor with_global(const torch::Tensor& pool, const torch::Tensor& global) {
  return torch::cat({pool, global.unsqueeze(1).expand({pool.size(0), pool.size(1), global.size(1)})}, -1);
}

// The mean of h [N, M, d] over the rows the mask keeps: [N, d].
torch::Tensor masked_mean(const torch::Tensor& h, const torch::Tensor& mask) {
  const torch::Tensor m = mask.unsqueeze(-1);
  return (h * m).sum(1) / m.sum(1).clamp_min(1.0);
}

// A last layer that starts near zero: the first actions sit at the
// forecast's need with an even split, the first values near zero.
void start_small(torch::nn::Linear& layer) {
  torch::NoGradGuard no_grad;
  layer->weight.uniform_(-3e-3, 3e-3);
  layer->bias.uniform_(-3e-3, 3e-3);
}

}  // namespace

DrlActorImpl::DrlActorImpl(std::int64_t pool_features, std::int64_t global_features, std::int64_t hidden) {
  enc1 = register_module("enc1", torch::nn::Linear(pool_features + global_features, hidden));
  enc2 = register_module("enc2", torch::nn::Linear(hidden, hidden));
  head1 = register_module("head1", torch::nn::Linear(2 * hidden, hidden));
  head2 = register_module("head2", torch::nn::Linear(hidden, 2));
  start_small(head2);
}

torch::Tensor DrlActorImpl::forward(const torch::Tensor& pool, const torch::Tensor& global, const torch::Tensor& mask) {
  const torch::Tensor h = torch::relu(enc2(torch::relu(enc1(with_global(pool, global)))));
  const torch::Tensor chain = masked_mean(h, mask).unsqueeze(1).expand_as(h);
  return torch::tanh(head2(torch::relu(head1(torch::cat({h, chain}, -1)))));
}

DrlCriticImpl::DrlCriticImpl(std::int64_t pool_features, std::int64_t global_features, std::int64_t hidden) {
  enc1 = register_module("enc1", torch::nn::Linear(pool_features + 2 + global_features, hidden));
  enc2 = register_module("enc2", torch::nn::Linear(hidden, hidden));
  head1 = register_module("head1", torch::nn::Linear(hidden, hidden));
  head2 = register_module("head2", torch::nn::Linear(hidden, 1));
  start_small(head2);
}

torch::Tensor DrlCriticImpl::forward(const torch::Tensor& pool, const torch::Tensor& global, const torch::Tensor& actions,
                                     const torch::Tensor& mask) {
  const torch::Tensor h = torch::relu(enc2(torch::relu(enc1(with_global(torch::cat({pool, actions}, -1), global)))));
  return head2(torch::relu(head1(masked_mean(h, mask)))).squeeze(-1);
}

}  // namespace nfv
