// A token bucket that enforces an instance's service rate: an instance may
// process a packet only with a token; tokens refill at the rate. Rate 0
// means unlimited. Owned and used by one worker: no atomics.
//
// An idle instance keeps at most a depth of 1 ms of work (at least one
// burst), so it cannot save up capacity. A backlogged one (packets left in
// its queue after it used its tokens) earns tokens for all the time it stays
// backlogged, as a server of that rate works without pause while it has a
// queue: when the host takes the worker's core away for a few milliseconds,
// the emulated instance still serves rate x that time once the worker is
// back, instead of losing it. The surplus lasts only until the queue empties.
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
    tokens_ += static_cast<double>(now_tsc - last_tsc_) * rate_per_tsc_;
    if (!backlogged_) tokens_ = std::min(depth_, tokens_);
    last_tsc_ = now_tsc;
    return std::min<uint32_t>(wanted, static_cast<uint32_t>(tokens_));
  }

  // `left_waiting`: packets still queued after these were taken (once the
  // queue is empty, the next available() cuts a surplus back to the depth).
  void consume(uint32_t packets, bool left_waiting) {
    if (unlimited()) return;
    tokens_ -= packets;
    backlogged_ = left_waiting;
  }

 private:
  double rate_per_tsc_ = 0;
  double depth_ = 0;
  double tokens_ = 0;
  uint64_t last_tsc_ = 0;
  bool backlogged_ = false;
};

}  // namespace nfv
