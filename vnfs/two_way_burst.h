// The burst shape of VNFs that keep one table per direction (nat: inside and
// outside mappings; lb: connections and replies). Pass 1 checks each packet
// and lets the VNF give it a verdict and a lookup key; the keys of each
// direction are then looked up, first in the direction's flow cache, the
// rest in one bulk call per table; pass 2 is the VNF's own, over the two
// index lists; compact() ends the burst.
#pragma once

#include <cstdint>

#include <rte_hash.h>
#include <rte_mbuf.h>

#include "flow_cache.h"
#include "hash_table.h"
#include "input_policy.h"
#include "vnf.h"

namespace nfv {

// A packet's verdict between the passes.
enum TwoWayVerdict : uint8_t {
  kPassIt,   // on, untouched
  kDropIt,   // to the dropped list
  kForward,  // key looked up in the forward table (positions)
  kReverse,  // key looked up in the reverse table (data)
};

// `Pending` is the VNF's per-packet state between the passes; it has a
// `key` member, the lookup key (8-byte aligned: rte_hash_crc reads words).
template <typename Pending>
struct TwoWayBurst {
  Pending pending[kMaxVnfBurst];
  uint8_t verdict[kMaxVnfBurst];
  uint16_t forward_index[kMaxVnfBurst], reverse_index[kMaxVnfBurst];  // packet of each key
  uint32_t n_forward = 0, n_reverse = 0;
  int32_t forward_pos[kMaxVnfBurst];   // position in the forward table, or < 0
  int32_t reverse_data[kMaxVnfBurst];  // the reverse table's data (a record index), or < 0

  // Pass 1: the input policy's verdict, then classify(i, m, layout,
  // pending), which returns the packet's TwoWayVerdict, for packets to process.
  template <typename Classify>
  void classify_all(InputPolicy& input, rte_mbuf** pkts, uint16_t n, Classify&& classify) {
    for (uint16_t i = 0; i < n; ++i) {
      HeaderLayout h;
      const InputVerdict v = input.check(pkts[i], h);
      verdict[i] = v == InputVerdict::kDrop ? kDropIt : kPassIt;
      if (v != InputVerdict::kProcess) continue;
      verdict[i] = classify(i, pkts[i], h, pending[i]);
      if (verdict[i] == kForward) forward_index[n_forward++] = i;
      else if (verdict[i] == kReverse) reverse_index[n_reverse++] = i;
    }
  }

  // Both directions' keys: the forward table maps a key to its position,
  // the reverse table to data that is a record index (>= 0). holds(record,
  // key) says whether a record a cache names still carries the key.
  template <typename ForwardHolds, typename ReverseHolds>
  void look_up(const rte_hash* forward_table, FlowCache& forward_cache, ForwardHolds&& forward_holds,
               const rte_hash* reverse_table, FlowCache& reverse_cache, ReverseHolds&& reverse_holds) {
    resolve(forward_index, n_forward, forward_cache, forward_holds, forward_pos,
            [forward_table](const void** keys, hash_sig_t* hashes, uint32_t n, int32_t* out) {
              rte_hash_lookup_with_hash_bulk(forward_table, keys, hashes, n, out);
            });
    resolve(reverse_index, n_reverse, reverse_cache, reverse_holds, reverse_data,
            [reverse_table](const void** keys, hash_sig_t* hashes, uint32_t n, int32_t* out) {
              uint64_t hits = 0;
              void* data[kMaxVnfBurst];
              rte_hash_lookup_with_hash_bulk_data(reverse_table, keys, hashes, n, &hits, data);
              for (uint32_t j = 0; j < n; ++j)
                out[j] = (hits >> j) & 1 ? static_cast<int32_t>(reinterpret_cast<uintptr_t>(data[j])) : -1;
            });
  }
  // Survivors in order in pkts[0..return value); kDropIt ones to dropped.
  uint16_t compact(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) const {
    return compact_burst(pkts, n, dropped, n_dropped, [this](uint16_t i) { return verdict[i] == kDropIt; });
  }

 private:
  // The record of each key of `index[0..n)` into out[]: what the cache
  // names where the record still holds the key, the rest from one bulk
  // lookup (bulk(keys, hashes, count, records)), remembered for next time.
  template <typename Holds, typename Bulk>
  void resolve(const uint16_t* index, uint32_t n, FlowCache& cache, Holds& holds, int32_t* out, Bulk&& bulk) {
    if (n == 0) return;
    constexpr uint32_t kKeyLength = sizeof(Pending::key);
    const void* keys[kMaxVnfBurst];
    hash_sig_t hashes[kMaxVnfBurst];
    uint16_t missed[kMaxVnfBurst];  // j of each key the cache did not answer
    uint32_t n_missed = 0;
    for (uint32_t j = 0; j < n; ++j) {
      const auto& key = pending[index[j]].key;
      const hash_sig_t hash = table_hash(&key, kKeyLength);
      if (cache.enabled()) {
        const int32_t record = cache.candidate(hash);
        if (record != FlowCache::kEmpty && holds(record, key)) {
          out[j] = record;
          continue;
        }
      }
      keys[n_missed] = &key;
      hashes[n_missed] = hash;
      missed[n_missed++] = static_cast<uint16_t>(j);
    }
    cache.hits += n - n_missed;
    cache.misses += n_missed;
    if (n_missed == 0) return;
    int32_t found[kMaxVnfBurst];
    bulk(keys, hashes, n_missed, found);
    for (uint32_t m = 0; m < n_missed; ++m) {
      out[missed[m]] = found[m];
      if (found[m] >= 0 && cache.enabled()) cache.remember(hashes[m], found[m]);
    }
  }
};

}  // namespace nfv
