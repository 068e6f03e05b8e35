// The flow caches in front of nat's and lb's rte_hash tables and the
// firewall's rte_acl change no packet: a NAT, LB or firewall whose cache has
// a single slot or bucket (flows collide all the time) or none at all treats
// every packet exactly as one with the default cache, through session and
// connection expiry, reuse of freed table positions and backend moves, with
// the same counters; and the default cache does answer the flows it has seen.
#include <arpa/inet.h>

#include <fstream>
#include <map>
#include <random>

#include "flow_cache.h"
#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

// One VNF per cache size: none, one slot (a firewall: one bucket), the default.
const std::vector<std::string> kCacheSizes = {"0", "1", std::to_string(kDefaultFlowCacheSlots)};

class FlowCacheTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_flow_cache", 8191); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }

  void make(const std::string& type, std::map<std::string, std::string> params) {
    for (const std::string& slots : kCacheSizes) {
      params["flow_cache"] = slots;
      vnfs_.push_back(make_vnf(type, params));
    }
  }

  // Sends the packets `make_packet(k)` for k in [0, n) through every VNF;
  // expects the same outcome per packet from each and returns the outcomes.
  template <typename MakePacket>
  std::vector<std::string> send(int n, MakePacket&& make_packet) {
    const auto outcomes = send_each(n, make_packet);
    for (size_t v = 0; v + 1 < outcomes.size(); ++v)
      EXPECT_EQ(outcomes[v], outcomes.back()) << "flow_cache " << kCacheSizes[v] << " vs the default";
    return outcomes.back();
  }

  // The same, each VNF's outcomes (by VNF) without comparing them.
  template <typename MakePacket>
  std::vector<std::vector<std::string>> send_each(int n, MakePacket&& make_packet) {
    std::vector<std::vector<std::string>> outcomes;
    for (auto& vnf : vnfs_) {
      std::vector<rte_mbuf*> pkts;
      for (int k = 0; k < n; ++k) pkts.push_back(make_packet(k));
      BurstResult r = run_vnf(*vnf, pkts);
      std::vector<std::string> seen;
      // run_vnf keeps order among survivors; a dropped packet shows as a gap.
      size_t next = 0;
      for (rte_mbuf* m : pkts) {
        if (next < r.passed.size() && r.passed[next] == m) {
          seen.push_back(describe(m));
          if (seen.back() != kIpv6Frame) {
            EXPECT_TRUE(checksums_valid(m));
          }
          ++next;
        } else {
          seen.push_back("dropped");
        }
      }
      r.free_all();
      outcomes.push_back(seen);
    }
    return outcomes;
  }

  static constexpr const char* kIpv6Frame = "an IPv6 frame";  // passed on as it came
  static std::string describe(rte_mbuf* m) {
    if (rte_pktmbuf_mtod_offset(m, uint8_t*, 12)[0] == 0x86) return kIpv6Frame;
    uint16_t ports[2];
    std::memcpy(ports, rte_pktmbuf_mtod_offset(m, uint8_t*, 34), 4);
    return ipv4_text(ipv4_of(m)->src_addr) + ":" + std::to_string(ntohs(ports[0])) + ">" + ipv4_text(ipv4_of(m)->dst_addr) +
           ":" + std::to_string(ntohs(ports[1]));
  }
  static std::pair<std::string, uint16_t> endpoint(const std::string& text, bool source) {
    const size_t arrow = text.find('>');
    const std::string side = source ? text.substr(0, arrow) : text.substr(arrow + 1);
    const size_t colon = side.find(':');
    return {side.substr(0, colon), static_cast<uint16_t>(std::stoi(side.substr(colon + 1)))};
  }
  uint64_t counter(size_t vnf, const std::string& name) { return counters(*vnfs_[vnf])[name]; }

  // Every counter but the caches' own agrees with the default cache's VNF.
  void expect_same_counters() {
    auto without_cache = [](std::map<std::string, uint64_t> c) {
      c.erase("flow_cache_hits");
      c.erase("flow_cache_misses");
      return c;
    };
    for (size_t v = 0; v + 1 < vnfs_.size(); ++v)
      EXPECT_EQ(without_cache(counters(*vnfs_[v])), without_cache(counters(*vnfs_.back()))) << "flow_cache " << kCacheSizes[v];
  }

  std::vector<std::unique_ptr<Vnf>> vnfs_;
  static rte_mempool* pool_;
};
rte_mempool* FlowCacheTest::pool_ = nullptr;

