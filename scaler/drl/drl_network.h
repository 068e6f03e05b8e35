// The DRL agent's networks (LibTorch), shared across chains and pools so
// that one set of weights runs on any topology and chain set (deep sets):
// one sample is one chain, its candidate pools as rows padded to a common
// width with a mask. A per-pool encoder reads the pool's features and the
// global ones; a masked mean over the chain's pools gives the chain's
// context; the actor's head gives each pool its two actions from its own
// code and the chain's, the critic's head the chain's Q from the context.
// Chains see each other only through the features (site room, load).
// Included only by the agent's own sources.
#pragma once

#include <cstdint>

#include <torch/torch.h>

namespace nfv {

struct DrlActorImpl : torch::nn::Module {
  DrlActorImpl(std::int64_t pool_features, std::int64_t global_features, std::int64_t hidden);
  // pool [N, M, F], global [N, G], mask [N, M] (1 = a pool) -> actions [N, M, 2] in [-1, 1].
  torch::Tensor forward(const torch::Tensor& pool, const torch::Tensor& global, const torch::Tensor& mask);
  torch::nn::Linear enc1{nullptr}, enc2{nullptr}, head1{nullptr}, head2{nullptr};
};
TORCH_MODULE(DrlActor);

struct DrlCriticImpl : torch::nn::Module {
  DrlCriticImpl(std::int64_t pool_features, std::int64_t global_features, std::int64_t hidden);
  // pool [N, M, F], global [N, G], actions [N, M, 2], mask [N, M] -> Q per chain [N].
  torch::Tensor forward(const torch::Tensor& pool, const torch::Tensor& global, const torch::Tensor& actions,
                        const torch::Tensor& mask);
  torch::nn::Linear enc1{nullptr}, enc2{nullptr}, head1{nullptr}, head2{nullptr};
};
TORCH_MODULE(DrlCritic);

}  // namespace nfv
