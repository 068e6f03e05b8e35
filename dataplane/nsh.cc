#include "nsh.h"

#include <cstring>

#include <rte_byteorder.h>

#include "header_mark.h"

namespace nfv {
namespace {

// RFC 8300 section 2.2: Ver(2) O(1) U(1) TTL(6) Length(6) U(4) MD Type(4) Next Protocol(8).
constexpr uint8_t kMdType1 = 1;
constexpr uint8_t kMdType1LengthWords = 6;  // base + service path + 4 context words

struct NshHeader {
  uint16_t ver_flags_ttl_len;  // network order
  uint8_t md_type;
  uint8_t next_proto;
  uint32_t path;               // SPI(24) SI(8), network order
  uint64_t ingress_ns;         // context words 1-2
  uint32_t flow_hash;          // context word 3
  uint8_t src_site;            // context word 4
  uint8_t dst_site;
  uint16_t reserved;
} __attribute__((packed));
static_assert(sizeof(NshHeader) == 24);

}  // namespace

bool nsh_encap(rte_mbuf* m, const rte_ether_addr& src, const rte_ether_addr& dst, const NshFields& f) {
  auto* outer = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, kNshEncapBytes));
  if (!outer) return false;
  clear_header_mark(m, g_header_mark);  // the checked headers now lie further in
  auto* eth = reinterpret_cast<rte_ether_hdr*>(outer);
  rte_ether_addr_copy(&dst, &eth->dst_addr);
  rte_ether_addr_copy(&src, &eth->src_addr);
  eth->ether_type = rte_cpu_to_be_16(kEtherTypeNsh);
  NshHeader h{};
  h.ver_flags_ttl_len = rte_cpu_to_be_16(static_cast<uint16_t>(((f.ttl & 0x3f) << 6) | kMdType1LengthWords));
  h.md_type = kMdType1;
  h.next_proto = kNshNextProtoEthernet;
  h.path = rte_cpu_to_be_32((f.spi << 8) | f.si);
  h.ingress_ns = rte_cpu_to_be_64(f.ingress_ns);
  h.flow_hash = rte_cpu_to_be_32(f.flow_hash);
  h.src_site = f.src_site;
  h.dst_site = f.dst_site;
  std::memcpy(outer + sizeof(rte_ether_hdr), &h, sizeof(h));
  return true;
}

NshStatus nsh_decap(rte_mbuf* m, NshFields& f) {
  if (rte_pktmbuf_data_len(m) < kNshEncapBytes + sizeof(rte_ether_hdr)) return NshStatus::kTruncated;
  NshHeader h;
  std::memcpy(&h, rte_pktmbuf_mtod_offset(m, const uint8_t*, sizeof(rte_ether_hdr)), sizeof(h));
  const uint16_t word = rte_be_to_cpu_16(h.ver_flags_ttl_len);
  const uint8_t version = static_cast<uint8_t>(word >> 14);
  const uint8_t length = word & 0x3f;
  if (version != 0 || (h.md_type & 0x0f) != kMdType1 || length != kMdType1LengthWords ||
      h.next_proto != kNshNextProtoEthernet)
    return NshStatus::kUnsupported;
  const uint8_t ttl = (word >> 6) & 0x3f;
  if (ttl <= 1) return NshStatus::kTtlExpired;
  const uint32_t path = rte_be_to_cpu_32(h.path);
  f.spi = path >> 8;
  f.si = path & 0xff;
  f.ttl = static_cast<uint8_t>(ttl - 1);
  f.ingress_ns = rte_be_to_cpu_64(h.ingress_ns);
  f.flow_hash = rte_be_to_cpu_32(h.flow_hash);
  f.src_site = h.src_site;
  f.dst_site = h.dst_site;
  rte_pktmbuf_adj(m, kNshEncapBytes);
  return NshStatus::kOk;
}

}  // namespace nfv
