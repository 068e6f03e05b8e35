// A direct-mapped cache in front of a VNF's rte_hash table, like the exact
// match cache OVS keeps in front of its classifier. The hash of a key picks
// one slot, which holds the record (table position or table data) last found
// for a key hashing there. It keeps no keys: the VNF checks that the record
// still carries the key, so a record deleted or reused since fails the check
// and nothing ever needs invalidating. A hit (the key's hash, a load and a
// 16-byte compare) costs about 6 cycles where the table's bulk lookup costs
// about 27 per key (bench/dpdk_lookup_floor).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "hash_table.h"

namespace nfv {

// 32 KB of slots: room for the busy flows of a core without crowding its L2.
constexpr uint32_t kDefaultFlowCacheSlots = 8192;

class FlowCache {
 public:
  static constexpr int32_t kEmpty = -1;

  // `slots` 0 turns the cache off; others are rounded up to a power of two.
  void init(uint32_t slots) {
    slots_.assign(slots ? std::bit_ceil(slots) : 0, kEmpty);
    mask_ = slots ? static_cast<uint32_t>(slots_.size() - 1) : 0;
  }

  bool enabled() const { return !slots_.empty(); }

  // The record a key with this hash was last found at (kEmpty: none); the
  // caller checks that it still holds the key. Only when enabled().
  int32_t candidate(uint32_t hash) const { return slots_[hash & mask_]; }
  void remember(uint32_t hash, int32_t record) { slots_[hash & mask_] = record; }
  // The same for a record just added under `key` (a no-op when disabled).
  template <typename Key>
  void remember_key(const Key& key, int32_t record) {
    if (enabled()) remember(table_hash(&key, sizeof(key)), record);
  }

  uint64_t hits = 0;
  uint64_t misses = 0;

 private:
  std::vector<int32_t> slots_;
  uint32_t mask_ = 0;
};

}  // namespace nfv
