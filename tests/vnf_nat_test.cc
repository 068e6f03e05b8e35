// nat: translations both ways for TCP, UDP and ICMP echo with every checksum
// verified by recomputation, per-address port pools and their exhaustion,
// idle timeouts, and unsolicited inbound traffic.
#include <arpa/inet.h>

#include <set>

#include <rte_icmp.h>
#include <rte_tcp.h>

#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

class Nat : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_nat", 4095); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }

  std::unique_ptr<Vnf> nat(std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> p = {{"external", "203.0.113.1,203.0.113.2"}, {"internal", "192.168.0.0/16"}};
    for (auto& [k, v] : extra) p[k] = v;
    return make_vnf("nat", p);
  }
  rte_mbuf* icmp_echo(const std::string& src, const std::string& dst, uint8_t type, uint16_t id) {
    Bytes icmp = {type, 0, 0, 0, static_cast<uint8_t>(id >> 8), static_cast<uint8_t>(id), 0, 1, 'p', 'i', 'n', 'g'};
    const uint16_t sum = static_cast<uint16_t>(~rte_raw_cksum(icmp.data(), icmp.size()));
    std::memcpy(&icmp[2], &sum, 2);
    return to_mbuf(pool_, concat({ethernet(0x0800), ipv4(src, dst, IPPROTO_ICMP, static_cast<uint16_t>(icmp.size())), icmp}));
  }
  static uint16_t port_at(rte_mbuf* m, int which) {
    uint16_t p;
    std::memcpy(&p, rte_pktmbuf_mtod_offset(m, uint8_t*, 34 + 2 * which), 2);
    return ntohs(p);
  }

  static rte_mempool* pool_;
};
rte_mempool* Nat::pool_ = nullptr;

TEST_F(Nat, TranslatesTcpAndUdpBothWaysWithValidChecksums) {
  auto n = nat();
  for (uint8_t proto : {uint8_t(IPPROTO_TCP), uint8_t(IPPROTO_UDP)}) {
    BurstResult out = run_vnf(*n, {ipv4_packet(pool_, proto, "192.168.1.10", 5000, "198.51.100.7", 443, Bytes(33, 0x5a))});
    ASSERT_EQ(out.passed.size(), 1u);
    rte_mbuf* m = out.passed[0];
    const std::string ext = ipv4_text(ipv4_of(m)->src_addr);
    EXPECT_TRUE(ext == "203.0.113.1" || ext == "203.0.113.2") << ext;
    EXPECT_EQ(ipv4_text(ipv4_of(m)->dst_addr), "198.51.100.7");
    const uint16_t ext_port = port_at(m, 0);
    EXPECT_GE(ext_port, 1024);
    EXPECT_EQ(port_at(m, 1), 443);
    EXPECT_TRUE(checksums_valid(m));
    out.free_all();

    // The reply to the external address:port reaches the internal host.
    BurstResult back = run_vnf(*n, {ipv4_packet(pool_, proto, "198.51.100.7", 443, ext, ext_port, Bytes(10, 0x33))});
    ASSERT_EQ(back.passed.size(), 1u);
    m = back.passed[0];
    EXPECT_EQ(ipv4_text(ipv4_of(m)->src_addr), "198.51.100.7");
    EXPECT_EQ(ipv4_text(ipv4_of(m)->dst_addr), "192.168.1.10");
    EXPECT_EQ(port_at(m, 0), 443);
    EXPECT_EQ(port_at(m, 1), 5000);
    EXPECT_TRUE(checksums_valid(m));
    back.free_all();

    // Same inside endpoint, another destination: the mapping is reused.
    BurstResult again = run_vnf(*n, {ipv4_packet(pool_, proto, "192.168.1.10", 5000, "198.51.100.8", 80)});
    ASSERT_EQ(again.passed.size(), 1u);
    EXPECT_EQ(ipv4_text(ipv4_of(again.passed[0])->src_addr), ext);
    EXPECT_EQ(port_at(again.passed[0], 0), ext_port);
    again.free_all();
  }
  auto c = counters(*n);
  EXPECT_EQ(c["sessions"], 2u);
  EXPECT_EQ(c["translated_out"], 4u);
  EXPECT_EQ(c["translated_in"], 2u);
}

