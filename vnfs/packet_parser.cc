#include "packet_parser.h"

#include <algorithm>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

namespace nfv {
namespace {

constexpr int kMaxVlanTags = 2;
constexpr int kMaxIpv6ExtensionHeaders = 8;

bool is_vlan(uint16_t ether_type) {
  return ether_type == RTE_ETHER_TYPE_VLAN || ether_type == RTE_ETHER_TYPE_QINQ ||
         ether_type == RTE_ETHER_TYPE_QINQ1;
}

// Reads the ports of TCP/UDP/SCTP; other protocols keep ports at 0.
[[gnu::always_inline]] inline ParseStatus parse_l4(const uint8_t* data, uint32_t available, uint32_t l4_offset, ParsedPacket& out) {
  out.l4_offset = static_cast<uint16_t>(l4_offset);
  const uint8_t proto = out.key.protocol;
  if (out.later_fragment) return ParseStatus::kOk;
  uint32_t needed = 0;
  if (proto == IPPROTO_TCP) needed = sizeof(rte_tcp_hdr);
  else if (proto == IPPROTO_UDP) needed = sizeof(rte_udp_hdr);
  else if (proto == IPPROTO_SCTP) needed = 4;
  else return ParseStatus::kOk;
  if (l4_offset + needed > available) return ParseStatus::kTruncatedL4;
  if (proto == IPPROTO_TCP) {
    const auto* tcp = reinterpret_cast<const rte_tcp_hdr*>(data + l4_offset);
    const uint32_t header_len = (tcp->data_off >> 4) * 4u;
    if (header_len < sizeof(rte_tcp_hdr) || l4_offset + header_len > available) return ParseStatus::kTruncatedL4;
  }
  uint16_t ports[2];
  std::memcpy(ports, data + l4_offset, sizeof(ports));
  out.key.src_port = rte_be_to_cpu_16(ports[0]);
  out.key.dst_port = rte_be_to_cpu_16(ports[1]);
  return ParseStatus::kOk;
}

[[gnu::always_inline]] inline ParseStatus parse_ipv4(const uint8_t* data, uint32_t available, uint32_t frame_len, ParsedPacket& out) {
  const uint32_t l3 = out.l3_offset;
  if (l3 + sizeof(rte_ipv4_hdr) > available) return ParseStatus::kBadIpv4Header;
  const auto* ip = reinterpret_cast<const rte_ipv4_hdr*>(data + l3);
  const uint32_t ihl = (ip->version_ihl & 0x0f) * 4u;
  if ((ip->version_ihl >> 4) != 4 || ihl < sizeof(rte_ipv4_hdr) || l3 + ihl > available)
    return ParseStatus::kBadIpv4Header;
  const uint32_t total_length = rte_be_to_cpu_16(ip->total_length);
  if (total_length < ihl || l3 + total_length > frame_len) return ParseStatus::kBadIpv4Length;
  out.key.family = AddressFamily::kIpv4;
  out.key.protocol = ip->next_proto_id;
  std::memcpy(out.key.src_addr, &ip->src_addr, 4);
  std::memcpy(out.key.dst_addr, &ip->dst_addr, 4);
  const uint16_t fragment = rte_be_to_cpu_16(ip->fragment_offset);
  out.later_fragment = (fragment & RTE_IPV4_HDR_OFFSET_MASK) != 0;
  // L4 bounds are the IP datagram's, not the frame's (frames carry padding).
  return parse_l4(data, std::min(available, l3 + total_length), l3 + ihl, out);
}

ParseStatus parse_ipv6(const uint8_t* data, uint32_t available, uint32_t frame_len, ParsedPacket& out) {
  const uint32_t l3 = out.l3_offset;
  if (l3 + sizeof(rte_ipv6_hdr) > available) return ParseStatus::kBadIpv6Header;
  const auto* ip = reinterpret_cast<const rte_ipv6_hdr*>(data + l3);
  if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6) return ParseStatus::kBadIpv6Header;
  const uint32_t payload_length = rte_be_to_cpu_16(ip->payload_len);
  if (payload_length == 0 || l3 + sizeof(rte_ipv6_hdr) + payload_length > frame_len)
    return ParseStatus::kBadIpv6Length;
  out.key.family = AddressFamily::kIpv6;
  std::memcpy(out.key.src_addr, ip->src_addr, 16);
  std::memcpy(out.key.dst_addr, ip->dst_addr, 16);
  const uint32_t datagram_end = std::min(available, l3 + static_cast<uint32_t>(sizeof(rte_ipv6_hdr)) + payload_length);
  uint8_t next = ip->proto;
  uint32_t offset = l3 + sizeof(rte_ipv6_hdr);
  for (int i = 0; i < kMaxIpv6ExtensionHeaders; ++i) {
    if (next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING && next != IPPROTO_DSTOPTS &&
        next != IPPROTO_FRAGMENT && next != IPPROTO_AH)
      break;
    if (offset + 8 > datagram_end) return ParseStatus::kBadIpv6Header;
    const uint8_t* ext = data + offset;
    uint32_t ext_len;
    if (next == IPPROTO_FRAGMENT) {
      const uint16_t frag = static_cast<uint16_t>((ext[2] << 8) | ext[3]);
      out.later_fragment = (frag & 0xfff8) != 0;
      ext_len = 8;
    } else if (next == IPPROTO_AH) {
      ext_len = (ext[1] + 2u) * 4u;
    } else {
      ext_len = (ext[1] + 1u) * 8u;
    }
    next = ext[0];
    offset += ext_len;
    if (offset > datagram_end) return ParseStatus::kBadIpv6Header;
  }
  out.key.protocol = next;
  return parse_l4(data, datagram_end, offset, out);
}

}  // namespace

