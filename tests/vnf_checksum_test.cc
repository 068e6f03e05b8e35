// The incremental checksum update nat, lb and router use (vnfs/checksum.h),
// against a full recomputation by DPDK's rte_ipv4_cksum and
// rte_ipv4_udptcp_cksum on random headers: every rewrite of a TCP, UDP or
// ICMP endpoint leaves checksums that verify, UDP's "no checksum" stays
// zero, and a UDP sum that comes out zero is sent as 0xffff.
#include <random>

#include <gtest/gtest.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "checksum.h"

namespace nfv {
namespace {

constexpr size_t kPayload = 37;  // odd on purpose: the last byte is padded in the sum

// An IPv4 header and an L4 segment in one buffer, with valid checksums.
struct Datagram {
  alignas(8) uint8_t bytes[sizeof(rte_ipv4_hdr) + sizeof(rte_tcp_hdr) + kPayload] = {};
  uint8_t protocol = 0;

  rte_ipv4_hdr* ip() { return reinterpret_cast<rte_ipv4_hdr*>(bytes); }
  uint8_t* l4() { return bytes + sizeof(rte_ipv4_hdr); }
  size_t l4_length() const { return (protocol == IPPROTO_TCP ? sizeof(rte_tcp_hdr) : 8) + kPayload; }
  uint8_t* l4_checksum() {
    if (protocol == IPPROTO_TCP) return l4() + offsetof(rte_tcp_hdr, cksum);
    if (protocol == IPPROTO_UDP) return l4() + offsetof(rte_udp_hdr, dgram_cksum);
    return l4() + offsetof(rte_icmp_hdr, icmp_cksum);
  }
  uint16_t stored_l4_checksum() {
    uint16_t v;
    std::memcpy(&v, l4_checksum(), 2);
    return v;
  }

