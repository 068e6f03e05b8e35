#include "flow_affinity.h"

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include <algorithm>
#include <stdexcept>

namespace nfv {

FlowAffinity::FlowAffinity(const std::string& name, uint32_t capacity, uint64_t idle_timeout_tsc, int socket_id) {
  const uint32_t buckets = std::max<uint32_t>(kProbeBuckets, rte_align32pow2(std::max<uint32_t>(capacity, 1)) / kPinsPerBucket);
  buckets_ = static_cast<Bucket*>(rte_zmalloc_socket("flow_affinity", sizeof(Bucket) * buckets, 64, socket_id));
  if (!buckets_) throw std::runtime_error(name + ": cannot allocate its flow table (" + std::to_string(buckets) + " buckets)");
  bucket_mask_ = buckets - 1;
  seen_ = static_cast<uint64_t*>(rte_zmalloc_socket("flow_affinity_seen", sizeof(uint64_t) * kSeenWords, 64, socket_id));
  if (!seen_) {
    rte_free(buckets_);
    throw std::runtime_error(name + ": cannot allocate its seen-flows bitmap");
  }
  idle_timeout_tsc_ = idle_timeout_tsc;
  idle_timeout_ = static_cast<uint32_t>(std::clamp<uint64_t>(idle_timeout_tsc >> kTimeShift, 1, UINT32_MAX / 2));
  // Four passes over the table per timeout.
  sweep_every_tsc_ = std::max<uint64_t>(1, (static_cast<uint64_t>(idle_timeout_) << kTimeShift) / 4 / buckets);
  swept_until_tsc_ = rte_rdtsc();
}

FlowAffinity::~FlowAffinity() {
  rte_free(buckets_);
  rte_free(seen_);
}

void FlowAffinity::unpin(Pin& pin) {
  flows_[pin.slot]--;
  pin.in_use = 0;
}

void FlowAffinity::note_single(const uint32_t* flow_hashes, uint16_t n, const PoolView& view) {
  if (!single_) {
    // Back to one instance: what the bitmap knew is older than every pin.
    if (seen_dirty_) std::fill_n(seen_, kSeenWords, 0);
    single_ = true;
    seen_dirty_ = true;
  }
  single_generation_ = view.generation[0];
  for (uint16_t i = 0; i < n; ++i) seen_[(flow_hashes[i] >> 6) & kSeenWordMask] |= 1ull << (flow_hashes[i] & 63);
}

void FlowAffinity::slots_for(const uint32_t* flow_hashes, uint16_t n, const PoolView& view, uint64_t now_tsc, uint16_t* slots,
                             uint64_t* unheld) {
  if (single_) {
    // The pool has grown since the last burst: the lone instance's flows stay with it.
    single_ = false;
    inherit_until_tsc_ = now_tsc + idle_timeout_tsc_;
  }
  for (uint16_t i = 0; i < n; ++i) rte_prefetch0(&buckets_[flow_hashes[i] & bucket_mask_]);
  uint64_t missed = 0;
  for (uint16_t i = 0; i < n; ++i) {
    bool held = true;
    slots[i] = slot_for(flow_hashes[i], view, now_tsc, held);
    if (!held) missed |= 1ull << (i & 63);
  }
  if (unheld) *unheld = missed;
}

uint16_t FlowAffinity::slot_for(uint32_t flow_hash, const PoolView& view, uint64_t now_tsc, bool& held) {
  const uint32_t now = coarse(now_tsc);
  Pin* free_pin = nullptr;
  uint32_t b = flow_hash & bucket_mask_;
  // A miss must look at every probe bucket: pins are removed without tombstones.
  for (uint32_t probe = 0; probe < kProbeBuckets; ++probe, b = (b + 1) & bucket_mask_) {
    for (Pin& pin : buckets_[b].pins) {
      if (!pin.in_use) {
        if (!free_pin) free_pin = &pin;
        continue;
      }
      if (pin.flow_hash != flow_hash) continue;
      if (view.state[pin.slot] != InstanceState::kFree && view.generation[pin.slot] == pin.generation) {
        pin.last_seen = now;
        return pin.slot;
      }
      // Its instance is gone (drain timeout): the flow has to move.
      moved_++;
      unpin(pin);
      free_pin = &pin;
      probe = kProbeBuckets;  // ends the outer loop too
      break;
    }
  }
  const uint16_t slot = fresh_slot(flow_hash, view, now_tsc);
  if (!free_pin) {
    table_full_++;
    held = false;
    return slot;
  }
  *free_pin = Pin{flow_hash, view.generation[slot], now, slot, 1};
  flows_[slot]++;
  return slot;
}

// The slot of a flow without a pin: the instance that ran alone if it served
// the flow (and still runs), else the pool's Maglev pick.
uint16_t FlowAffinity::fresh_slot(uint32_t flow_hash, const PoolView& view, uint64_t now_tsc) const {
  if (now_tsc < inherit_until_tsc_ && view.state[0] != InstanceState::kFree && view.generation[0] == single_generation_ &&
      seen(flow_hash))
    return 0;
  return view.slot_for(flow_hash);
}

void FlowAffinity::expire_due(uint64_t now_tsc) {
  if (now_tsc < swept_until_tsc_ + sweep_every_tsc_) return;
  const uint64_t due = (now_tsc - swept_until_tsc_) / sweep_every_tsc_;
  const uint32_t buckets = static_cast<uint32_t>(std::min<uint64_t>(due, bucket_mask_ + 1ull));
  // After a long pause, one full pass is enough: the rest of the debt is forgiven.
  swept_until_tsc_ = due > buckets ? now_tsc : swept_until_tsc_ + buckets * sweep_every_tsc_;
  sweep(coarse(now_tsc), buckets);
}

void FlowAffinity::sweep(uint32_t now, uint32_t buckets) {
  for (uint32_t k = 0; k < buckets; ++k) {
    Bucket& bucket = buckets_[sweep_cursor_];
    sweep_cursor_ = (sweep_cursor_ + 1) & bucket_mask_;
    for (Pin& pin : bucket.pins)
      if (pin.in_use && now - pin.last_seen > idle_timeout_) unpin(pin);
  }
}

}  // namespace nfv
