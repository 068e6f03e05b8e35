// The WAN link on real mbufs: each packet released when its delay has
// passed, the configured loss rate, the bandwidth cap and its buffer, delay
// traces, jitter.
#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include <rte_cycles.h>

#include "mbuf_pool_test.h"
#include "packet_builder.h"
#include "wan_link.h"

namespace nfv {
namespace {

using namespace nfv::test;

class WanLinkTest : public MbufPoolTest {
 protected:
  const uint64_t hz = rte_get_tsc_hz();
  uint64_t ms(double v) const { return static_cast<uint64_t>(v * 1e-3 * static_cast<double>(hz)); }
  rte_mbuf* frame(uint16_t bytes) { return to_mbuf(pool_, Bytes(bytes, 0)); }
  void drain(WanLink& link) {
    while (rte_mbuf* m = link.take_any()) rte_pktmbuf_free(m);
  }
};

TEST_F(WanLinkTest, ReleasesEachPacketExactlyWhenItsDelayHasPassed) {
  WanLinkParams p;
  p.delay_ms = 10;
  const LinkSettings settings = LinkSettings::from(p, hz, 1.0);
  WanLink link(p.queue_packets, 0);
  link.use(&settings);
  const uint64_t t0 = ms(1000);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(link.offer(frame(100), t0 + ms(i)), WanVerdict::kQueued);
  rte_mbuf* out[32];
  EXPECT_EQ(link.release(t0 + ms(10) - 1, out, 32), 0);
  EXPECT_EQ(link.release(t0 + ms(10), out, 32), 1);
  rte_pktmbuf_free(out[0]);
  EXPECT_EQ(link.release(t0 + ms(14.5), out, 32), 4);
  rte_pktmbuf_free_bulk(out, 4);
  EXPECT_EQ(link.in_flight(), 5u);
  drain(link);
}

TEST_F(WanLinkTest, LossRateIsTheConfiguredProbability) {
  WanLinkParams p;
  p.loss = 0.25;
  p.queue_packets = 100000;
  const LinkSettings settings = LinkSettings::from(p, hz, 1.0);
  WanLink link(p.queue_packets, 0);
  link.use(&settings);
  const int n = 40000;
  int lost = 0;
  for (int i = 0; i < n; ++i) {
    rte_mbuf* m = frame(64);
    if (link.offer(m, 0) == WanVerdict::kLost) {
      ++lost;
      rte_pktmbuf_free(m);
    }
    if (link.in_flight() > 30000) drain(link);
  }
  const double sigma = std::sqrt(n * 0.25 * 0.75);
  EXPECT_NEAR(lost, n * 0.25, 4 * sigma);
  EXPECT_EQ(link.counters().lost, static_cast<uint64_t>(lost));
  drain(link);
}

TEST_F(WanLinkTest, BandwidthCapSpacesPacketsAndDropsPastTheBuffer) {
  WanLinkParams p;
  p.bandwidth_mbps = 8;  // 1 byte per microsecond
  p.buffer_ms = 5;
  const LinkSettings settings = LinkSettings::from(p, hz, 1.0);
  WanLink link(p.queue_packets, 0);
  link.use(&settings);
  const uint64_t t0 = ms(100);
  int queued = 0, dropped = 0;
  for (int i = 0; i < 20; ++i) {
    rte_mbuf* m = frame(1000);  // 1 ms on the wire each
    const WanVerdict v = link.offer(m, t0);
    if (v == WanVerdict::kQueued) ++queued;
    else {
      EXPECT_EQ(v, WanVerdict::kBandwidthExceeded);
      ++dropped;
      rte_pktmbuf_free(m);
    }
  }
  // Packets wait at most 5 ms before their first bit leaves: 0..5 ms -> 6 fit.
  EXPECT_EQ(queued, 6);
  EXPECT_EQ(dropped, 14);
  rte_mbuf* out[32];
  EXPECT_EQ(link.release(t0 + ms(1) - ms(0.01), out, 32), 0);
  EXPECT_EQ(link.release(t0 + ms(3.001), out, 32), 3) << "one packet per ms of serialisation";
  rte_pktmbuf_free_bulk(out, 3);
  drain(link);
}

TEST_F(WanLinkTest, DelayTraceStepsAndLoops) {
  WanLinkParams p;
  p.delay_ms = 10;
  p.delay_trace = {{100, 50}, {200, 20}};
  p.delay_trace_period_ms = 300;
  const uint64_t start = ms(1000);
  const LinkSettings settings = LinkSettings::from(p, hz, 1.0);
  WanLink link(p.queue_packets, start);
  link.use(&settings);
  auto delay_ms_at = [&](double t_ms) { return static_cast<double>(link.base_delay_tsc(start + ms(t_ms))) * 1e3 / static_cast<double>(hz); };
  EXPECT_NEAR(delay_ms_at(50), 10, 1e-6) << "before the first point: the link's delay";
  EXPECT_NEAR(delay_ms_at(150), 50, 1e-6) << "a spike";
  EXPECT_NEAR(delay_ms_at(250), 20, 1e-6);
  EXPECT_NEAR(delay_ms_at(350), 10, 1e-6) << "wrapped around";
  EXPECT_NEAR(delay_ms_at(450), 50, 1e-6);
}

TEST_F(WanLinkTest, JitterStaysWithinItsBoundsAndNeverGoesNegative) {
  WanLinkParams p;
  p.delay_ms = 1;
  p.jitter_ms = 0.5;
  p.queue_packets = 5000;
  const LinkSettings settings = LinkSettings::from(p, hz, 1.0);
  WanLink link(p.queue_packets, 0);
  link.use(&settings);
  const uint64_t t0 = ms(10);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(link.offer(frame(64), t0), WanVerdict::kQueued);
  rte_mbuf* out[32];
  EXPECT_EQ(link.release(t0 + ms(0.5) - 1, out, 32), 0);
  int released = 0;
  uint16_t n;
  while ((n = link.release(t0 + ms(1.5), out, 32)) > 0) {
    released += n;
    rte_pktmbuf_free_bulk(out, n);
  }
  EXPECT_EQ(released, 5000);
}

}  // namespace
}  // namespace nfv
