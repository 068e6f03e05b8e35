// monitor: exact per-flow counters and first/last-seen times, and the top-k
// heavy hitters among many small flows, read through the "top" request.
#include <sstream>

#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

class Monitor : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_monitor", 8191); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }

 public:
  static rte_mempool* pool_;
};
rte_mempool* Monitor::pool_ = nullptr;

struct TopLine {
  int rank, proto;
  std::string src, dst;
  int sport, dport;
  uint64_t packets, bytes, first_ns, last_ns, estimate;
};

std::vector<TopLine> read_top(Vnf& monitor) {
  std::string reply;
  EXPECT_TRUE(monitor.control("top", reply));
  std::istringstream in(reply);
  std::string line;
  std::getline(in, line);  // flows N ...
  std::getline(in, line);  // header
  std::vector<TopLine> out;
  while (std::getline(in, line)) {
    TopLine t;
    std::istringstream f(line);
    f >> t.rank >> t.proto >> t.src >> t.sport >> t.dst >> t.dport >> t.packets >> t.bytes >> t.first_ns >> t.last_ns >> t.estimate;
    out.push_back(t);
  }
  return out;
}

TEST_F(Monitor, ReportsHeavyHittersWithExactFlowCounters) {
  // Taken before the monitor starts: it dates flows from its own start
  // (creating its table took over 1 ms on a loaded machine).
  const auto start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto monitor = make_vnf("monitor", {{"top_k", "5"}, {"export_interval_ms", "1"}, {"sketch_width", "1024"}});
  // 5 heavy flows of 40 x 1000-byte payloads among 2000 flows of one small packet.
  std::vector<rte_mbuf*> pkts;
  for (int round = 0; round < 40; ++round) {
    for (int h = 0; h < 5; ++h) pkts.push_back(ipv4_packet(pool_, IPPROTO_UDP, "10.9.0." + std::to_string(h + 1), 5000, "10.8.0.1", 443, Bytes(1000 + h * 10, 1)));
    for (int s = 0; s < 50; ++s) pkts.push_back(ipv4_packet(pool_, IPPROTO_TCP, "10.7." + std::to_string(round) + "." + std::to_string(s), 1000, "10.8.0.1", 80));
    run_vnf(*monitor, pkts).free_all();
    pkts.clear();
  }
  ManualTsc::advance_ms(3);
  // The export: the bytes of the 1956 flows counted since the first
  // burst's export into the sketch, then their ranks, at most 1024 flows a
  // step per burst: published at the 4th burst.
  const int triggers = 6;
  for (int i = 0; i < triggers; ++i) run_vnf(*monitor, {ipv4_packet(pool_, IPPROTO_TCP, "10.6.0.1", 1, "10.8.0.1", 80)}).free_all();
  const auto top = read_top(*monitor);
  ASSERT_EQ(top.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const int h = 4 - i;  // larger payloads rank first
    EXPECT_EQ(top[i].src, "10.9.0." + std::to_string(h + 1));
    EXPECT_EQ(top[i].sport, 5000);
    EXPECT_EQ(top[i].dport, 443);
    EXPECT_EQ(top[i].proto, 17);
    EXPECT_EQ(top[i].packets, 40u);
    EXPECT_EQ(top[i].bytes, 40u * (14 + 20 + 8 + 1000 + h * 10));
    EXPECT_GE(top[i].estimate, top[i].bytes) << "a count-min estimate never undercounts";
    EXPECT_GE(top[i].first_ns, static_cast<uint64_t>(start_ns) - 1000000);
    EXPECT_GE(top[i].last_ns, top[i].first_ns);
  }
  auto c = counters(*monitor);
  EXPECT_EQ(c["flows"], 5u + 2000u + 1u);
  EXPECT_EQ(c["packets"], 40u * 55u + triggers);
}

// n 100-byte UDP packets of the flow from `src`, in one burst.
void send_udp(Vnf& monitor, const std::string& src, int n) {
  std::vector<rte_mbuf*> pkts;
  for (int i = 0; i < n; ++i) pkts.push_back(ipv4_packet(Monitor::pool_, IPPROTO_UDP, src, 1000, "10.9.9.9", 53, Bytes(100, 1)));
  run_vnf(monitor, pkts).free_all();
}

