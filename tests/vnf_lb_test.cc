// lb: weighted Maglev distribution, connection affinity, replies mapped back
// to the VIP with valid checksums, and a backend marked down moves only its
// own connections.
#include <arpa/inet.h>

#include <map>
#include <random>

#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

class LoadBalancer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_lb", 8191); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }

  static constexpr const char* kServices = "10.0.0.100:80/tcp=10.1.0.1:8080,10.1.0.2:8080*2,10.1.0.3:8080*3";

  // Sends one packet of each flow; returns the backend address each went to.
  std::vector<std::string> send(Vnf& lb, const std::vector<std::pair<std::string, uint16_t>>& clients) {
    std::vector<std::string> backends;
    std::vector<rte_mbuf*> pkts;
    for (const auto& [addr, port] : clients) pkts.push_back(ipv4_packet(pool_, IPPROTO_TCP, addr, port, "10.0.0.100", 80));
    BurstResult r = run_vnf(lb, pkts);
    EXPECT_EQ(r.passed.size(), clients.size());
    for (rte_mbuf* m : r.passed) {
      backends.push_back(ipv4_text(ipv4_of(m)->dst_addr));
      EXPECT_TRUE(checksums_valid(m));
    }
    r.free_all();
    return backends;
  }
  static std::vector<std::pair<std::string, uint16_t>> random_clients(int n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::pair<std::string, uint16_t>> out;
    for (int i = 0; i < n; ++i) out.push_back({ipv4_text(htonl((100u << 24) | (rng() & 0xffffff))), static_cast<uint16_t>(1024 + rng() % 60000)});
    return out;
  }
  static rte_mempool* pool_;
};
rte_mempool* LoadBalancer::pool_ = nullptr;

TEST_F(LoadBalancer, SpreadsNewFlowsByWeight) {
  auto lb = make_vnf("lb", {{"services", kServices}, {"connections", "131072"}});
  const auto clients = random_clients(30000, 1);
  std::map<std::string, int> count;
  for (size_t at = 0; at < clients.size(); at += 1000)
    for (const auto& b : send(*lb, {clients.begin() + static_cast<long>(at), clients.begin() + static_cast<long>(at + 1000)})) count[b]++;
  ASSERT_EQ(count.size(), 3u);
  EXPECT_NEAR(count["10.1.0.1"] / 30000.0, 1 / 6.0, 0.02);
  EXPECT_NEAR(count["10.1.0.2"] / 30000.0, 2 / 6.0, 0.02);
  EXPECT_NEAR(count["10.1.0.3"] / 30000.0, 3 / 6.0, 0.02);
  EXPECT_EQ(counters(*lb)["connections"], 30000u);
}

TEST_F(LoadBalancer, KeepsConnectionsOnTheirBackendAndMapsRepliesBack) {
  auto lb = make_vnf("lb", {{"services", kServices}});
  const auto clients = random_clients(200, 2);
  const auto first = send(*lb, clients);
  EXPECT_EQ(send(*lb, clients), first);
  // The backend's reply leaves from the VIP.
  BurstResult r = run_vnf(*lb, {ipv4_packet(pool_, IPPROTO_TCP, first[0], 8080, clients[0].first, clients[0].second, Bytes(20, 1))});
  ASSERT_EQ(r.passed.size(), 1u);
  EXPECT_EQ(ipv4_text(ipv4_of(r.passed[0])->src_addr), "10.0.0.100");
  uint16_t sport;
  std::memcpy(&sport, rte_pktmbuf_mtod_offset(r.passed[0], uint8_t*, 34), 2);
  EXPECT_EQ(ntohs(sport), 80);
  EXPECT_TRUE(checksums_valid(r.passed[0]));
  r.free_all();
  EXPECT_EQ(counters(*lb)["to_client"], 1u);
}

