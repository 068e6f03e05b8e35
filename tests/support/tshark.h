// Independent views of a capture, computed by tshark rather than by our own
// parser, so tests compare the pod with a second opinion.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace nfv::test {

// Display filter for frames whose EtherType (after any VLAN tags) is IPv4.
// IPv4 inside MPLS is not IP to the pod: it follows the port default.
inline constexpr const char* kPlainIpv4Filter = "(eth.type == 0x0800 || vlan.etype == 0x0800) && !mpls";

// 1-based frame numbers matching a display filter.
std::vector<int> tshark_frames(const std::string& pcap, const std::string& filter);

// Distinct IPv4 5-tuples (ports only for TCP/UDP first fragments).
std::set<std::string> tshark_ipv4_flows(const std::string& pcap);

// One row per frame with the values of the given fields, tab-separated.
std::vector<std::string> tshark_fields(const std::string& pcap, const std::vector<std::string>& fields,
                                       const std::string& filter = "");

}  // namespace nfv::test
