// Converts TSC readings to wall-clock nanoseconds (CLOCK_REALTIME), so that
// ingress timestamps mean the same in every pod of a host and survive the
// trip between pods in the NSH context.
#pragma once

#include <cstdint>
#include <ctime>

#include <rte_cycles.h>

namespace nfv {

class WallClock {
 public:
  WallClock() : hz_(rte_get_tsc_hz()), base_tsc_(rte_rdtsc()) {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    base_ns_ = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
    ns_per_tsc_ = 1e9 / static_cast<double>(hz_);
  }

  uint64_t hz() const { return hz_; }
  uint64_t to_ns(uint64_t tsc) const {
    return base_ns_ + static_cast<uint64_t>(static_cast<double>(tsc - base_tsc_) * ns_per_tsc_);
  }
  uint64_t ns_to_tsc(uint64_t ns) const { return static_cast<uint64_t>(static_cast<double>(ns) / ns_per_tsc_); }

 private:
  uint64_t hz_;
  uint64_t base_tsc_;
  uint64_t base_ns_;
  double ns_per_tsc_;
};

}  // namespace nfv
