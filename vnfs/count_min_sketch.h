// Count-min sketch (Cormode & Muthukrishnan): `depth` rows of `width`
// counters; an estimate is the minimum over rows, never below the true count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nfv {

class CountMinSketch {
 public:
  static constexpr uint32_t kMaxDepth = 16;

  // `depth` is cut to kMaxDepth.
  void init(uint32_t width, uint32_t depth) {
    width_ = std::max<uint32_t>(width, 1);
    depth_ = std::min(depth, kMaxDepth);
    for (uint32_t row = 0; row < kMaxDepth; ++row) multipliers_[row] = mix(row + 1) | 1u;
    counters_.assign(static_cast<size_t>(width_) * depth_, 0);
  }

  // Adds `amount` for the item hashed to `hash` and returns its new estimate.
  uint64_t add(uint32_t hash, uint64_t amount) {
    const uint64_t mixed = mix(hash);
    uint64_t estimate = UINT64_MAX;
    for (uint32_t row = 0; row < depth_; ++row) {
      uint64_t& c = counters_[cell(mixed, row)];
      c += amount;
      estimate = std::min(estimate, c);
    }
    return estimate;
  }

  // The item's estimate: the least of its counters.
  uint64_t estimate(uint32_t hash) const {
    const uint64_t mixed = mix(hash);
    uint64_t least = UINT64_MAX;
    for (uint32_t row = 0; row < depth_; ++row)
      least = std::min(least, counters_[cell(mixed, row)]);
    return least;
  }

  // The item's column in `row` (< width; any row below kMaxDepth).
  uint32_t column(uint32_t hash, uint32_t row) const { return column_of(mix(hash), row); }

 private:
  // Each row multiplies the item's mix by its own odd constant and keeps
  // the top 32 bits (multiply-shift hashing), then scales them to the
  // width (no division). Rows must not agree on collisions, or the
  // minimum over them is one row's count: a CRC re-seeded per row did
  // agree (CRC is affine in its seed).
  uint32_t column_of(uint64_t mixed, uint32_t row) const {
    const uint64_t h = (mixed * multipliers_[row]) >> 32;
    return static_cast<uint32_t>((h * width_) >> 32);
  }

  // The item's counter in `row`, as an index into counters_.
  size_t cell(uint64_t mixed, uint32_t row) const { return row * static_cast<size_t>(width_) + column_of(mixed, row); }

  // splitmix64's finalizer: every input bit reaches every output bit.
  static uint64_t mix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }

  uint32_t width_ = 1;
  uint32_t depth_ = 0;
  uint64_t multipliers_[kMaxDepth] = {};
  std::vector<uint64_t> counters_;
};

}  // namespace nfv
