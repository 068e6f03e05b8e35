// Count-min sketch (Cormode & Muthukrishnan): `depth` rows of `width`
// counters; an estimate is the minimum over rows, never below the true count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <rte_hash_crc.h>

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
    uint64_t estimate = UINT64_MAX;
    for (uint32_t row = 0; row < depth_; ++row) {
      // Independent-enough row hashes: re-mix the flow hash with the row as seed.
      uint64_t& c = counters_[row * static_cast<size_t>(width_) + rte_hash_crc_4byte(hash, row * 0x9e3779b9u + 1) % width_];
      c += amount;
      estimate = std::min(estimate, c);
    }
    return estimate;
  }

 private:
  uint32_t width_ = 0;
  uint32_t depth_ = 0;
  std::vector<uint64_t> counters_;
};

}  // namespace nfv
