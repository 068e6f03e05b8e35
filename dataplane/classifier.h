// Chooses the chain of a packet entering the pod from a port: the first rule
// (in chain order, then rule order) of the chains that accept the port and
// match the 5-tuple.
#pragma once

#include <vector>

#include "packet_parser.h"
#include "pod_layout.h"

namespace nfv {

class Classifier {
 public:
  explicit Classifier(const PodLayout& layout);

  // Returns the chain index, or kNoIndex when no rule matches.
  int classify(int port, const ParsedPacket& packet) const {
    for (const Entry& entry : rules_by_port_[port])
      if (entry.matches(packet.key)) return entry.chain;
    return kNoIndex;
  }

  // The same for an IPv4 packet's fields read straight from its headers
  // (addresses in network order, ports in host order): no flow key to build.
  int classify_ipv4(int port, const Ipv4Tuple& tuple) const {
    for (const Entry& entry : rules_by_port_[port])
      if (entry.matches_ipv4(tuple)) return entry.chain;
    return kNoIndex;
  }

 public:
  // A rule with its prefixes as words: one masked 32-bit compare per IPv4
  // address (the parser stores IPv4 addresses as 4-byte words, and a wider
  // load of them would stall on store forwarding), two 64-bit ones for IPv6.
  struct Entry {
    uint64_t src[2], src_mask[2], dst[2], dst_mask[2];
    uint32_t src4, src4_mask, dst4, dst4_mask;
    uint16_t src_port_lo, src_port_hi, dst_port_lo, dst_port_hi;
    int16_t protocol;  // -1: any
    uint8_t family;    // 0: any
    int chain;

    bool matches(const FlowKey& key) const;
    bool matches_ipv4(const Ipv4Tuple& tuple) const {
      if (family && family != static_cast<uint8_t>(AddressFamily::kIpv4)) return false;
      if (protocol >= 0 && protocol != tuple.protocol) return false;
      if (tuple.src_port < src_port_lo || tuple.src_port > src_port_hi) return false;
      if (tuple.dst_port < dst_port_lo || tuple.dst_port > dst_port_hi) return false;
      // A v6-only part of a prefix (mask bits past 32) cannot match v4: the
      // family check above already rejected such rules.
      return ((tuple.src & src4_mask) == src4) & ((tuple.dst & dst4_mask) == dst4);
    }
  };
  static Entry compile(const CompiledRule& rule, int chain);

 private:
  std::vector<std::vector<Entry>> rules_by_port_;
};

bool rule_matches(const CompiledRule& rule, const FlowKey& key);

}  // namespace nfv
