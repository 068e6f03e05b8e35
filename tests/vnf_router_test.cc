// router: LPM against a brute-force longest match on random nested routes,
// next-hop MAC rewrite, TTL decrement with a valid checksum, expired TTLs
// dropped and counted, IPv6 routes and hop limits, 100,000 routes.
#include <arpa/inet.h>

#include <fstream>
#include <random>

#include <rte_ether.h>

#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

class Router : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_router", 16383); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }
  static std::string write(const std::string& text) {
    const std::string path = "/tmp/nfv_routes_" + std::to_string(getpid()) + "_" + std::to_string(files_++) + ".txt";
    std::ofstream(path) << text;
    return path;
  }
  static std::string dst_mac(rte_mbuf* m) {
    char text[RTE_ETHER_ADDR_FMT_SIZE];
    rte_ether_format_addr(text, sizeof(text), &rte_pktmbuf_mtod(m, rte_ether_hdr*)->dst_addr);
    return text;
  }
  static rte_mempool* pool_;
  static int files_;
};
rte_mempool* Router::pool_ = nullptr;
int Router::files_ = 0;

TEST_F(Router, LongestPrefixMatchAgreesWithBruteForceOnRandomRoutes) {
  std::mt19937 rng(11);
  struct Route {
    uint32_t net, len;
    int hop;
  };
  std::vector<Route> routes;
  std::string text;
  // Addresses from 10.0.0.0/14 so prefixes nest at every length.
  for (int i = 0; i < 5000; ++i) {
    Route r;
    r.len = 8 + rng() % 25;
    r.net = ((10u << 24) | (rng() & 0x3ffffu)) & (r.len == 32 ? ~0u : ~((1u << (32 - r.len)) - 1));
    r.hop = static_cast<int>(rng() % 32);
    routes.push_back(r);
    char mac[32];
    std::snprintf(mac, sizeof(mac), "02:00:00:00:01:%02x", r.hop);
    text += ipv4_text(htonl(r.net)) + "/" + std::to_string(r.len) + " " + mac + "\n";
  }
  auto router = make_vnf("router", {{"routes_file", write(text)}});
  int routed = 0;
  for (int i = 0; i < 3000; ++i) {
    const uint32_t dst = (rng() % 8 == 0) ? rng() : ((10u << 24) | (rng() & 0x3ffffu));
    int best_len = -1, best_hop = -1;
    for (const Route& r : routes) {
      const bool in = r.len == 0 || (dst >> (32 - r.len)) == (r.net >> (32 - r.len));
      if (in && static_cast<int>(r.len) >= best_len) {  // a later duplicate replaces the earlier one
        best_len = static_cast<int>(r.len);
        best_hop = r.hop;
      }
    }
    BurstResult res = run_vnf(*router, {ipv4_packet(pool_, IPPROTO_UDP, "172.16.0.1", 1, ipv4_text(htonl(dst)), 2)});
    if (best_hop < 0) {
      EXPECT_EQ(res.dropped.size(), 1u) << ipv4_text(htonl(dst));
    } else {
      ASSERT_EQ(res.passed.size(), 1u) << ipv4_text(htonl(dst));
      char mac[32];
      std::snprintf(mac, sizeof(mac), "02:00:00:00:01:%02X", best_hop);
      EXPECT_EQ(dst_mac(res.passed[0]), mac) << ipv4_text(htonl(dst));
      routed++;
    }
    res.free_all();
  }
  EXPECT_GT(routed, 1000);
  EXPECT_EQ(counters(*router)["forwarded"], static_cast<uint64_t>(routed));
}

TEST_F(Router, DecrementsTtlWithValidChecksumAndDropsExpiredPackets) {
  auto router = make_vnf("router", {{"routes_file", write("0.0.0.0/0 02:aa:00:00:00:01\n2001:db8::/32 02:bb:00:00:00:02\n")},
                                    {"src_mac", "02:00:00:00:00:fe"}});
  rte_mbuf* ok = ipv4_packet(pool_, IPPROTO_TCP, "10.0.0.1", 1, "192.0.2.1", 2);
  rte_mbuf* expiring = ipv4_packet(pool_, IPPROTO_TCP, "10.0.0.1", 1, "192.0.2.1", 2);
  ipv4_of(expiring)->time_to_live = 1;
  ipv4_of(expiring)->hdr_checksum = 0;
  ipv4_of(expiring)->hdr_checksum = rte_ipv4_cksum(ipv4_of(expiring));
  const Bytes u = udp(1, 2, 4);
  rte_mbuf* v6 = to_mbuf(pool_, concat({ethernet(0x86dd), ipv6("2001:db9::1", "2001:db8::9", 17, 12), u}));
  rte_mbuf* v6_unrouted = to_mbuf(pool_, concat({ethernet(0x86dd), ipv6("2001:db9::1", "2001:db9::9", 17, 12), u}));
  BurstResult r = run_vnf(*router, {ok, expiring, v6, v6_unrouted});
  ASSERT_EQ(r.passed.size(), 2u);
  EXPECT_EQ(ipv4_of(r.passed[0])->time_to_live, 63);
  EXPECT_TRUE(checksums_valid(r.passed[0]));
  EXPECT_EQ(dst_mac(r.passed[0]), "02:AA:00:00:00:01");
  char src[RTE_ETHER_ADDR_FMT_SIZE];
  rte_ether_format_addr(src, sizeof(src), &rte_pktmbuf_mtod(r.passed[0], rte_ether_hdr*)->src_addr);
  EXPECT_STREQ(src, "02:00:00:00:00:FE");
  EXPECT_EQ(rte_pktmbuf_mtod_offset(r.passed[1], rte_ipv6_hdr*, 14)->hop_limits, 63);
  EXPECT_EQ(dst_mac(r.passed[1]), "02:BB:00:00:00:02");
  r.free_all();
  auto c = counters(*router);
  EXPECT_EQ(c["ttl_expired"], 1u);
  EXPECT_EQ(c["no_route"], 1u);
  EXPECT_EQ(c["forwarded"], 2u);
}

TEST_F(Router, LoadsOneHundredThousandRoutes) {
  auto router = make_vnf("router", {{"random_routes", "100000"}});
  EXPECT_EQ(counters(*router)["routes"], 100000u);
}

TEST_F(Router, RouteFileErrorsNameFileAndLine) {
  const std::string path = write("10.0.0.0/8 02:00:00:00:00:01\n10.0.0.0/8 02:00:00:00:01\n");
  try {
    make_vnf("router", {{"routes_file", path}});
    FAIL();
  } catch (const VnfConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nfv
