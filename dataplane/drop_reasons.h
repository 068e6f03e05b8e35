// Why the pod dropped a packet: declared once, counted per worker, printed
// by name.
#pragma once

#include <cstdint>

namespace nfv {

#define NFV_DROP_REASONS(X)                                                   \
  X(truncated_l2, "frame shorter than its Ethernet/VLAN headers")            \
  X(bad_ipv4_header, "truncated IPv4 header, wrong version or IHL < 5")      \
  X(bad_ipv4_length, "IPv4 total length shorter than header or past frame")  \
  X(bad_ipv6_header, "truncated IPv6 fixed or extension header")             \
  X(bad_ipv6_length, "IPv6 payload length past the frame")                   \
  X(truncated_l4, "TCP/UDP header cut short")                                \
  X(non_ip_default, "non-IP frame on a port whose default is drop")          \
  X(unmatched_default, "IP packet matching no chain, port default is drop")  \
  X(nsh_malformed, "NSH header truncated or not MD type 1 over Ethernet")    \
  X(nsh_unknown_chain, "NSH SPI names no chain of this pod")                 \
  X(nsh_bad_index, "NSH SI out of range for the chain")                      \
  X(nsh_ttl_expired, "NSH TTL reached zero")                                 \
  X(nsh_wrong_site, "NSH destination site not hosted by this pod")           \
  X(no_headroom, "no mbuf headroom for the NSH encapsulation")               \
  X(no_route, "next site unreachable from this pod")                         \
  X(wan_loss, "lost on an emulated WAN link")                                \
  X(wan_queue_full, "WAN delay line full")                                   \
  X(wan_bandwidth, "WAN bandwidth cap: buffer exceeded")                     \
  X(link_down, "the port towards the peer pod has no link (peer gone)")     \
  X(tx_full, "port transmit queue full")                                     \
  X(vnf, "dropped by a VNF (see its counters)")                              \
  X(instance_queue_full, "a VNF instance's input queue was full (overload)")  \
  X(instance_removed, "left in the queue of an instance being freed")        \
  X(no_owner_instance, "a reply for an instance slot not running (its state is gone)") \
  X(shutdown, "in flight when the pod stopped")                             \
  X(path_overflow, "a burst split into more groups than a worker holds (a bug: report it)")

enum class DropReason : uint8_t {
#define NFV_DROP_ENUM(name, text) name,
  NFV_DROP_REASONS(NFV_DROP_ENUM)
#undef NFV_DROP_ENUM
      kCount
};

inline constexpr int kDropReasonCount = static_cast<int>(DropReason::kCount);

const char* drop_reason_name(DropReason reason);
const char* drop_reason_description(DropReason reason);

}  // namespace nfv
