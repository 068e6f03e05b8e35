// The burst shape of VNFs that keep one table per direction (nat: inside and
// outside mappings; lb: connections and replies). Pass 1 checks each packet
// and lets the VNF give it a verdict and a lookup key; the keys of each
// direction are then looked up in one bulk call per table; pass 2 is the
// VNF's own, over the two index lists; compact() ends the burst.
#pragma once

#include <cstdint>

#include <rte_hash.h>
#include <rte_mbuf.h>

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
  int32_t forward_pos[kMaxVnfBurst];  // position in the forward table, or < 0
  void* reverse_data[kMaxVnfBurst];   // the reverse table's data, where hit
  uint64_t reverse_hits = 0;          // bit j: reverse key j was found

  // Pass 1: the input policy's verdict, then classify(m, layout, pending),
  // which returns the packet's TwoWayVerdict, for packets to process.
  template <typename Classify>
  void classify_all(InputPolicy& input, rte_mbuf** pkts, uint16_t n, Classify&& classify) {
    for (uint16_t i = 0; i < n; ++i) {
      HeaderLayout h;
      const InputVerdict v = input.check(pkts[i], h);
      verdict[i] = v == InputVerdict::kDrop ? kDropIt : kPassIt;
      if (v != InputVerdict::kProcess) continue;
      verdict[i] = classify(pkts[i], h, pending[i]);
      if (verdict[i] == kForward) forward_index[n_forward++] = i;
      else if (verdict[i] == kReverse) reverse_index[n_reverse++] = i;
    }
  }

  // One bulk lookup per direction (tables of create_hash_table).
  void look_up(const rte_hash* forward_table, const rte_hash* reverse_table) {
    const void* keys[kMaxVnfBurst];
    hash_sig_t hashes[kMaxVnfBurst];
    constexpr uint32_t kKeyLength = sizeof(Pending::key);
    if (n_forward) {
      for (uint32_t j = 0; j < n_forward; ++j) {
        keys[j] = &pending[forward_index[j]].key;
        hashes[j] = table_hash(keys[j], kKeyLength);
      }
      rte_hash_lookup_with_hash_bulk(forward_table, keys, hashes, n_forward, forward_pos);
    }
    if (n_reverse) {
      for (uint32_t j = 0; j < n_reverse; ++j) {
        keys[j] = &pending[reverse_index[j]].key;
        hashes[j] = table_hash(keys[j], kKeyLength);
      }
      rte_hash_lookup_with_hash_bulk_data(reverse_table, keys, hashes, n_reverse, &reverse_hits, reverse_data);
    }
  }

  // Survivors in order in pkts[0..return value); kDropIt ones to dropped.
  uint16_t compact(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) const {
    return compact_burst(pkts, n, dropped, n_dropped, [this](uint16_t i) { return verdict[i] == kDropIt; });
  }
};

}  // namespace nfv