TEST_F(LoadBalancer, BackendDownMovesOnlyItsOwnConnections) {
  auto lb = make_vnf("lb", {{"services", kServices}});
  const auto clients = random_clients(3000, 3);
  const auto before = send(*lb, clients);
  std::string reply;
  ASSERT_TRUE(lb->control("backend down 10.1.0.2:8080", reply)) << reply;
  const auto after = send(*lb, clients);
  int moved = 0;
  for (size_t i = 0; i < clients.size(); ++i) {
    if (before[i] == "10.1.0.2") {
      EXPECT_NE(after[i], "10.1.0.2");
      moved++;
    } else {
      EXPECT_EQ(after[i], before[i]) << "a connection to a healthy backend moved";
    }
  }
  EXPECT_GT(moved, 700);
  EXPECT_EQ(counters(*lb)["connections_moved"], static_cast<uint64_t>(moved));
  for (const auto& b : send(*lb, random_clients(2000, 4))) EXPECT_NE(b, "10.1.0.2");
  ASSERT_TRUE(lb->control("backend up 10.1.0.2:8080", reply)) << reply;
  int back = 0;
  for (const auto& b : send(*lb, random_clients(2000, 5))) back += b == "10.1.0.2";
  EXPECT_GT(back, 400);
  EXPECT_FALSE(lb->control("backend down 10.9.9.9:1", reply));
}

// Two services with one backend, and a client that opens a connection to
// each from the same port: the backend's replies to it have one tuple. It
// belongs to the newer connection, whatever the flow cache remembers of the
// older one; the older's ticket stops holding (the chain fast path must not
// keep repeating it).
TEST_F(LoadBalancer, AReplyTupleTwoConnectionsShareGoesToTheNewerOne) {
  for (const char* cache : {"0", "8192"}) {
    auto lb = make_vnf("lb", {{"services", "10.0.0.100:80/tcp=10.1.0.1:8080;10.0.0.200:80/tcp=10.1.0.1:8080"}, {"flow_cache", cache}});
    const auto reply_source = [&] {
      BurstResult r = run_vnf(*lb, {ipv4_packet(pool_, IPPROTO_TCP, "10.1.0.1", 8080, "192.0.2.5", 40000)});
      EXPECT_EQ(r.passed.size(), 1u);
      const std::string source = r.passed.empty() ? "" : ipv4_text(ipv4_of(r.passed[0])->src_addr);
      r.free_all();
      return source;
    };
    FlowTicketOut first_ticket;
    std::vector<rte_mbuf*> open1 = {ipv4_packet(pool_, IPPROTO_TCP, "192.0.2.5", 40000, "10.0.0.100", 80)};
    uint16_t n_dropped = 0;
    rte_mbuf* dropped[1];
    ASSERT_EQ(lb->process_with_tickets(open1.data(), 1, dropped, &n_dropped, &first_ticket), 1);
    rte_pktmbuf_free(open1[0]);
    ASSERT_TRUE(first_ticket.repeatable);
    EXPECT_EQ(reply_source(), "10.0.0.100") << "flow_cache " << cache;
    const uint32_t stamp_before = *first_ticket.ticket.stamp;
    BurstResult open2 = run_vnf(*lb, {ipv4_packet(pool_, IPPROTO_TCP, "192.0.2.5", 40000, "10.0.0.200", 80)});
    ASSERT_EQ(open2.passed.size(), 1u);
    open2.free_all();
    EXPECT_EQ(reply_source(), "10.0.0.200") << "flow_cache " << cache;
    EXPECT_EQ(reply_source(), "10.0.0.200") << "flow_cache " << cache << ", asked again (a cache hit now)";
    EXPECT_NE(*first_ticket.ticket.stamp, stamp_before) << "the older connection's ticket still holds";
  }
}

TEST_F(LoadBalancer, MaglevMovesFewNewFlowsWhenABackendLeaves) {
  // Without affinity (two fresh instances), only the removed backend's share changes hands.
  auto all = make_vnf("lb", {{"services", kServices}});
  auto minus = make_vnf("lb", {{"services", kServices}, {"down", "10.1.0.1:8080"}});
  const auto clients = random_clients(5000, 6);
  const auto a = send(*all, clients), b = send(*minus, clients);
  int changed = 0;
  for (size_t i = 0; i < clients.size(); ++i) changed += a[i] != "10.1.0.1" && a[i] != b[i];
  EXPECT_LT(changed, 5000 * 0.05) << "flows of other backends should mostly stay";
}

