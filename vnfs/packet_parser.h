// Bounds-checked parsing of Ethernet / VLAN / IPv4 / IPv6 / TCP / UDP headers
// into a flow key. Every VNF and the pod's classifier parse through here, so
// a malformed frame is recognised (and its reason named) in one place.
#pragma once

#include <cstdint>
#include <cstring>

#include <netinet/in.h>

#include <rte_hash_crc.h>
#include <rte_mbuf.h>

namespace nfv {

// Why a frame could not be parsed; kOk and kNonIp are not errors.
enum class ParseStatus : uint8_t {
  kOk,
  kNonIp,            // ARP, LLDP, NSH, ... : not for L3/L4 processing
  kTruncatedL2,      // shorter than its Ethernet/VLAN headers
  kBadIpv4Header,    // truncated, wrong version or IHL < 5
  kBadIpv4Length,    // total length shorter than the header or past the frame
  kBadIpv6Header,    // truncated fixed or extension header
  kBadIpv6Length,    // payload length past the frame (or a jumbogram)
  kTruncatedL4,      // TCP/UDP header cut short
};

const char* parse_status_name(ParseStatus status);

enum class AddressFamily : uint8_t { kNone = 0, kIpv4 = 4, kIpv6 = 6 };

// The 5-tuple of a packet. IPv4 addresses occupy the first 4 bytes of the
// 16-byte fields (network order) and the rest stays zero, so one key type
// serves both families in rte_hash tables.
struct FlowKey {
  uint8_t src_addr[16];
  uint8_t dst_addr[16];
  uint16_t src_port;  // host order; 0 when the protocol has no ports
  uint16_t dst_port;
  uint8_t protocol;
  AddressFamily family;
  uint8_t pad[2];

  bool operator==(const FlowKey& other) const { return std::memcmp(this, &other, sizeof(*this)) == 0; }
};
static_assert(sizeof(FlowKey) == 40);

// Filled in full by parse_packet (no default initialisers: zeroing it first
// would cost a memset per packet).
struct ParsedPacket {
  ParseStatus status;
  uint8_t vlan_tags;
  bool later_fragment;  // a non-first IP fragment: no L4 header
  uint16_t ether_type;  // innermost EtherType, host order
  uint16_t l3_offset;
  uint16_t l4_offset;
  FlowKey key;

  // Host order; only for family kIpv4.
  uint32_t ipv4_src() const {
    uint32_t v;
    std::memcpy(&v, key.src_addr, 4);
    return rte_be_to_cpu_32(v);
  }
  uint32_t ipv4_dst() const {
    uint32_t v;
    std::memcpy(&v, key.dst_addr, 4);
    return rte_be_to_cpu_32(v);
  }
};

// Every case but parse_plain_ipv4's (out of line: VLAN tags, IPv4 options,
// fragments, IPv6, other protocols, and every malformed frame).
ParseStatus parse_packet_general(const rte_mbuf* m, ParsedPacket& out);

// Where a packet's headers lie, without its flow key: what a VNF needs that
// reads and rewrites header fields in place (addresses and ports read from
// the packet, in network order). Building no key makes the check cheaper.
struct HeaderLayout {
  AddressFamily family;  // kNone: the frame did not parse
  uint8_t protocol;      // innermost, after IPv6 extension headers
  bool later_fragment;   // a non-first IP fragment: no L4 header
  uint8_t vlan_tags;
  uint16_t l3_offset;
  uint16_t l4_offset;

