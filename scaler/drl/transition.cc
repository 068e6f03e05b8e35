#include "transition.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nfv {

TransitionLayout::TransitionLayout(std::vector<std::size_t> chain_begin, std::size_t pool_features,
                                   std::size_t global_features)
    : chain_begin_(std::move(chain_begin)), features_(pool_features), global_(global_features) {
  if (chain_begin_.size() < 2 || pool_features == 0 || chain_begin_.front() != 0)
    throw std::invalid_argument("transition layout: no chains or features");
  for (std::size_t c = 0; c + 1 < chain_begin_.size(); ++c) {
    if (chain_begin_[c + 1] < chain_begin_[c]) throw std::invalid_argument("transition layout: chains out of order");
    width_ = std::max(width_, chain_begin_[c + 1] - chain_begin_[c]);
  }
  if (width_ == 0) throw std::invalid_argument("transition layout: no pools");
  const std::size_t pools = chain_begin_.back();
  pool_ = pools * features_;
  action_ = pools * 2;
  global_at_ = pool_;
  action_at_ = global_at_ + global_;
  reward_at_ = action_at_ + action_;
  next_pool_at_ = reward_at_ + chains();
  next_global_ = next_pool_at_ + pool_;
}

void TransitionLayout::write(std::span<float> record, std::span<const float> pool, std::span<const float> global,
                             std::span<const float> action, std::span<const float> reward,
                             std::span<const float> next_pool, std::span<const float> next_global) const {
  if (record.size() != floats() || pool.size() != pool_ || global.size() != global_ || action.size() != action_ ||
      reward.size() != chains() || next_pool.size() != pool_ || next_global.size() != global_)
    throw std::invalid_argument("transition layout: a part of the wrong size");
  auto put = [&](std::span<const float> part, std::size_t at) {
    std::copy(part.begin(), part.end(), record.begin() + static_cast<std::ptrdiff_t>(at));
  };
  put(pool, 0);
  put(global, global_at_);
  put(action, action_at_);
  put(reward, reward_at_);
  put(next_pool, next_pool_at_);
  put(next_global, next_global_);
}

void TransitionLayout::gather(const ReplayBuffer& buffer, const ReplaySample& sample, TransitionBatch& batch) const {
  if (buffer.record_floats() != floats() || buffer.items_per_record() != chains())
    throw std::invalid_argument("transition layout: a buffer of other records");
  const std::size_t n = sample.index.size(), W = width_, F = features_, G = global_;
  batch.samples = n;
  batch.width = W;
  batch.pool.assign(n * W * F, 0.0F);
  batch.next_pool.assign(n * W * F, 0.0F);
  batch.action.assign(n * W * 2, 0.0F);
  batch.mask.assign(n * W, 0.0F);
  batch.global.resize(n * G);
  batch.next_global.resize(n * G);
  batch.reward.resize(n);
  batch.weight.assign(sample.weight.begin(), sample.weight.end());
  batch.chain.resize(n);
  batch.actor_weight.clear();
  for (std::size_t b = 0; b < n; ++b) {
    const std::size_t chain = sample.index[b] % chains();
    batch.chain[b] = chain;
    const std::span<const float> r = buffer.record(sample.index[b] / chains());
    const std::size_t first = chain_begin_[chain], count = chain_begin_[chain + 1] - first;
    auto take = [&](std::size_t at, std::size_t size, std::vector<float>& out, std::size_t out_at) {
      std::copy_n(r.begin() + static_cast<std::ptrdiff_t>(at), size, out.begin() + static_cast<std::ptrdiff_t>(out_at));
    };
    take(first * F, count * F, batch.pool, b * W * F);
    take(next_pool_at_ + first * F, count * F, batch.next_pool, b * W * F);
    take(action_at_ + first * 2, count * 2, batch.action, b * W * 2);
    std::fill_n(batch.mask.begin() + static_cast<std::ptrdiff_t>(b * W), count, 1.0F);
    take(global_at_, G, batch.global, b * G);
    take(next_global_, G, batch.next_global, b * G);
    batch.reward[b] = r[reward_at_ + chain];
  }
}

}  // namespace nfv
