// One slot's transition of the DRL agent as a flat float record for the
// replay buffer, and batches of chain samples as the agent trains on them.
// A record holds the whole system's slot:
//   [pool rows (P x F) | global (G) | actions (P x 2) | reward per chain (C) |
//    next pool rows | next global]
// and each chain of it is one replay item: a sample is one chain's pools
// (padded to the widest chain, with a mask), the global features, its
// actions and its own reward. Episodes end only because the run cuts them
// (the system goes on), so every transition bootstraps from the next state:
// there is no done flag.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "replay_buffer.h"

namespace nfv {

struct TransitionBatch {
  std::size_t samples = 0;  // chains drawn
  std::size_t width = 0;    // pool rows per sample (padded)
  std::vector<float> pool, mask, global, action, reward, next_pool, next_global;  // [samples x width x ...]
  std::vector<float> weight;  // importance weights, one per sample
  std::vector<std::size_t> chain;  // each sample's chain
  // Each sample's weight in the actor's objective (empty: all 1). Rewards
  // come in units of the chain's size; weighing values back by it makes
  // the actor minimise the system's cost, not favour the many small chains.
  std::vector<float> actor_weight;
};

class TransitionLayout {
 public:
  // `chain_begin`: per chain + 1, where its pools begin (DrlLayout::chain_begin).
  TransitionLayout(std::vector<std::size_t> chain_begin, std::size_t pool_features, std::size_t global_features);
  std::size_t floats() const { return next_global_ + global_; }
  std::size_t chains() const { return chain_begin_.size() - 1; }
  std::size_t width() const { return width_; }

  // Writes one record; every span of its part's size (else std::invalid_argument).
  void write(std::span<float> record, std::span<const float> pool, std::span<const float> global,
             std::span<const float> action, std::span<const float> reward, std::span<const float> next_pool,
             std::span<const float> next_global) const;
  // The chains `sample` drew (items of a buffer with chains() items per record), with their weights.
  void gather(const ReplayBuffer& buffer, const ReplaySample& sample, TransitionBatch& batch) const;

 private:
  std::vector<std::size_t> chain_begin_;
  std::size_t features_, global_, width_ = 0;
  std::size_t pool_, action_;
  std::size_t global_at_, action_at_, reward_at_, next_pool_at_, next_global_;
};

}  // namespace nfv