TEST_F(FlowCacheTest, NatTranslatesAlikeThroughExpiryAndReusedPositions) {
  make("nat", {{"external", "203.0.113.1,203.0.113.2"}, {"internal", "192.168.0.0/16"}, {"udp_timeout", "1"}, {"sessions", "64"}});
  auto inside = [](int base) {
    return [base](int k) { return ipv4_packet(pool_, IPPROTO_UDP, "192.168.1." + std::to_string(base + k), 4000, "198.51.100.7", 53); };
  };
  const auto first = send(40, inside(1));
  EXPECT_EQ(send(40, inside(1)), first) << "a session keeps its mapping";
  // Replies to each mapping reach the inside host.
  const auto replies = send(40, [&](int k) {
    const auto [addr, port] = endpoint(first[k], true);
    return ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.7", 53, addr, port);
  });
  for (int k = 0; k < 40; ++k) EXPECT_EQ(replies[k], "198.51.100.7:53>192.168.1." + std::to_string(1 + k) + ":4000");

  ManualTsc::advance_ms(1200);
  // Unrelated bursts drive the sweep over the (small) table: every session expires.
  for (int i = 0; i < 40; ++i) send(1, [](int) { return ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.9", 1, "198.51.100.10", 2); });
  for (size_t v = 0; v < vnfs_.size(); ++v) EXPECT_EQ(counter(v, "sessions_expired"), 40u);

  // New flows take the freed table positions (and ports); then the old
  // flows come back as new sessions. Cached positions now hold other keys.
  // Which freed port a new flow gets follows the order the sweep released
  // them in, which starts where each VNF's time-paced sweep stood: each
  // VNF is checked against its own mappings, not the others'.
  const auto fresh = send_each(40, inside(101));
  const auto back = send_each(40, inside(1));
  const auto late_replies = send_each(40, [&](int k) {
    const auto [addr, port] = endpoint(first[k], true);
    return ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.7", 53, addr, port);
  });
  for (size_t v = 0; v < vnfs_.size(); ++v) {
    std::map<std::pair<std::string, uint16_t>, std::string> owner;  // external endpoint -> the inside host that has it now
    // The session table (64) runs full: the same packets are dropped by each VNF.
    const auto dropped = [](const std::vector<std::string>& outcomes) {
      std::vector<bool> d;
      for (const auto& o : outcomes) d.push_back(o == "dropped");
      return d;
    };
    EXPECT_EQ(dropped(fresh[v]), dropped(fresh.back()));
    EXPECT_EQ(dropped(back[v]), dropped(back.back()));
    for (int k = 0; k < 40; ++k) {
      if (fresh[v][k] != "dropped") {
        EXPECT_TRUE(owner.emplace(endpoint(fresh[v][k], true), "192.168.1." + std::to_string(101 + k)).second) << "an endpoint given twice";
      }
      if (back[v][k] != "dropped") {
        EXPECT_TRUE(owner.emplace(endpoint(back[v][k], true), "192.168.1." + std::to_string(1 + k)).second) << "an endpoint given twice";
      }
    }
    for (int k = 0; k < 40; ++k) {
      const auto it = owner.find(endpoint(first[k], true));
      const std::string expected = it == owner.end() ? "dropped" : "198.51.100.7:53>" + it->second + ":4000";
      EXPECT_EQ(late_replies[v][k], expected) << "flow_cache " << kCacheSizes[v] << ": a reply to a port given out again";
    }
  }
  expect_same_counters();
  EXPECT_EQ(counter(0, "flow_cache_hits"), 0u);
  EXPECT_GE(counter(2, "flow_cache_hits"), 40u) << "the second round of the first flows";
  EXPECT_GT(counter(1, "flow_cache_misses"), counter(2, "flow_cache_misses"));
}

TEST_F(FlowCacheTest, FirewallDecidesAlikeForEveryFlow) {
  const std::string rules = "/tmp/nfv_fw_cache_rules_" + std::to_string(getpid()) + ".txt";
  std::ofstream(rules) << "allow tcp 10.0.0.0/24 any any 22\n"
                          "deny tcp 10.0.0.0/8 any any 22\n"
                          "allow udp any any any 53\n"
                          "deny udp 10.1.0.0/16 any 1000-2000 any\n"
                          "allow any any 10.2.0.0/16 any any\n"
                          "deny any 2001:db8::/32 any any any\n"
                          "allow tcp any any any 80-81\n";
  make("firewall", {{"rules_file", rules}, {"default", "deny"}});
  // 288 IPv4 flows, so bursts repeat flows (also within a burst) and the
  // one-bucket cache keeps evicting; one frame in ten is IPv6 (not cached).
  struct Frame {
    bool ipv6;
    uint8_t proto;
    uint16_t sport, dport;
    std::string src, dst;
  };
  std::mt19937 rng(7);
  const uint16_t ports[] = {22, 53, 80, 81, 1500, 3000};
  int passed = 0, total = 0;
  for (int round = 0; round < 6; ++round) {
    std::vector<Frame> frames;
    for (int k = 0; k < 500; ++k) {
      Frame f{rng() % 10 == 0, static_cast<uint8_t>(rng() % 2 ? IPPROTO_TCP : IPPROTO_UDP),
              static_cast<uint16_t>(rng() % 2 ? 1500 : 40000), ports[rng() % 6], "", ""};
      if (f.ipv6) {
        f.src = rng() % 2 ? "2001:db8::1" : "2001:dead::1";
        f.dst = "2001:db8:1::1";
      } else {
        f.src = "10." + std::to_string(rng() % 3) + ".0." + std::to_string(1 + rng() % 2);
        f.dst = "10." + std::to_string(1 + rng() % 2) + ".0.1";
      }
      frames.push_back(f);
    }
    const auto outcomes = send(500, [&](int k) -> rte_mbuf* {
      const Frame& f = frames[static_cast<size_t>(k)];
      if (f.ipv6) return ipv6_packet(pool_, f.proto, f.src, f.sport, f.dst, f.dport);
      return ipv4_packet(pool_, f.proto, f.src, f.sport, f.dst, f.dport);
    });
    for (const std::string& outcome : outcomes) {
      passed += outcome != "dropped";
      ++total;
    }
  }
  std::remove(rules.c_str());
  EXPECT_GT(passed, total / 5);
  EXPECT_LT(passed, total * 4 / 5) << "the rules deny some flows";
  expect_same_counters();
  EXPECT_EQ(counter(0, "flow_cache_hits"), 0u);
  EXPECT_GT(counter(1, "flow_cache_misses"), counter(2, "flow_cache_misses")) << "one bucket evicts";
  EXPECT_LT(counter(2, "flow_cache_misses"), 2 * 288u) << "about one miss per flow";
  EXPECT_GT(counter(2, "flow_cache_hits"), 2000u);
}

TEST_F(FlowCacheTest, LbBalancesAlikeThroughBackendMoves) {
  make("lb", {{"services", "10.0.0.100:80/tcp=10.1.0.1:8080,10.1.0.2:8080*2,10.1.0.3:8080*3"}});
  auto client = [](int k) {
    return ipv4_packet(pool_, IPPROTO_TCP, "100.0." + std::to_string(k / 200) + "." + std::to_string(k % 200 + 1),
                       static_cast<uint16_t>(2000 + k), "10.0.0.100", 80);
  };
  const int n = 600;
  const auto before = send(n, client);
  EXPECT_EQ(send(n, client), before);
  std::string reply;
  for (auto& vnf : vnfs_) ASSERT_TRUE(vnf->control("backend down 10.1.0.2:8080", reply)) << reply;
  const auto after = send(n, client);
  int moved = 0;
  for (int k = 0; k < n; ++k) moved += after[k] != before[k];
  EXPECT_GT(moved, 100);
  // Replies from the backend each connection had before: those that moved
  // are no longer the lb's (their reply tuple changed) and pass untouched.
  const auto replies = send(n, [&](int k) {
    const auto [client_addr, client_port] = endpoint(before[k], true);
    const auto [backend, port] = endpoint(before[k], false);
    return ipv4_packet(pool_, IPPROTO_TCP, backend, port, client_addr, client_port);
  });
  int to_vip = 0;
  for (int k = 0; k < n; ++k) to_vip += replies[k].rfind("10.0.0.100:80>", 0) == 0;
  EXPECT_EQ(to_vip, n - moved);
  for (auto& vnf : vnfs_) ASSERT_TRUE(vnf->control("backend up 10.1.0.2:8080", reply)) << reply;
  EXPECT_EQ(send(n, client), after) << "connections stay where they moved";
  expect_same_counters();
  EXPECT_EQ(counter(0, "flow_cache_hits"), 0u);
  EXPECT_GE(counter(2, "flow_cache_hits"), static_cast<uint64_t>(n)) << "the second round";
}

TEST_F(FlowCacheTest, LbOpensNewConnectionsAfterExpiry) {
  make("lb", {{"services", "10.0.0.100:80/udp=10.1.0.1:8080,10.1.0.2:8080"}, {"conn_timeout", "1"}, {"connections", "64"}});
  auto client = [](int k) { return ipv4_packet(pool_, IPPROTO_UDP, "100.0.0." + std::to_string(k + 1), 5000, "10.0.0.100", 80); };
  const auto first = send(40, client);
  ManualTsc::advance_ms(1200);
  // Unrelated bursts drive the sweep over the (small) table: every connection expires.
  for (int i = 0; i < 40; ++i) send(1, [](int) { return ipv4_packet(pool_, IPPROTO_UDP, "198.51.100.9", 1, "198.51.100.10", 2); });
  for (size_t v = 0; v < vnfs_.size(); ++v) EXPECT_EQ(counter(v, "connections_expired"), 40u);
  // Cached positions still name the expired connections' records.
  send(40, client);
  expect_same_counters();
  EXPECT_EQ(counter(2, "connections_created"), 80u);
  EXPECT_EQ(counter(2, "connections"), 40u);
}

}  // namespace
}  // namespace nfv