TEST_F(Nat, TranslatesIcmpEchoIdentifier) {
  auto n = nat();
  BurstResult out = run_vnf(*n, {icmp_echo("192.168.7.7", "198.51.100.1", RTE_IP_ICMP_ECHO_REQUEST, 0x1234)});
  ASSERT_EQ(out.passed.size(), 1u);
  const std::string ext = ipv4_text(ipv4_of(out.passed[0])->src_addr);
  const uint16_t id = port_at(out.passed[0], 2);  // ICMP id at L4 offset 4
  EXPECT_TRUE(checksums_valid(out.passed[0]));
  out.free_all();
  BurstResult back = run_vnf(*n, {icmp_echo("198.51.100.1", ext, RTE_IP_ICMP_ECHO_REPLY, id)});
  ASSERT_EQ(back.passed.size(), 1u);
  EXPECT_EQ(ipv4_text(ipv4_of(back.passed[0])->dst_addr), "192.168.7.7");
  EXPECT_EQ(port_at(back.passed[0], 2), 0x1234);
  EXPECT_TRUE(checksums_valid(back.passed[0]));
  back.free_all();
  // An ICMP error (not echo) is not translated: dropped and counted.
  BurstResult err = run_vnf(*n, {icmp_echo("192.168.7.7", "198.51.100.1", 3, 0)});
  EXPECT_EQ(err.dropped.size(), 1u);
  err.free_all();
  EXPECT_EQ(counters(*n)["icmp_unsupported"], 1u);
}

// External addresses with no prefix in common (nat rejects most inbound
// packets by the prefix its addresses share): replies to each still arrive,
// and a packet to an address next to them is not taken for one of ours.
TEST_F(Nat, RepliesReachExternalAddressesWithNoCommonPrefix) {
  auto n = nat({{"external", "10.9.9.9,203.0.113.77,150.0.0.1"}});
  std::set<std::string> used;
  for (int host = 1; host <= 60; ++host) {
    const std::string inside = "192.168.2." + std::to_string(host);
    BurstResult out = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, inside, 7000, "198.51.100.7", 53)});
    ASSERT_EQ(out.passed.size(), 1u);
    const std::string ext = ipv4_text(ipv4_of(out.passed[0])->src_addr);
    const uint16_t ext_port = port_at(out.passed[0], 0);
    used.insert(ext);
    out.free_all();
    BurstResult back = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.7", 53, ext, ext_port)});
    ASSERT_EQ(back.passed.size(), 1u) << ext;
    EXPECT_EQ(ipv4_text(ipv4_of(back.passed[0])->dst_addr), inside);
    back.free_all();
  }
  EXPECT_EQ(used.size(), 3u) << "the inside addresses spread over every external address";
  BurstResult stray = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.7", 53, "203.0.113.76", 1024)});
  ASSERT_EQ(stray.passed.size(), 1u);
  EXPECT_EQ(ipv4_text(ipv4_of(stray.passed[0])->dst_addr), "203.0.113.76") << "not ours: passed untouched";
  stray.free_all();
  EXPECT_EQ(counters(*n)["not_translated"], 1u);
}

TEST_F(Nat, PortPoolsArePerExternalAddressAndExhaustionIsCounted) {
  auto n = nat({{"port_min", "2000"}, {"port_max", "2003"}});
  std::set<std::pair<std::string, uint16_t>> used;
  std::vector<rte_mbuf*> pkts;
  // 4 ports x 2 addresses = 8 mappings; the 9th and 10th find no port.
  for (int i = 0; i < 10; ++i) pkts.push_back(ipv4_packet(pool_, IPPROTO_UDP, "192.168.0." + std::to_string(1 + i), 7000, "198.51.100.1", 53));
  BurstResult r = run_vnf(*n, pkts);
  EXPECT_EQ(r.passed.size(), 8u);
  EXPECT_EQ(r.dropped.size(), 2u);
  for (rte_mbuf* m : r.passed) {
    EXPECT_GE(port_at(m, 0), 2000);
    EXPECT_LE(port_at(m, 0), 2003);
    used.insert({ipv4_text(ipv4_of(m)->src_addr), port_at(m, 0)});
  }
  EXPECT_EQ(used.size(), 8u) << "no external address:port is given twice";
  r.free_all();
  EXPECT_EQ(counters(*n)["pool_exhausted"], 2u);
  // TCP has its own pools.
  BurstResult t = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_TCP, "192.168.0.1", 7000, "198.51.100.1", 80)});
  EXPECT_EQ(t.passed.size(), 1u);
  t.free_all();
}