// Flows idle for longer than flow_timeout end: their records leave the
// table and the heavy hitters, and a flow that comes back starts afresh.
TEST_F(Monitor, IdleFlowsExpireAndLeaveTheHeavyHitters) {
  auto monitor = make_vnf("monitor", {{"flows", "64"}, {"flow_timeout", "1"}, {"top_k", "2"}, {"export_interval_ms", "1"}});
  auto packets_of = [&](const std::string& src, int n) { send_udp(*monitor, src, n); };
  packets_of("10.0.0.1", 10);
  packets_of("10.0.0.2", 5);
  packets_of("10.0.0.3", 1);
  EXPECT_EQ(counters(*monitor)["flows"], 3u);
  ManualTsc::advance_ms(1200);
  // A fresh flow's bursts drive the sweep over the small table.
  for (int i = 0; i < 40; ++i) packets_of("10.0.0.4", 1);
  ManualTsc::advance_ms(5);
  packets_of("10.0.0.4", 1);  // publishes a snapshot taken after the sweep
  auto c = counters(*monitor);
  EXPECT_EQ(c["flows"], 1u);
  EXPECT_EQ(c["flows_expired"], 3u);
  auto top = read_top(*monitor);
  ASSERT_EQ(top.size(), 1u) << "expired flows still among the heavy hitters";
  EXPECT_EQ(top[0].src, "10.0.0.4");
  EXPECT_EQ(top[0].packets, 41u);
  packets_of("10.0.0.1", 1);
  ManualTsc::advance_ms(5);
  packets_of("10.0.0.4", 1);  // publishes the snapshot
  top = read_top(*monitor);
  ASSERT_EQ(top.size(), 2u);
  for (const TopLine& t : top)
    if (t.src == "10.0.0.1") {
      EXPECT_EQ(t.packets, 1u) << "a returning flow starts a new record";
    }
  EXPECT_EQ(counters(*monitor)["flows"], 2u);
}

// The sketch takes a flow's bytes at each export, one add per flow. A flow
// that expires between exports keeps its bytes in the sketch (which never
// forgets), so the same flow back again is estimated at all its bytes,
// counted once each: its new record counts only the new packet.
TEST_F(Monitor, BytesOfAFlowThatExpiredBeforeAnExportStayInTheSketch) {
  auto monitor = make_vnf("monitor", {{"flows", "64"}, {"flow_timeout", "5"}, {"top_k", "4"}, {"export_interval_ms", "10000"}});
  auto packets_of = [&](const std::string& src, int n) { send_udp(*monitor, src, n); };
  const uint64_t frame = 14 + 20 + 8 + 100;
  packets_of("10.0.0.1", 10);  // exported at once (the first burst exports); the next 10 wait for the next export
  packets_of("10.0.0.1", 10);
  ManualTsc::advance_ms(6000);
  for (int i = 0; i < 40; ++i) packets_of("10.0.0.4", 1);  // drive the sweep: 10.0.0.1 expires unexported
  ASSERT_EQ(counters(*monitor)["flows_expired"], 1u);
  packets_of("10.0.0.1", 1);  // back, as a new record
  ManualTsc::advance_ms(4000);  // neither flow idle past its timeout
  packets_of("10.0.0.4", 1);  // exports
  const auto top = read_top(*monitor);
  ASSERT_EQ(top.size(), 2u);
  for (const TopLine& t : top) {
    if (t.src == "10.0.0.1") {
      EXPECT_EQ(t.packets, 1u) << "a returning flow starts a new record";
      EXPECT_EQ(t.estimate, 21 * frame) << "every byte of the flow in the sketch, each once";
    } else {
      EXPECT_EQ(t.src, "10.0.0.4");
      EXPECT_EQ(t.packets, 41u);
      EXPECT_EQ(t.estimate, 41 * frame);
    }
  }
}

TEST_F(Monitor, PassesEverythingAndCountsNonIp) {
  auto monitor = make_vnf("monitor", {});
  BurstResult r = run_vnf(*monitor, {to_mbuf(pool_, concat({ethernet(0x0806), Bytes(28, 0)})),
                                     ipv4_packet(pool_, IPPROTO_UDP, "1.1.1.1", 1, "2.2.2.2", 2)});
  EXPECT_EQ(r.passed.size(), 2u);
  r.free_all();
  EXPECT_EQ(counters(*monitor)["non_ip"], 1u);
  std::string reply;
  EXPECT_FALSE(monitor->control("bottom", reply));
}

}  // namespace
}  // namespace nfv