// In a pool of several instances, a backend's reply is steered by the hash
// of its connection's client -> VIP tuple, so it meets its connection; a
// backend shared by two services cannot say which VIP, and one instance
// alone needs no steering.
TEST_F(LoadBalancer, RepliesSteerByTheirConnectionsHash) {
  auto lb = VnfRegistry::instance().create("lb");
  VnfSettings settings;
  settings.instance_name = "lb@steer";
  settings.params = {{"services", std::string(kServices) + ";10.0.0.101:80/tcp=10.1.0.3:8080,10.1.0.9:8080"}};
  settings.slots = 3;
  lb->init(settings);
  const auto steering = lb->owner_slot();
  ASSERT_TRUE(steering);
  auto steer_hash = [&](rte_mbuf* m) {
    uint32_t hash = 0x12345678;
    EXPECT_EQ(steering->slot_of(m, hash), -1);
    rte_pktmbuf_free(m);
    return hash;
  };
  FlowKey forward{};
  const in_addr client = {inet_addr("192.0.2.5")}, vip = {inet_addr("10.0.0.100")};
  std::memcpy(forward.src_addr, &client, 4);
  std::memcpy(forward.dst_addr, &vip, 4);
  forward.src_port = 40000;
  forward.dst_port = 80;
  forward.protocol = IPPROTO_TCP;
  forward.family = AddressFamily::kIpv4;
  const uint32_t connection_hash = flow_hash(forward);
  EXPECT_EQ(steer_hash(ipv4_packet(pool_, IPPROTO_TCP, "192.0.2.5", 40000, "10.0.0.100", 80)), connection_hash);
  EXPECT_EQ(steer_hash(ipv4_packet(pool_, IPPROTO_TCP, "10.1.0.2", 8080, "192.0.2.5", 40000)), connection_hash);
  EXPECT_EQ(steer_hash(ipv4_packet(pool_, IPPROTO_TCP, "10.1.0.1", 8080, "192.0.2.5", 40000)), connection_hash);
  // 10.1.0.3:8080 serves both VIPs; other traffic keeps its own hash.
  EXPECT_EQ(steer_hash(ipv4_packet(pool_, IPPROTO_TCP, "10.1.0.3", 8080, "192.0.2.5", 40000)), 0x12345678u);
  EXPECT_EQ(steer_hash(ipv4_packet(pool_, IPPROTO_TCP, "10.1.0.2", 9999, "192.0.2.5", 40000)), 0x12345678u);
  EXPECT_EQ(steer_hash(ipv4_packet(pool_, IPPROTO_UDP, "10.1.0.2", 8080, "192.0.2.5", 40000)), 0x12345678u);
  EXPECT_FALSE(make_vnf("lb", {{"services", kServices}})->owner_slot());
}

TEST_F(LoadBalancer, PassesOtherTrafficAndRejectsBadServices) {
  auto lb = make_vnf("lb", {{"services", kServices}});
  BurstResult r = run_vnf(*lb, {ipv4_packet(pool_, IPPROTO_TCP, "1.1.1.1", 1, "10.0.0.100", 81)});
  ASSERT_EQ(r.passed.size(), 1u);
  EXPECT_EQ(ipv4_text(ipv4_of(r.passed[0])->dst_addr), "10.0.0.100");
  r.free_all();
  EXPECT_THROW(make_vnf("lb", {{"services", "10.0.0.1:80=10.1.0.1:80"}}), VnfConfigError);
  EXPECT_THROW(make_vnf("lb", {{"services", kServices}, {"table_size", "65536"}}), VnfConfigError);
}

}  // namespace
}  // namespace nfv
