// A log-linear latency histogram (16 sub-buckets per power of two, so a
// reported percentile is within about 6% of the true value). Fixed size,
// written by one worker, merged and read by the control thread.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace nfv {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 4;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kMaxExponent = 47;  // ~39 hours in ns
  static constexpr int kBuckets = (kMaxExponent - kSubBits + 2) * kSub;

  void record(uint64_t ns) {
    counts_[bucket_of(ns)]++;
    total_++;
  }

  // Records n samples of the same value (one counter update for all: n
  // increments of one counter would each wait for the previous one's store).
  void record_n(uint64_t ns, uint64_t n) {
    counts_[bucket_of(ns)] += n;
    total_ += n;
  }

  void merge(const LatencyHistogram& other) {
    for (int i = 0; i < kBuckets; ++i) counts_[i] += __atomic_load_n(&other.counts_[i], __ATOMIC_RELAXED);
    total_ += __atomic_load_n(&other.total_, __ATOMIC_RELAXED);
  }

  uint64_t count() const { return total_; }
  uint64_t bucket_count(int index) const { return counts_[index]; }

  // The value below which a fraction q (0..1) of the samples lie, in ns.
  uint64_t percentile(double q) const {
    if (total_ == 0) return 0;
    const uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(total_ - 1)) + 1;
    uint64_t seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= rank) return bucket_middle(i);
    }
    return bucket_middle(kBuckets - 1);
  }

  static int bucket_of(uint64_t ns) {
    if (ns < kSub) return static_cast<int>(ns);
    int exponent = 63 - std::countl_zero(ns);
    if (exponent > kMaxExponent) return kBuckets - 1;
    const int shift = exponent - kSubBits;
    return (shift + 1) * kSub + static_cast<int>((ns >> shift) & (kSub - 1));
  }

  static uint64_t bucket_middle(int index) {
    if (index < kSub) return static_cast<uint64_t>(index);
    const int shift = index / kSub - 1;
    const uint64_t low = (static_cast<uint64_t>(kSub + index % kSub)) << shift;
    return low + ((1ull << shift) >> 1);
  }

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
};

}  // namespace nfv
