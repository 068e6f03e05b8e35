// A token bucket that enforces an instance's service rate: an instance may
// process a packet only with a token; tokens refill at the rate, up to a
// depth of 1 ms of work (at least one burst). Rate 0 means unlimited.
// Owned and used by one worker: no atomics.
#pragma once

#include <algorithm>
#include <cstdint>

namespace nfv {

class TokenBucket {
 public:
  TokenBucket() = default;
  TokenBucket(double rate_pps, uint64_t tsc_hz, uint32_t min_depth)
      : rate_per_tsc_(rate_pps / static_cast<double>(tsc_hz)),
        depth_(std::max(static_cast<double>(min_depth), rate_pps / 1000.0)),
        tokens_(depth_) {}

  bool unlimited() const { return rate_per_tsc_ <= 0; }

  // How many packets may be processed now (at most `wanted`).
  uint32_t available(uint64_t now_tsc, uint32_t wanted) {
    if (unlimited()) return wanted;
    if (last_tsc_ == 0) last_tsc_ = now_tsc;
    tokens_ = std::min(depth_, tokens_ + static_cast<double>(now_tsc - last_tsc_) * rate_per_tsc_);
    last_tsc_ = now_tsc;
    return std::min<uint32_t>(wanted, static_cast<uint32_t>(tokens_));
  }

  void consume(uint32_t packets) {
    if (!unlimited()) tokens_ -= packets;
  }

 private:
  double rate_per_tsc_ = 0;
  double depth_ = 0;
  double tokens_ = 0;
  uint64_t last_tsc_ = 0;
};

}  // namespace nfv
