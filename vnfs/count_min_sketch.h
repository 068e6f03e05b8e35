// Count-min sketch (Cormode & Muthukrishnan): `depth` rows of `width`
// counters; an estimate is the minimum over rows, never below the true count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nfv {

class CountMinSketch {
 public:
  void init(uint32_t width, uint32_t depth) {
    width_ = width;
    depth_ = depth;
    counters_.assign(static_cast<size_t>(width) * depth, 0);
  }

  // Adds `amount` for the item hashed to `hash` and returns its new estimate.
  uint64_t add(uint32_t hash, uint64_t amount) {
    // Row r's column from one 64-bit mix, by double hashing (a + r * b) and
    // multiply-shift (no division). Rows must not agree on collisions, or
    // the minimum over them is one row's count: a CRC re-seeded per row
    // did agree (CRC is affine in its seed).
    const uint64_t mixed = mix(hash);
    const auto a = static_cast<uint32_t>(mixed), b = static_cast<uint32_t>(mixed >> 32) | 1u;
    uint64_t estimate = UINT64_MAX;
    for (uint32_t row = 0; row < depth_; ++row) {
      const uint64_t column = (static_cast<uint64_t>(a + row * b) * width_) >> 32;
      uint64_t& c = counters_[row * static_cast<size_t>(width_) + column];
      c += amount;
      estimate = std::min(estimate, c);
    }
    return estimate;
  }

 private:
  // splitmix64's finalizer: every input bit reaches every output bit.
  static uint64_t mix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }

  uint32_t width_ = 0;
  uint32_t depth_ = 0;
  std::vector<uint64_t> counters_;
};

}  // namespace nfv
