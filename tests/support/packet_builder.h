// Hand-built frames in real mbufs for tests of parsing and VNFs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rte_mbuf.h>

namespace nfv::test {

using Bytes = std::vector<uint8_t>;

// Ethernet header with the given EtherType (host order).
Bytes ethernet(uint16_t ether_type);
Bytes vlan_tag(uint16_t vlan_id, uint16_t inner_ether_type);
// IPv4 header (no options) with a correct total length for payload_len and
// a valid checksum.
Bytes ipv4(const std::string& src, const std::string& dst, uint8_t proto, uint16_t payload_len, uint16_t fragment = 0);
Bytes ipv6(const std::string& src, const std::string& dst, uint8_t next_header, uint16_t payload_len);
Bytes udp(uint16_t sport, uint16_t dport, uint16_t payload_len);
Bytes tcp(uint16_t sport, uint16_t dport);

Bytes concat(std::initializer_list<Bytes> parts);

// Copies the bytes into a fresh mbuf of `pool` (one segment).
rte_mbuf* to_mbuf(rte_mempool* pool, const Bytes& bytes);
Bytes from_mbuf(const rte_mbuf* m);

// A pktmbuf pool for a test; freed by the caller with rte_mempool_free.
rte_mempool* test_pool(const std::string& name, unsigned size = 4095);

}  // namespace nfv::test
