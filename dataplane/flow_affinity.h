// Pins flows to instances of a stateful pool: a flow keeps the instance it
// started on while the pool scales (an active or draining instance), and only
// new flows follow the pool's Maglev table. One table per worker and pool,
// so the fast path takes no locks; idle flows expire by a paced sweep.
//
// The key is the flow hash itself (Maglev picks by it, so two flows with the
// same hash go to the same instance anyway and may share a pin). The table is
// open-addressed in cache-line buckets of four pins: a burst prefetches its
// home buckets first, and a pinned flow costs one cache line, no hashing and
// no key comparison beyond the 32-bit hash.
//
// While the pool runs a single instance every flow goes to it, and pins would
// only prepare for a scale-out. Then a flow costs one bit instead: its hash
// marks a "seen" bitmap (a store, no lookup). When a second instance
// appears, a flow with no pin whose bit is set is pinned to the instance that
// ran alone, for one idle timeout after the change (a flow idle for longer
// would have lost its pin anyway). A hash that shares a bit with one of
// those flows stays there too: that only weighs on the balance, never on
// correctness.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "instance_pool.h"

namespace nfv {

class FlowAffinity {
 public:
  // `capacity` pins (rounded up to a power of two); idle timeouts above about
  // ten days are treated as ten days.
  FlowAffinity(const std::string& name, uint32_t capacity, uint64_t idle_timeout_tsc, int socket_id);
  ~FlowAffinity();
  FlowAffinity(const FlowAffinity&) = delete;
  FlowAffinity& operator=(const FlowAffinity&) = delete;

  // The slot for each of a burst's flow hashes: the pinned one while it still
  // serves the pool, else a fresh pick from the Maglev table (then pinned).
  // `unheld`, if given, gets bit i for a flow the full table could not pin.
  void slots_for(const uint32_t* flow_hashes, uint16_t n, const PoolView& view, uint64_t now_tsc, uint16_t* slots,
                 uint64_t* unheld = nullptr);

  // The pool runs one instance, in slot 0 (slots_in_use 1): all of a burst
  // goes there; its flows are remembered for when the pool grows.
  void note_single(const uint32_t* flow_hashes, uint16_t n, const PoolView& view);

  // Forgets flows idle for longer than the timeout. The sweep is paced by
  // time: it covers the table four times per timeout, so a call costs in
  // proportion to the time since the last one and an idle flow is forgotten
  // at most 1.25 timeouts after its last packet.
  void expire_due(uint64_t now_tsc);

  // Read by the control thread.
  uint32_t flows_on(int slot) const { return __atomic_load_n(&flows_[slot], __ATOMIC_RELAXED); }
  uint64_t moved() const { return __atomic_load_n(&moved_, __ATOMIC_RELAXED); }
  uint64_t table_full() const { return __atomic_load_n(&table_full_, __ATOMIC_RELAXED); }

 private:
  struct Pin {
    uint32_t flow_hash;
    uint32_t generation;  // of the slot when pinned: a reused slot is another instance
    uint32_t last_seen;   // coarse TSC (kTimeShift)
    uint16_t slot;
    uint16_t in_use;
  };
  static constexpr int kPinsPerBucket = 4;
  struct alignas(64) Bucket {
    Pin pins[kPinsPerBucket];
  };
  static_assert(sizeof(Bucket) == 64);
  // A flow lives in its home bucket or one of the next kProbeBuckets - 1.
  static constexpr uint32_t kProbeBuckets = 4;
  // Pins keep time in units of 2^20 cycles (about 0.4 ms at 2.6 GHz).
  static constexpr int kTimeShift = 20;

  static uint32_t coarse(uint64_t tsc) { return static_cast<uint32_t>(tsc >> kTimeShift); }
  uint16_t slot_for(uint32_t flow_hash, const PoolView& view, uint64_t now_tsc, bool& held);
  uint16_t fresh_slot(uint32_t flow_hash, const PoolView& view, uint64_t now_tsc) const;
  bool seen(uint32_t flow_hash) const { return (seen_[(flow_hash >> 6) & kSeenWordMask] >> (flow_hash & 63)) & 1; }
  void unpin(Pin& pin);
  void sweep(uint32_t now, uint32_t buckets);

  Bucket* buckets_ = nullptr;
  uint32_t bucket_mask_ = 0;
  uint32_t idle_timeout_ = 0;  // coarse units
  uint64_t idle_timeout_tsc_ = 0;
  // The single-instance mode (see the top).
  static constexpr uint32_t kSeenWords = 1u << 15;  // 2^21 bits, 256 KB
  static constexpr uint32_t kSeenWordMask = kSeenWords - 1;
  uint64_t* seen_ = nullptr;
  bool single_ = false;        // the last burst found one instance
  bool seen_dirty_ = false;    // bits set since the bitmap was last cleared
  uint32_t single_generation_ = 0;  // of the instance that ran alone (slot 0)
  uint64_t inherit_until_tsc_ = 0;  // its flows stay with it until then
  uint64_t sweep_every_tsc_;   // time per bucket swept
  uint64_t swept_until_tsc_ = 0;
  uint32_t sweep_cursor_ = 0;
  std::array<uint32_t, kMaxInstancesPerPool> flows_{};
  uint64_t moved_ = 0;       // pinned to an instance that was freed: had to move
  uint64_t table_full_ = 0;  // could not pin (the flow still gets an instance)
};

}  // namespace nfv