  // The L4 checksum as a full recomputation gives it (with its own field zeroed).
  uint16_t recomputed_l4_checksum() {
    const uint16_t saved = stored_l4_checksum();
    std::memset(l4_checksum(), 0, 2);
    uint16_t sum;
    if (protocol == IPPROTO_ICMP) {
      sum = static_cast<uint16_t>(~rte_raw_cksum(l4(), l4_length()));
    } else {
      sum = rte_ipv4_udptcp_cksum(ip(), l4());
    }
    std::memcpy(l4_checksum(), &saved, 2);
    return sum;
  }
  uint16_t recomputed_ip_checksum() {
    const uint16_t saved = ip()->hdr_checksum;
    ip()->hdr_checksum = 0;
    const uint16_t sum = rte_ipv4_cksum(ip());
    ip()->hdr_checksum = saved;
    return sum;
  }
};

Datagram random_datagram(std::mt19937& rng, uint8_t protocol) {
  Datagram d;
  d.protocol = protocol;
  for (uint8_t& b : d.bytes) b = static_cast<uint8_t>(rng());
  rte_ipv4_hdr* ip = d.ip();
  ip->version_ihl = 0x45;
  ip->fragment_offset = 0;
  ip->next_proto_id = protocol;
  ip->total_length = rte_cpu_to_be_16(static_cast<uint16_t>(sizeof(rte_ipv4_hdr) + d.l4_length()));
  if (protocol == IPPROTO_UDP) reinterpret_cast<rte_udp_hdr*>(d.l4())->dgram_len = rte_cpu_to_be_16(static_cast<uint16_t>(d.l4_length()));
  if (protocol == IPPROTO_TCP) reinterpret_cast<rte_tcp_hdr*>(d.l4())->data_off = 0x50;
  ip->hdr_checksum = d.recomputed_ip_checksum();
  const uint16_t l4 = d.recomputed_l4_checksum();
  std::memcpy(d.l4_checksum(), &l4, 2);
  return d;
}

L4Checksum kind_of(uint8_t protocol) {
  return protocol == IPPROTO_TCP ? L4Checksum::kTcp : protocol == IPPROTO_UDP ? L4Checksum::kUdp : L4Checksum::kIcmp;
}

TEST(ChecksumUpdate, EndpointRewritesMatchAFullRecomputation) {
  std::mt19937 rng(7);
  int checked = 0;
  for (const uint8_t protocol : {uint8_t{IPPROTO_TCP}, uint8_t{IPPROTO_UDP}, uint8_t{IPPROTO_ICMP}}) {
    for (int i = 0; i < 20000; ++i) {
      Datagram d = random_datagram(rng, protocol);
      const bool source = rng() & 1;
      uint8_t* addr = d.bytes + (source ? offsetof(rte_ipv4_hdr, src_addr) : offsetof(rte_ipv4_hdr, dst_addr));
      // ICMP echo: the id stands in for both ports.
      uint8_t* port = protocol == IPPROTO_ICMP ? d.l4() + offsetof(rte_icmp_hdr, icmp_ident) : d.l4() + (source ? 0 : 2);
      // Now and then an unchanged value or the extremes, where folding goes wrong first.
      const uint32_t pick = rng() % 8;
      const uint32_t new_addr = pick == 0 ? 0 : pick == 1 ? 0xffffffff : static_cast<uint32_t>(rng());
      const uint16_t new_port = pick == 2 ? 0 : pick == 3 ? 0xffff : static_cast<uint16_t>(rng());
      rewrite_endpoint(d.bytes + offsetof(rte_ipv4_hdr, hdr_checksum), addr, port, new_addr, new_port, d.l4_checksum(),
                       kind_of(protocol));
      uint32_t addr_now;
      uint16_t port_now;
      std::memcpy(&addr_now, addr, 4);
      std::memcpy(&port_now, port, 2);
      ASSERT_EQ(addr_now, new_addr);
      ASSERT_EQ(port_now, new_port);
      // One's complement has two zeros; a verifier accepts either, so compare by verification.
      ASSERT_EQ(rte_ipv4_cksum(d.ip()), 0) << "IPv4 header checksum, case " << i;
      if (protocol == IPPROTO_ICMP) {
        ASSERT_EQ(static_cast<uint16_t>(~rte_raw_cksum(d.l4(), d.l4_length())), 0) << "ICMP checksum, case " << i;
      } else {
        ASSERT_EQ(rte_ipv4_udptcp_cksum_verify(d.ip(), d.l4()), 0) << "L4 checksum, protocol " << int(protocol) << ", case " << i;
      }
      if (protocol == IPPROTO_UDP) {
        ASSERT_NE(d.stored_l4_checksum(), 0) << "a computed UDP checksum of zero must be sent as 0xffff";
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 60000);
}

TEST(ChecksumUpdate, UdpWithoutChecksumStaysWithout) {
  std::mt19937 rng(11);
  for (int i = 0; i < 1000; ++i) {
    Datagram d = random_datagram(rng, IPPROTO_UDP);
    std::memset(d.l4_checksum(), 0, 2);
    rewrite_endpoint(d.bytes + offsetof(rte_ipv4_hdr, hdr_checksum), d.bytes + offsetof(rte_ipv4_hdr, src_addr), d.l4(),
                     static_cast<uint32_t>(rng()), static_cast<uint16_t>(rng()), d.l4_checksum(), L4Checksum::kUdp);
    ASSERT_EQ(d.stored_l4_checksum(), 0);
    ASSERT_EQ(rte_ipv4_cksum(d.ip()), 0);
  }
}

// A rewrite whose new sum is exactly zero: UDP sends 0xffff (RFC 768), and
// the datagram still verifies.
TEST(ChecksumUpdate, UdpSumOfZeroIsSentAsAllOnes) {
  std::mt19937 rng(13);
  int found = 0;
  for (int i = 0; i < 2000000 && found < 20; ++i) {
    Datagram d = random_datagram(rng, IPPROTO_UDP);
    // Pick the new port that makes the one's-complement sum come out zero.
    uint16_t old_port;
    std::memcpy(&old_port, d.l4(), 2);
    const uint16_t stored = d.stored_l4_checksum();
    if (stored == 0 || stored == 0xffff) continue;
    // ~HC' = ~HC + ~m + m' = 0xffff  =>  m' = 0xffff - (~HC + ~m) in one's complement.
    uint32_t partial = static_cast<uint16_t>(~stored) + static_cast<uint16_t>(~old_port);
    partial = (partial & 0xffff) + (partial >> 16);
    const uint16_t new_port = static_cast<uint16_t>(0xffff - partial);
    uint32_t addr;
    std::memcpy(&addr, d.bytes + offsetof(rte_ipv4_hdr, src_addr), 4);
    rewrite_endpoint(d.bytes + offsetof(rte_ipv4_hdr, hdr_checksum), d.bytes + offsetof(rte_ipv4_hdr, src_addr), d.l4(), addr,
                     new_port, d.l4_checksum(), L4Checksum::kUdp);
    ASSERT_EQ(d.stored_l4_checksum(), 0xffff) << "case " << i;
    ASSERT_EQ(rte_ipv4_udptcp_cksum_verify(d.ip(), d.l4()), 0);
    ++found;
  }
  EXPECT_EQ(found, 20);
}

}  // namespace
}  // namespace nfv
