// IPv6 in every VNF, as docs/vnfs.md says: the firewall classifies on the
// transport header behind extension headers, the IDS scans the payload
// behind them, the monitor and the rate limiter keep IPv6 flows, the NAT and
// the lb (IPv4 only) pass IPv6 unchanged and count it.
#include <fstream>
#include <sstream>

#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

class Ipv6 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_ipv6", 2047); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }

  // UDP over IPv6 behind a hop-by-hop options header, with the given payload.
  rte_mbuf* udp6(uint16_t dport, const std::string& payload) {
    const Bytes hop_by_hop = {17, 0, 1, 4, 0, 0, 0, 0};
    Bytes u = udp(40000, dport, 0);
    u.insert(u.end(), payload.begin(), payload.end());
    u[4] = static_cast<uint8_t>(u.size() >> 8);
    u[5] = static_cast<uint8_t>(u.size());
    return to_mbuf(pool_, concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8:2::2", 0, static_cast<uint16_t>(8 + u.size())),
                                  hop_by_hop, u}));
  }
  static std::string write(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/nfv_ipv6_" + std::to_string(getpid()) + "_" + name;
    std::ofstream(path) << text;
    return path;
  }
  static rte_mempool* pool_;
};
rte_mempool* Ipv6::pool_ = nullptr;

TEST_F(Ipv6, FirewallMatchesPortsBehindExtensionHeaders) {
  auto fw = make_vnf("firewall", {{"rules_file", write("fw", "allow udp 2001:db8::/48 2001:db8:2::/48 any 53\n")}});
  BurstResult r = run_vnf(*fw, {udp6(53, "q"), udp6(54, "q")});
  EXPECT_EQ(r.passed.size(), 1u);
  EXPECT_EQ(r.dropped.size(), 1u);
  r.free_all();
}

TEST_F(Ipv6, IdsScansThePayloadBehindExtensionHeaders) {
  auto ids = make_vnf("ids", {{"signatures_file", write("sigs", "5 alert \"evil6\"\n")}});
  run_vnf(*ids, {udp6(53, "xxevil6xx"), udp6(53, "benign")}).free_all();
  auto c = counters(*ids);
  EXPECT_EQ(c["alerts_sid_5"], 1u);
  EXPECT_EQ(c["payload_bytes_scanned"], 15u);
}

TEST_F(Ipv6, MonitorReportsIpv6Flows) {
  auto monitor = make_vnf("monitor", {{"export_interval_ms", "1"}});
  run_vnf(*monitor, {udp6(53, "a"), udp6(53, "bb")}).free_all();
  ManualTsc::advance_ms(2);
  run_vnf(*monitor, {udp6(53, "ccc")}).free_all();
  std::string reply;
  ASSERT_TRUE(monitor->control("top", reply));
  EXPECT_NE(reply.find("\n1 17 2001:db8::1 40000 2001:db8:2::2 53 3 "), std::string::npos) << reply;
}

TEST_F(Ipv6, RateLimiterMetersIpv6) {
  auto rl = make_vnf("ratelimit", {{"per", "flow"}, {"cir", "1000"}, {"cbs", "200"}});
  BurstResult r = run_vnf(*rl, {udp6(53, "a"), udp6(53, "a"), udp6(53, "a"), udp6(53, "a")});
  r.free_all();
  auto c = counters(*rl);
  EXPECT_EQ(c["flows"], 1u);
  EXPECT_EQ(c["green"], 2u);  // 71-byte frames in a 200-byte bucket
  EXPECT_EQ(c["red"], 2u);
}

TEST_F(Ipv6, NatAndLbPassIpv6Unchanged) {
  auto nat = make_vnf("nat", {{"external", "203.0.113.1"}, {"internal", "10.0.0.0/8"}});
  auto lb = make_vnf("lb", {{"services", "10.0.0.1:53/udp=10.1.0.1:53"}});
  for (Vnf* v : {nat.get(), lb.get()}) {
    rte_mbuf* m = udp6(53, "x");
    const Bytes before = from_mbuf(m);
    BurstResult r = run_vnf(*v, {m});
    ASSERT_EQ(r.passed.size(), 1u);
    EXPECT_EQ(from_mbuf(r.passed[0]), before);
    r.free_all();
  }
  EXPECT_EQ(counters(*nat)["ipv6_passed"], 1u);
  EXPECT_EQ(counters(*lb)["not_vip"], 1u);
}

}  // namespace
}  // namespace nfv