TEST_F(Nat, UnsolicitedInboundIsDroppedAndIdleSessionsExpire) {
  auto n = nat({{"udp_timeout", "1"}, {"sessions", "64"}});
  BurstResult r = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.1", 53, "203.0.113.1", 3000)});
  EXPECT_EQ(r.dropped.size(), 1u);
  r.free_all();
  EXPECT_EQ(counters(*n)["no_session"], 1u);

  BurstResult out = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "192.168.1.1", 9000, "198.51.100.1", 53)});
  ASSERT_EQ(out.passed.size(), 1u);
  const std::string ext = ipv4_text(ipv4_of(out.passed[0])->src_addr);
  const uint16_t ext_port = port_at(out.passed[0], 0);
  out.free_all();
  ManualTsc::advance_ms(1200);
  // Bursts of unrelated traffic drive the sweep over the (small) table.
  for (int i = 0; i < 40; ++i) run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.9", 1, "198.51.100.10", 2)}).free_all();
  auto c = counters(*n);
  EXPECT_EQ(c["sessions_expired"], 1u);
  EXPECT_EQ(c["sessions"], 0u);
  BurstResult late = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.1", 53, ext, ext_port)});
  EXPECT_EQ(late.dropped.size(), 1u) << "the expired mapping no longer admits replies";
  late.free_all();
}

// An instance in slot 2 of 4 hands out only the third quarter of the ports
// (and echo ids), and the pool's reply steering names slot 2 for replies to
// them; outbound packets and other traffic are left to the flow hash.
TEST_F(Nat, InstanceTakesItsSlotsShareOfPortsAndRepliesNameItsSlot) {
  auto n = VnfRegistry::instance().create("nat");
  VnfSettings settings;
  settings.instance_name = "nat@share";
  settings.params = {{"external", "203.0.113.1"}, {"internal", "192.168.0.0/16"}, {"port_min", "1000"}, {"port_max", "1999"}};
  settings.slot = 2;
  settings.slots = 4;
  n->init(settings);
  const auto owner = n->owner_slot();
  ASSERT_TRUE(owner);
  uint32_t hash = 0;
  std::vector<rte_mbuf*> in;
  for (int i = 0; i < 300; ++i) in.push_back(ipv4_packet(pool_, IPPROTO_UDP, "192.168.1." + std::to_string(i % 250), static_cast<uint16_t>(4000 + i), "198.51.100.7", 53, Bytes(8, 1)));
  BurstResult out;
  for (size_t at = 0; at < in.size(); at += 32) {
    BurstResult part = run_vnf(*n, std::vector<rte_mbuf*>(in.begin() + at, in.begin() + std::min(in.size(), at + 32)));
    out.passed.insert(out.passed.end(), part.passed.begin(), part.passed.end());
    out.dropped.insert(out.dropped.end(), part.dropped.begin(), part.dropped.end());
  }
  EXPECT_EQ(out.passed.size(), 250u);  // the share holds 250 ports
  EXPECT_EQ(counters(*n)["pool_exhausted"], 50u);
  for (rte_mbuf* m : out.passed) {
    const uint16_t port = port_at(m, 0);
    EXPECT_GE(port, 1500);
    EXPECT_LE(port, 1749);
    EXPECT_EQ(owner->slot_of(m, hash), -1) << "outbound goes by flow hash";
  }
  out.free_all();
  for (uint16_t port : {1000, 1249, 1250, 1500, 1749, 1750, 1999}) {
    rte_mbuf* reply = ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.7", 53, "203.0.113.1", port, Bytes(8, 1));
    EXPECT_EQ(owner->slot_of(reply, hash), (port - 1000) / 250) << port;
    rte_pktmbuf_free(reply);
  }
  rte_mbuf* echo_reply = icmp_echo("198.51.100.7", "203.0.113.1", RTE_IP_ICMP_ECHO_REPLY, 1750);
  rte_mbuf* elsewhere = ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.7", 53, "203.0.113.9", 1500, Bytes(8, 1));
  rte_mbuf* below = ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.7", 53, "203.0.113.1", 999, Bytes(8, 1));
  EXPECT_EQ(owner->slot_of(echo_reply, hash), 3);
  EXPECT_EQ(owner->slot_of(elsewhere, hash), -1);
  EXPECT_EQ(owner->slot_of(below, hash), -1);
  for (rte_mbuf* m : {echo_reply, elsewhere, below}) rte_pktmbuf_free(m);
  // One instance per pool needs no steering; a range smaller than the pool is an error.
  EXPECT_FALSE(nat()->owner_slot());
  settings.slots = 2000;
  EXPECT_THROW(VnfRegistry::instance().create("nat")->init(settings), VnfConfigError);
}

