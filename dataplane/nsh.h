// NSH (RFC 8300) encapsulation between pods: Ethernet | NSH MD type 1 |
// the original Ethernet frame. SPI = chain id, SI = stages still ahead.
// The 16-byte fixed context carries the ingress timestamp (ns, 8 bytes), the
// flow hash (4 bytes), the source and destination site indexes (1 byte
// each) and 2 reserved bytes.
#pragma once

#include <cstdint>

#include <rte_ether.h>
#include <rte_mbuf.h>

namespace nfv {

inline constexpr uint16_t kEtherTypeNsh = 0x894F;
inline constexpr uint8_t kNshNextProtoEthernet = 3;
inline constexpr uint8_t kNshInitialTtl = 63;
inline constexpr uint16_t kNshEncapBytes = sizeof(rte_ether_hdr) + 24;

struct NshFields {
  uint32_t spi = 0;
  uint8_t si = 0;
  uint8_t ttl = kNshInitialTtl;
  uint64_t ingress_ns = 0;
  uint32_t flow_hash = 0;
  uint8_t src_site = 0;
  uint8_t dst_site = 0;
};

enum class NshStatus : uint8_t { kOk, kTruncated, kUnsupported, kTtlExpired };

// Prepends outer Ethernet + NSH. Returns false when the mbuf lacks headroom.
bool nsh_encap(rte_mbuf* m, const rte_ether_addr& src, const rte_ether_addr& dst, const NshFields& fields);

// For a frame whose EtherType is kEtherTypeNsh: reads the header, checks
// version 0 / MD type 1 / next protocol Ethernet / TTL, decrements TTL and
// strips the outer headers, leaving the inner Ethernet frame.
NshStatus nsh_decap(rte_mbuf* m, NshFields& fields);

inline bool is_nsh_frame(const rte_mbuf* m) {
  if (rte_pktmbuf_data_len(m) < sizeof(rte_ether_hdr)) return false;
  return rte_pktmbuf_mtod(m, const rte_ether_hdr*)->ether_type == rte_cpu_to_be_16(kEtherTypeNsh);
}

}  // namespace nfv