  static HeaderLayout of(const ParsedPacket& p) {
    const bool ok = p.status == ParseStatus::kOk;
    return HeaderLayout{ok ? p.key.family : AddressFamily::kNone, p.key.protocol, ok && p.later_fragment,
                        p.vlan_tags, p.l3_offset, p.l4_offset};
  }
  // The protocols whose ports the parser reads (and bounds): TCP, UDP, SCTP.
  bool has_ports() const {
    return !later_fragment && (protocol == IPPROTO_TCP || protocol == IPPROTO_UDP || protocol == IPPROTO_SCTP);
  }
  // Source and destination port of packet `m` in network order; 0 without ports.
  void read_ports(const rte_mbuf* m, uint16_t ports[2]) const {
    ports[0] = ports[1] = 0;
    if (has_ports()) std::memcpy(ports, rte_pktmbuf_mtod_offset(m, const uint8_t*, l4_offset), 2 * sizeof(uint16_t));
  }
};

// After Ethernet; after an IPv4 header without options.
constexpr uint16_t kPlainL3Offset = 14, kPlainL4Offset = 14 + 20;

// The longest frame without VLAN tags that is not jumbo: 1518 bytes with
// the FCS, which mbufs do not hold (4 more per VLAN tag).
constexpr uint32_t kLongestStandardFrame = 1514;

// The common case, checked in one go and inlined into every caller (which
// lets the compiler keep the fields it reads in registers): untagged IPv4
// without options or fragmentation carrying TCP or UDP whose header fits;
// `protocol` is set to which. Anything else (or anything wrong) returns false.
[[gnu::always_inline]] inline bool is_plain_ipv4(const rte_mbuf* m, uint8_t& protocol) {
  constexpr uint32_t kL3 = kPlainL3Offset, kL4 = kPlainL4Offset;
  const auto* data = rte_pktmbuf_mtod(m, const uint8_t*);
  const uint32_t available = rte_pktmbuf_data_len(m);
  if (available < kL4 + 20) return false;  // room for a TCP header (and so for UDP's)
  uint16_t ether_type, total_length_be, fragment_be;
  std::memcpy(&ether_type, data + 12, 2);
  std::memcpy(&total_length_be, data + kL3 + 2, 2);
  std::memcpy(&fragment_be, data + kL3 + 6, 2);
  // EtherType IPv4, version 4 with IHL 5, no fragment offset and no MF flag.
  if (ether_type != RTE_BE16(0x0800) || data[kL3] != 0x45 || (fragment_be & RTE_BE16(0x3fff)) != 0) return false;
  const uint8_t proto = data[kL3 + 9];
  const uint32_t total_length = rte_be_to_cpu_16(total_length_be);
  if (kL3 + total_length > rte_pktmbuf_pkt_len(m)) return false;
  if (proto == IPPROTO_UDP) {
    if (total_length < 20 + 8) return false;
  } else if (proto == IPPROTO_TCP) {
    const uint32_t tcp_length = (data[kL4 + 12] >> 4) * 4u;
    if (tcp_length < 20 || 20 + tcp_length > total_length || kL4 + tcp_length > available) return false;
  } else {
    return false;
  }
  protocol = proto;
  return true;
}

// The layout of is_plain_ipv4's case.
[[gnu::always_inline]] inline bool plain_ipv4_layout(const rte_mbuf* m, HeaderLayout& out) {
  uint8_t protocol;
  if (!is_plain_ipv4(m, protocol)) return false;
  out = HeaderLayout{AddressFamily::kIpv4, protocol, false, 0, kPlainL3Offset, kPlainL4Offset};
  return true;
}

// The parse of a frame is_plain_ipv4 accepted as carrying `protocol`.
[[gnu::always_inline]] inline void fill_plain_ipv4(const rte_mbuf* m, uint8_t protocol, ParsedPacket& out) {
  const auto* data = rte_pktmbuf_mtod(m, const uint8_t*);
  out.status = ParseStatus::kOk;
  out.vlan_tags = 0;
  out.later_fragment = false;
  out.ether_type = 0x0800;
  out.l3_offset = kPlainL3Offset;
  out.l4_offset = kPlainL4Offset;
  std::memset(&out.key, 0, sizeof(out.key));
  out.key.family = AddressFamily::kIpv4;
  out.key.protocol = protocol;
  std::memcpy(out.key.src_addr, data + kPlainL3Offset + 12, 4);
  std::memcpy(out.key.dst_addr, data + kPlainL3Offset + 16, 4);
  uint16_t ports[2];
  std::memcpy(ports, data + kPlainL4Offset, sizeof(ports));
  out.key.src_port = rte_be_to_cpu_16(ports[0]);
  out.key.dst_port = rte_be_to_cpu_16(ports[1]);
}

// is_plain_ipv4's case, with the flow key.
[[gnu::always_inline]] inline bool parse_plain_ipv4(const rte_mbuf* m, ParsedPacket& out) {
  uint8_t protocol;
  if (!is_plain_ipv4(m, protocol)) return false;
  fill_plain_ipv4(m, protocol, out);
  return true;
}

// Parses the headers of `m`. Headers must lie in the first segment (they do
// for every PMD we use); a frame whose headers do not is reported truncated.
[[gnu::always_inline]] inline ParseStatus parse_packet(const rte_mbuf* m, ParsedPacket& out) {
  if (parse_plain_ipv4(m, out)) return ParseStatus::kOk;
  return parse_packet_general(m, out);
}

// flow_hash of an IPv4 5-tuple: addresses in network order, ports in host
// order (as FlowKey holds them). Two CRC32 instructions.
inline uint32_t flow_hash_ipv4(uint32_t src, uint32_t dst, uint16_t src_port, uint16_t dst_port, uint8_t protocol) {
  const uint64_t addresses = (static_cast<uint64_t>(dst) << 32) | src;
  const uint64_t rest = (static_cast<uint64_t>(protocol) << 32) | (static_cast<uint64_t>(dst_port) << 16) | src_port;
  return rte_hash_crc_8byte(rest, rte_hash_crc_8byte(addresses, 0x9e3779b9));
}

// An IPv4 5-tuple as the classifier and flow_hash_ipv4 take it: addresses in
// network order, ports in host order (as FlowKey holds them).
struct Ipv4Tuple {
  uint32_t src, dst;
  uint16_t src_port, dst_port;
  uint8_t protocol;

  static Ipv4Tuple of(const FlowKey& key) {
    Ipv4Tuple t;
    std::memcpy(&t.src, key.src_addr, 4);
    std::memcpy(&t.dst, key.dst_addr, 4);
    t.src_port = key.src_port;
    t.dst_port = key.dst_port;
    t.protocol = key.protocol;
    return t;
  }
  // From the headers of an IPv4 packet whose layout `h` the parser checked.
  static Ipv4Tuple read(const rte_mbuf* m, const HeaderLayout& h) {
    const auto* ip = rte_pktmbuf_mtod_offset(m, const uint8_t*, h.l3_offset);
    Ipv4Tuple t;
    std::memcpy(&t.src, ip + 12, 4);
    std::memcpy(&t.dst, ip + 16, 4);
    uint16_t ports[2];
    h.read_ports(m, ports);
    t.src_port = rte_be_to_cpu_16(ports[0]);
    t.dst_port = rte_be_to_cpu_16(ports[1]);
    t.protocol = h.protocol;
    return t;
  }
  uint32_t flow_hash() const { return flow_hash_ipv4(src, dst, src_port, dst_port, protocol); }
};

// Stable for a flow in every pod. IPv4 keys hash only their 13 meaningful
// bytes; IPv6 keys hash all 40.
inline uint32_t flow_hash(const FlowKey& key) {
  if (key.family != AddressFamily::kIpv4) return rte_hash_crc(&key, sizeof(key), 0x9e3779b9);
  return Ipv4Tuple::of(key).flow_hash();
}

}  // namespace nfv
