// Shared by the VNF tests: create an instance from params, push a burst of
// real mbufs through it, read its counters, verify checksums by recomputing.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "packet_builder.h"
#include "packet_parser.h"
#include "vnf.h"

namespace nfv::test {

// The clock of every VNF a test makes (VnfSettings::clock), in TSC cycles:
// it stands still unless the test moves it, so what timeouts, meters and
// exports do follows the test's script, not the machine's speed.
struct ManualTsc {
  static inline std::atomic<uint64_t> now{0};
  static uint64_t read() { return now.load(std::memory_order_relaxed); }
  static void advance_ms(uint64_t ms) { now += ms * rte_get_tsc_hz() / 1000; }
};

inline std::unique_ptr<Vnf> make_vnf(const std::string& type, std::map<std::string, std::string> params) {
  static int next = 0;
  auto vnf = VnfRegistry::instance().create(type);
  VnfSettings settings;
  settings.instance_name = type + "@test" + std::to_string(next++);
  settings.params = std::move(params);
  settings.clock = &ManualTsc::read;
  vnf->init(settings);
  return vnf;
}

struct BurstResult {
  std::vector<rte_mbuf*> passed;
  std::vector<rte_mbuf*> dropped;
  void free_all() {
    for (auto* m : passed) rte_pktmbuf_free(m);
    for (auto* m : dropped) rte_pktmbuf_free(m);
    passed.clear();
    dropped.clear();
  }
};

// Runs `pkts` through `vnf` in bursts of at most kMaxVnfBurst; order is kept.
inline BurstResult run_vnf(Vnf& vnf, const std::vector<rte_mbuf*>& pkts) {
  BurstResult r;
  for (size_t at = 0; at < pkts.size(); at += kMaxVnfBurst) {
    rte_mbuf* burst[kMaxVnfBurst];
    rte_mbuf* dropped[kMaxVnfBurst];
    const uint16_t n = static_cast<uint16_t>(std::min<size_t>(kMaxVnfBurst, pkts.size() - at));
    std::copy_n(pkts.begin() + static_cast<long>(at), n, burst);
    uint16_t n_dropped = 0;
    const uint16_t kept = vnf.process(burst, n, dropped, &n_dropped);
    EXPECT_EQ(kept + n_dropped, n) << "every packet is either kept or dropped";
    r.passed.insert(r.passed.end(), burst, burst + kept);
    r.dropped.insert(r.dropped.end(), dropped, dropped + n_dropped);
  }
  return r;
}

inline std::map<std::string, uint64_t> counters(const Vnf& vnf) {
  std::map<std::string, uint64_t> out;
  vnf.visit_counters([&](const std::string& name, uint64_t value) { out[name] = value; });
  return out;
}

inline rte_ipv4_hdr* ipv4_of(rte_mbuf* m) { return rte_pktmbuf_mtod_offset(m, rte_ipv4_hdr*, 14); }

// Fills in the L4 checksum (TCP/UDP over IPv4) of a frame built without one.
inline void set_l4_checksum(rte_mbuf* m) {
  rte_ipv4_hdr* ip = ipv4_of(m);
  uint8_t* l4 = reinterpret_cast<uint8_t*>(ip) + rte_ipv4_hdr_len(ip);
  uint8_t* field = l4 + (ip->next_proto_id == IPPROTO_TCP ? 16 : 6);
  std::memset(field, 0, 2);
  const uint16_t sum = rte_ipv4_udptcp_cksum(ip, l4);
  std::memcpy(field, &sum, 2);
}

// Recomputes the IPv4 header and TCP/UDP/ICMP checksums from scratch.
inline ::testing::AssertionResult checksums_valid(rte_mbuf* m) {
  rte_ipv4_hdr* ip = ipv4_of(m);
  if (rte_ipv4_cksum(ip) != 0) return ::testing::AssertionFailure() << "bad IPv4 header checksum";
  const uint8_t* l4 = reinterpret_cast<const uint8_t*>(ip) + rte_ipv4_hdr_len(ip);
  const uint16_t l4_len = static_cast<uint16_t>(rte_be_to_cpu_16(ip->total_length) - rte_ipv4_hdr_len(ip));
  if (ip->next_proto_id == IPPROTO_TCP || ip->next_proto_id == IPPROTO_UDP) {
    if (rte_ipv4_udptcp_cksum_verify(ip, l4) != 0) return ::testing::AssertionFailure() << "bad L4 checksum";
  } else if (ip->next_proto_id == IPPROTO_ICMP) {
    if (rte_raw_cksum(l4, l4_len) != 0xffff) return ::testing::AssertionFailure() << "bad ICMP checksum";
  }
  return ::testing::AssertionSuccess();
}

inline std::string ipv4_text(uint32_t be_addr) {
  const auto* b = reinterpret_cast<const uint8_t*>(&be_addr);
  return std::to_string(b[0]) + "." + std::to_string(b[1]) + "." + std::to_string(b[2]) + "." + std::to_string(b[3]);
}

// A frame with an L4 payload of the given bytes (TCP or UDP over IPv4) and valid checksums.
inline rte_mbuf* ipv4_packet(rte_mempool* pool, uint8_t proto, const std::string& src, uint16_t sport, const std::string& dst,
                             uint16_t dport, const Bytes& payload = {}) {
  Bytes l4 = proto == IPPROTO_TCP ? tcp(sport, dport) : udp(sport, dport, 0);
  l4.insert(l4.end(), payload.begin(), payload.end());
  if (proto == IPPROTO_UDP) {
    l4[4] = static_cast<uint8_t>(l4.size() >> 8);
    l4[5] = static_cast<uint8_t>(l4.size());
  }
  rte_mbuf* m = to_mbuf(pool, concat({ethernet(0x0800), ipv4(src, dst, proto, static_cast<uint16_t>(l4.size())), l4}));
  set_l4_checksum(m);
  return m;
}

// A TCP or UDP frame over IPv6 (no extension headers, no payload).
inline rte_mbuf* ipv6_packet(rte_mempool* pool, uint8_t proto, const std::string& src, uint16_t sport, const std::string& dst,
                             uint16_t dport) {
  const Bytes l4 = proto == IPPROTO_TCP ? tcp(sport, dport) : udp(sport, dport, 4);
  return to_mbuf(pool, concat({ethernet(0x86dd), ipv6(src, dst, proto, static_cast<uint16_t>(l4.size())), l4}));
}

}  // namespace nfv::test
