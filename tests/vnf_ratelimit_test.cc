// ratelimit: srTCM and trTCM colours on a known packet schedule, colour-aware
// pre-colouring from DSCP, drop thresholds, per-flow meters.
#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

class RateLimit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_ratelimit", 4095); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }

  // n frames of exactly 100 bytes (14 + 20 + 8 + 58) of one flow, optionally with a DSCP.
  std::vector<rte_mbuf*> frames(int n, uint16_t sport = 1, uint8_t dscp = 0) {
    std::vector<rte_mbuf*> out;
    for (int i = 0; i < n; ++i) {
      rte_mbuf* m = ipv4_packet(pool_, IPPROTO_UDP, "10.0.0.1", sport, "10.0.0.2", 2, Bytes(58, 0));
      ipv4_of(m)->type_of_service = static_cast<uint8_t>(dscp << 2);
      out.push_back(m);
    }
    return out;
  }
  static rte_mempool* pool_;
};
rte_mempool* RateLimit::pool_ = nullptr;

TEST_F(RateLimit, SrTcmColoursABackToBackBurstThenRefills) {
  // 1000 B/s on a clock the test moves: nothing refills until it says so.
  auto rl = make_vnf("ratelimit", {{"mode", "srtcm"}, {"cir", "1000"}, {"cbs", "1000"}, {"ebs", "500"}});
  BurstResult r = run_vnf(*rl, frames(20));
  EXPECT_EQ(r.passed.size(), 15u);
  r.free_all();
  auto c = counters(*rl);
  EXPECT_EQ(c["green"], 10u);   // cbs 1000 / 100
  EXPECT_EQ(c["yellow"], 5u);   // ebs 500 / 100
  EXPECT_EQ(c["red"], 5u);
  EXPECT_EQ(c["dropped"], 5u);
  // 250 ms at 1000 B/s = 250 bytes into C: two more green, then red (E fills only once C is full).
  ManualTsc::advance_ms(250);
  run_vnf(*rl, frames(4)).free_all();
  c = counters(*rl);
  EXPECT_EQ(c["green"], 12u);
  EXPECT_EQ(c["yellow"], 5u);
  EXPECT_EQ(c["red"], 7u);
}

TEST_F(RateLimit, TrTcmColoursAgainstBothRates) {
  auto rl = make_vnf("ratelimit", {{"mode", "trtcm"}, {"cir", "1000"}, {"cbs", "500"}, {"pir", "2000"}, {"pbs", "1000"}, {"drop", "yellow"}});
  BurstResult r = run_vnf(*rl, frames(12));
  EXPECT_EQ(r.passed.size(), 5u) << "drop=yellow keeps only green";
  r.free_all();
  auto c = counters(*rl);
  EXPECT_EQ(c["green"], 5u);   // within cbs and pbs
  EXPECT_EQ(c["yellow"], 5u);  // within pbs only
  EXPECT_EQ(c["red"], 2u);
}

TEST_F(RateLimit, ColourAwareModeNeverUpgradesAPreColouredPacket) {
  auto rl = make_vnf("ratelimit", {{"cir", "1000"}, {"cbs", "1000"}, {"ebs", "1000"}, {"colour_aware", "yes"}});
  run_vnf(*rl, frames(2, 1, 12)).free_all();  // AF12: yellow
  run_vnf(*rl, frames(2, 1, 14)).free_all();  // AF13: red
  run_vnf(*rl, frames(2, 1, 10)).free_all();  // AF11: green
  auto c = counters(*rl);
  EXPECT_EQ(c["green"], 2u);
  EXPECT_EQ(c["yellow"], 2u);
  EXPECT_EQ(c["red"], 2u);
}

TEST_F(RateLimit, PerFlowMetersAreIndependent) {
  auto rl = make_vnf("ratelimit", {{"per", "flow"}, {"cir", "1000"}, {"cbs", "300"}, {"ebs", "0"}});
  std::vector<rte_mbuf*> pkts = frames(5, 1);
  for (auto* m : frames(5, 2)) pkts.push_back(m);
  BurstResult r = run_vnf(*rl, pkts);
  EXPECT_EQ(r.passed.size(), 6u) << "3 green per flow";
  r.free_all();
  EXPECT_EQ(counters(*rl)["flows"], 2u);
  EXPECT_TRUE(rl->stateful());
  EXPECT_THROW(make_vnf("ratelimit", {{"cbs", "100"}}), VnfConfigError);
  EXPECT_THROW(make_vnf("ratelimit", {{"cir", "100"}, {"cbs", "100"}, {"mode", "trtcm"}}), VnfConfigError);
}

}  // namespace
}  // namespace nfv