// RFC 5382: once either side sends FIN (or RST), the mapping lives only for
// the transitory timeout; an open connection keeps the long one.
TEST_F(Nat, ClosedTcpConnectionsExpireAfterTheTransitoryTimeout) {
  auto n = nat({{"tcp_timeout", "3600"}, {"tcp_transitory_timeout", "1"}, {"sessions", "64"}});
  auto tcp_with_flags = [&](const std::string& src, uint8_t flags) {
    rte_mbuf* m = ipv4_packet(pool_, IPPROTO_TCP, src, 1000, "198.51.100.1", 443);
    *rte_pktmbuf_mtod_offset(m, uint8_t*, 14 + 20 + 13) = flags;
    set_l4_checksum(m);
    return m;
  };
  run_vnf(*n, {tcp_with_flags("192.168.1.1", RTE_TCP_SYN_FLAG), tcp_with_flags("192.168.1.2", RTE_TCP_SYN_FLAG),
               tcp_with_flags("192.168.1.3", RTE_TCP_SYN_FLAG)})
      .free_all();
  run_vnf(*n, {tcp_with_flags("192.168.1.1", RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG), tcp_with_flags("192.168.1.2", RTE_TCP_RST_FLAG)}).free_all();
  EXPECT_EQ(counters(*n)["tcp_closing"], 2u);
  ManualTsc::advance_ms(1200);
  for (int i = 0; i < 40; ++i) run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.9", 1, "198.51.100.10", 2)}).free_all();
  auto c = counters(*n);
  EXPECT_EQ(c["sessions_expired"], 2u);
  EXPECT_EQ(c["sessions"], 1u) << "the open connection keeps its mapping";
}

// RFC 4787 REQ-9: an inside host reaches another inside host through that
// host's external address:port; both addresses are translated, checksums hold.
TEST_F(Nat, HairpinsBetweenInsideHosts) {
  auto n = nat({{"external", "203.0.113.1"}});
  BurstResult b = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "192.168.1.20", 6000, "198.51.100.7", 53, Bytes(8, 1))});
  ASSERT_EQ(b.passed.size(), 1u);
  const uint16_t b_port = port_at(b.passed[0], 0);
  b.free_all();
  BurstResult a = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "192.168.1.10", 5000, "203.0.113.1", b_port, Bytes(8, 2))});
  ASSERT_EQ(a.passed.size(), 1u);
  rte_mbuf* m = a.passed[0];
  EXPECT_EQ(ipv4_text(ipv4_of(m)->src_addr), "203.0.113.1");
  EXPECT_NE(port_at(m, 0), 5000);
  EXPECT_EQ(ipv4_text(ipv4_of(m)->dst_addr), "192.168.1.20");
  EXPECT_EQ(port_at(m, 1), 6000);
  EXPECT_TRUE(checksums_valid(m));
  a.free_all();
  // To an external port no inside host owns: dropped, not sent out to ourselves.
  BurstResult none = run_vnf(*n, {ipv4_packet(pool_, IPPROTO_UDP, "192.168.1.10", 5000, "203.0.113.1", 1, Bytes(8, 2))});
  EXPECT_EQ(none.dropped.size(), 1u);
  none.free_all();
  auto c = counters(*n);
  EXPECT_EQ(c["hairpinned"], 1u);
  EXPECT_EQ(c["hairpin_no_session"], 1u);
}

TEST_F(Nat, RejectsBadParams) {
  EXPECT_THROW(make_vnf("nat", {{"internal", "10.0.0.0/8"}}), VnfConfigError);
  EXPECT_THROW(make_vnf("nat", {{"external", "1.2.3"}, {"internal", "10.0.0.0/8"}}), VnfConfigError);
  EXPECT_THROW(make_vnf("nat", {{"external", "1.2.3.4"}, {"internal", "2001:db8::/32"}}), VnfConfigError);
  EXPECT_THROW(make_vnf("nat", {{"external", "1.2.3.4"}, {"internal", "10.0.0.0/8"}, {"port_min", "0"}}), VnfConfigError);
}

}  // namespace
}  // namespace nfv
