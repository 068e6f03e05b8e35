// Draws an index with fixed weights in constant time (Walker's alias
// method): the generator picks a flow by Zipf popularity and a packet size
// from the mix for every packet, without a search or a division.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace nfv {

// xorshift64*: 64 random bits in a few cycles, deterministic for a seed.
class FastRandom {
 public:
  explicit FastRandom(uint64_t seed) : state_(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }

 private:
  uint64_t state_;
};

class AliasTable {
 public:
  AliasTable() = default;
  // Weights need not sum to 1; at least one must be positive.
  explicit AliasTable(const std::vector<double>& weights);

  // `random`: 64 uniform bits. The high half picks a column, the low half
  // decides between the column and its alias.
  uint32_t pick(uint64_t random) const {
    const uint32_t column = static_cast<uint32_t>(((random >> 32) * size_) >> 32);
    return static_cast<uint32_t>(random) < threshold_[column] ? column : alias_[column];
  }
  uint32_t size() const { return static_cast<uint32_t>(size_); }

 private:
  uint64_t size_ = 0;
  std::vector<uint32_t> threshold_;  // keep the column when the coin is below this (of 2^32)
  std::vector<uint32_t> alias_;
};

// Zipf popularity of n flows: weight of rank k (1-based) = 1 / k^exponent.
std::vector<double> zipf_weights(uint32_t flows, double exponent);

}  // namespace nfv