const char* parse_status_name(ParseStatus status) {
  switch (status) {
    case ParseStatus::kOk: return "ok";
    case ParseStatus::kNonIp: return "non_ip";
    case ParseStatus::kTruncatedL2: return "truncated_l2";
    case ParseStatus::kBadIpv4Header: return "bad_ipv4_header";
    case ParseStatus::kBadIpv4Length: return "bad_ipv4_length";
    case ParseStatus::kBadIpv6Header: return "bad_ipv6_header";
    case ParseStatus::kBadIpv6Length: return "bad_ipv6_length";
    case ParseStatus::kTruncatedL4: return "truncated_l4";
  }
  return "unknown";
}

ParseStatus parse_packet_general(const rte_mbuf* m, ParsedPacket& out) {
  // Field by field: a whole-struct reset costs a memset call per packet.
  std::memset(&out.key, 0, sizeof(out.key));
  out.vlan_tags = 0;
  out.later_fragment = false;
  out.ether_type = 0;
  out.l3_offset = 0;
  out.l4_offset = 0;
  const auto* data = rte_pktmbuf_mtod(m, const uint8_t*);
  const uint32_t available = rte_pktmbuf_data_len(m);
  const uint32_t frame_len = rte_pktmbuf_pkt_len(m);
  if (available < sizeof(rte_ether_hdr)) return out.status = ParseStatus::kTruncatedL2;
  uint16_t ether_type = rte_be_to_cpu_16(reinterpret_cast<const rte_ether_hdr*>(data)->ether_type);
  uint32_t offset = sizeof(rte_ether_hdr);
  while (is_vlan(ether_type)) {
    if (out.vlan_tags == kMaxVlanTags || offset + sizeof(rte_vlan_hdr) > available)
      return out.status = ParseStatus::kTruncatedL2;
    ether_type = rte_be_to_cpu_16(reinterpret_cast<const rte_vlan_hdr*>(data + offset)->eth_proto);
    offset += sizeof(rte_vlan_hdr);
    ++out.vlan_tags;
  }
  out.ether_type = ether_type;
  out.l3_offset = static_cast<uint16_t>(offset);
  if (ether_type == RTE_ETHER_TYPE_IPV4) return out.status = parse_ipv4(data, available, frame_len, out);
  if (ether_type == RTE_ETHER_TYPE_IPV6) return out.status = parse_ipv6(data, available, frame_len, out);
  return out.status = ParseStatus::kNonIp;
}

}  // namespace nfv
