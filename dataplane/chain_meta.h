// Per-packet chain state, kept in an mbuf dynamic field while a packet is
// inside a pod (between pods it travels in the NSH header instead).
#pragma once

#include <cstdint>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

namespace nfv {

struct ChainMeta {
  uint64_t ingress_ns;   // wall-clock ns when the packet entered its chain
  uint32_t flow_hash;    // 5-tuple hash, stable along the chain
  uint16_t chain;        // index into the pod's chains
  uint8_t site;          // site the packet is at now
  uint8_t next_stage;    // 1..hops for a hop, hops+1 for the egress
  uint32_t fast_path_tag = 0;  // non-zero: the chain fast path is recording this packet's flow
};
static_assert(sizeof(ChainMeta) == 24);

// Registers the dynfield; call once after EAL init. Throws on failure.
void register_chain_meta_field();

extern int g_chain_meta_offset;

inline ChainMeta& chain_meta(rte_mbuf* m) { return *RTE_MBUF_DYNFIELD(m, g_chain_meta_offset, ChainMeta*); }

}  // namespace nfv
