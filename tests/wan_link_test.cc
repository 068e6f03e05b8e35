// The pieces of the packet path on real mbufs: header parsing with every
// kind of malformed frame, NSH encapsulation, the delay line, the WAN link
// (loss, bandwidth, delay traces), the counter VNF, and flow pins across a
// pool's growth from one instance.
#include <algorithm>
#include <array>
#include <map>
#include <cmath>
#include <random>

#include <gtest/gtest.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include "chain_meta.h"
#include "header_mark.h"
#include "delay_line.h"
#include "flow_affinity.h"
#include "nsh.h"
#include "packet_builder.h"
#include "packet_parser.h"
#include "vnf.h"
#include "wan_link.h"

namespace nfv {
namespace {

using namespace nfv::test;

class PacketPath : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("packet_path", 65535); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0) << "mbuf leak in the test"; }

  ParseStatus parse(const Bytes& frame, ParsedPacket& out) {
    rte_mbuf* m = to_mbuf(pool_, frame);
    const ParseStatus status = parse_packet(m, out);
    rte_pktmbuf_free(m);
    return status;
  }
  ParseStatus parse(const Bytes& frame) {
    ParsedPacket out;
    return parse(frame, out);
  }

  static rte_mempool* pool_;
};
rte_mempool* PacketPath::pool_ = nullptr;

TEST_F(PacketPath, ParsesTcpOverIpv4AndUdpOverDoubleTaggedVlan) {
  ParsedPacket p;
  ASSERT_EQ(parse(concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 6, 20), tcp(1234, 80)}), p), ParseStatus::kOk);
  EXPECT_EQ(p.key.family, AddressFamily::kIpv4);
  EXPECT_EQ(p.ipv4_src(), 0x0a000001u);
  EXPECT_EQ(p.key.src_port, 1234);
  EXPECT_EQ(p.key.dst_port, 80);
  EXPECT_EQ(p.l4_offset, 34);

  ASSERT_EQ(parse(concat({ethernet(0x88a8), vlan_tag(10, 0x8100), vlan_tag(20, 0x0800), ipv4("1.1.1.1", "2.2.2.2", 17, 12),
                          udp(53, 5353, 4)}),
                  p),
            ParseStatus::kOk);
  EXPECT_EQ(p.vlan_tags, 2);
  EXPECT_EQ(p.key.protocol, 17);
  EXPECT_EQ(p.key.dst_port, 5353);
}

TEST_F(PacketPath, ParsesIpv6ThroughExtensionHeaders) {
  // Hop-by-hop options (8 bytes) then UDP.
  const Bytes hop_by_hop = {17, 0, 1, 4, 0, 0, 0, 0};
  ParsedPacket p;
  ASSERT_EQ(parse(concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8::2", 0, 8 + 8 + 4), hop_by_hop, udp(1000, 2000, 4)}), p),
            ParseStatus::kOk);
  EXPECT_EQ(p.key.family, AddressFamily::kIpv6);
  EXPECT_EQ(p.key.protocol, 17);
  EXPECT_EQ(p.key.dst_port, 2000);
  // A later fragment has no ports to read.
  const Bytes fragment = {6, 0, 0x05, 0x00, 0, 0, 0, 1};  // offset 160
  ASSERT_EQ(parse(concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8::2", 44, 8 + 8), fragment, Bytes(8, 0)}), p),
            ParseStatus::kOk);
  EXPECT_TRUE(p.later_fragment);
  EXPECT_EQ(p.key.protocol, 6);
  EXPECT_EQ(p.key.dst_port, 0);
}

TEST_F(PacketPath, MalformedFramesAreNamedNeverReadPastTheEnd) {
  EXPECT_EQ(parse(Bytes(10, 0)), ParseStatus::kTruncatedL2);
  EXPECT_EQ(parse(concat({ethernet(0x8100), Bytes{0, 1}})), ParseStatus::kTruncatedL2);
  EXPECT_EQ(parse(concat({ethernet(0x0806), Bytes(28, 0)})), ParseStatus::kNonIp);
  EXPECT_EQ(parse(concat({ethernet(0x0800), Bytes(12, 0x45)})), ParseStatus::kBadIpv4Header);
  Bytes bad_ihl = ipv4("1.1.1.1", "2.2.2.2", 17, 8);
  bad_ihl[0] = 0x44;
  EXPECT_EQ(parse(concat({ethernet(0x0800), bad_ihl, udp(1, 2, 0)})), ParseStatus::kBadIpv4Header);
  Bytes bad_version = ipv4("1.1.1.1", "2.2.2.2", 17, 8);
  bad_version[0] = 0x65;
  EXPECT_EQ(parse(concat({ethernet(0x0800), bad_version, udp(1, 2, 0)})), ParseStatus::kBadIpv4Header);
  // Total length claims more than the frame holds.
  EXPECT_EQ(parse(concat({ethernet(0x0800), ipv4("1.1.1.1", "2.2.2.2", 17, 500), udp(1, 2, 0)})), ParseStatus::kBadIpv4Length);
  EXPECT_EQ(parse(concat({ethernet(0x0800), ipv4("1.1.1.1", "2.2.2.2", 6, 10), Bytes(10, 0)})), ParseStatus::kTruncatedL4);
  EXPECT_EQ(parse(concat({ethernet(0x86dd), Bytes(30, 0x60)})), ParseStatus::kBadIpv6Header);
  EXPECT_EQ(parse(concat({ethernet(0x86dd), ipv6("::1", "::2", 17, 100), udp(1, 2, 0)})), ParseStatus::kBadIpv6Length);
  // Padding after a short datagram (a 60-byte minimum frame) is fine.
  Bytes padded = concat({ethernet(0x0800), ipv4("1.1.1.1", "2.2.2.2", 17, 8), udp(1, 2, 0)});
  padded.resize(60, 0);
  EXPECT_EQ(parse(padded), ParseStatus::kOk);
}

TEST_F(PacketPath, RandomBytesNeverCrashTheParser) {
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    Bytes frame(rng() % 200);
    for (auto& b : frame) b = static_cast<uint8_t>(rng());
    if (frame.size() >= 14 && i % 2) frame[12] = 0x08, frame[13] = i % 4 == 1 ? 0x00 : 0xdd;
    if (frame.size() >= 15 && i % 4 == 1) frame[14] = static_cast<uint8_t>(0x40 | (rng() % 16));
    ParsedPacket p;
    const ParseStatus s = parse(frame, p);
    if (s == ParseStatus::kOk) {
      EXPECT_LE(p.l4_offset, frame.size());
    }
  }
}

TEST_F(PacketPath, NshEncapsulationRoundTripsTheFrameAndTheContext) {
  const Bytes inner = concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 8 + 20), udp(1, 2, 20)});
  rte_mbuf* m = to_mbuf(pool_, inner);
  NshFields sent;
  sent.spi = 0xabcdef;
  sent.si = 3;
  sent.ingress_ns = 0x0102030405060708ull;
  sent.flow_hash = 0xdeadbeef;
  sent.src_site = 4;
  sent.dst_site = 9;
  rte_ether_addr src{{2, 0, 0, 0, 0, 1}}, dst{{2, 0, 0, 0, 0, 2}};
  const uint64_t mark = register_header_mark();
  HeaderLayout layout;
  ASSERT_TRUE(check_and_mark(m, mark, layout));
  ASSERT_NE(m->ol_flags & mark, 0u) << "a plain IPv4 frame is marked";
  ASSERT_TRUE(nsh_encap(m, src, dst, sent));
  EXPECT_EQ(m->ol_flags & mark, 0u) << "the marked headers moved: the mark must go";
  EXPECT_TRUE(is_nsh_frame(m));
  EXPECT_EQ(rte_pktmbuf_pkt_len(m), inner.size() + kNshEncapBytes);
  const uint8_t* nsh = rte_pktmbuf_mtod_offset(m, const uint8_t*, 14);
  EXPECT_EQ(nsh[0], 0x0f) << "version 0, TTL 63 (high bits)";
  EXPECT_EQ(nsh[1], 0xc6) << "TTL low bits, length 6";
  EXPECT_EQ(nsh[2], 1) << "MD type 1";
  EXPECT_EQ(nsh[3], 3) << "next protocol Ethernet";
  NshFields got;
  ASSERT_EQ(nsh_decap(m, got), NshStatus::kOk);
  EXPECT_EQ(got.spi, sent.spi);
  EXPECT_EQ(got.si, sent.si);
  EXPECT_EQ(got.ttl, kNshInitialTtl - 1);
  EXPECT_EQ(got.ingress_ns, sent.ingress_ns);
  EXPECT_EQ(got.flow_hash, sent.flow_hash);
  EXPECT_EQ(got.src_site, 4);
  EXPECT_EQ(got.dst_site, 9);
  EXPECT_EQ(from_mbuf(m), inner);
  // As the receiving pod does: the inner frame is checked and marked afresh.
  EXPECT_TRUE(check_and_mark(m, mark, layout));
  EXPECT_NE(m->ol_flags & mark, 0u);
  rte_pktmbuf_free(m);
}

TEST_F(PacketPath, NshDecapRejectsWhatItCannotCarry) {
  const Bytes inner = concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 8), udp(1, 2, 0)});
  auto encapsulated = [&](uint8_t ttl) {
    rte_mbuf* m = to_mbuf(pool_, inner);
    NshFields f;
    f.spi = 1;
    f.si = 1;
    f.ttl = ttl;
    EXPECT_TRUE(nsh_encap(m, rte_ether_addr{}, rte_ether_addr{}, f));
    return m;
  };
  NshFields out;
  rte_mbuf* m = encapsulated(1);
  EXPECT_EQ(nsh_decap(m, out), NshStatus::kTtlExpired);
  rte_pktmbuf_free(m);
  m = encapsulated(63);
  rte_pktmbuf_mtod_offset(m, uint8_t*, 14)[2] = 2;  // MD type 2
  EXPECT_EQ(nsh_decap(m, out), NshStatus::kUnsupported);
  rte_pktmbuf_free(m);
  m = to_mbuf(pool_, concat({ethernet(kEtherTypeNsh), Bytes(20, 0)}));
  EXPECT_EQ(nsh_decap(m, out), NshStatus::kTruncated);
  rte_pktmbuf_free(m);
}

TEST_F(PacketPath, DelayLineReleasesInDueOrderAndKeepsTiesInArrivalOrder) {
  DelayLine line(1000);
  std::mt19937 rng(3);
  std::map<rte_mbuf*, int> arrival;
  std::vector<std::pair<uint64_t, int>> expected;
  for (int i = 0; i < 1000; ++i) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    arrival[m] = i;
    const uint64_t due = rng() % 50;  // many equal due times
    ASSERT_TRUE(line.push(due, m));
    expected.emplace_back(due, i);
  }
  EXPECT_FALSE(line.push(0, nullptr)) << "full";
  std::stable_sort(expected.begin(), expected.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<int> released;
  rte_mbuf* out[64];
  for (uint64_t now = 0; now < 50; ++now) {
    const auto due_now = std::count_if(expected.begin(), expected.end(), [&](auto& e) { return e.first == now; });
    long got = 0;
    uint16_t n;
    while ((n = line.pop_due(now, out, 64)) > 0) {
      got += n;
      for (uint16_t i = 0; i < n; ++i) released.push_back(arrival[out[i]]);
      rte_pktmbuf_free_bulk(out, n);
    }
    EXPECT_EQ(got, due_now) << "at " << now;
  }
  ASSERT_EQ(released.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(released[k], expected[k].second) << k;
}

class WanLinkTest : public PacketPath {
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

TEST_F(PacketPath, CounterVnfCountsEachFlowOnceEvenWithinOneBurst) {
  auto vnf = VnfRegistry::instance().create("counter");
  VnfSettings settings;
  settings.params["flows"] = "128";
  vnf->init(settings);
  rte_mbuf* burst[32];
  for (int i = 0; i < 32; ++i)
    burst[i] = to_mbuf(pool_, concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 8), udp(static_cast<uint16_t>(i % 3), 53, 0)}));
  rte_mbuf* dropped[32];
  uint16_t n_dropped = 0;
  EXPECT_EQ(vnf->process(burst, 32, dropped, &n_dropped), 32);
  EXPECT_EQ(n_dropped, 0);
  std::map<std::string, uint64_t> counters;
  vnf->visit_counters([&](const std::string& name, uint64_t v) { counters[name] = v; });
  EXPECT_EQ(counters["flows"], 3u);
  EXPECT_EQ(counters["ip_packets"], 32u);
  rte_pktmbuf_free_bulk(burst, 32);

  settings.params["flows"] = "lots";
  EXPECT_THROW(VnfRegistry::instance().create("counter")->init(settings), VnfConfigError);
  settings.params = {{"flowz", "8"}};
  EXPECT_THROW(VnfRegistry::instance().create("counter")->init(settings), VnfConfigError);
}

// A pool of one instance (slot 0) or two (slots 0 and 1), Maglev alternating.
PoolView pool_of(int instances, uint32_t generation_0) {
  PoolView view;
  view.stateful = true;
  for (int s = 0; s < instances; ++s) {
    view.state[s] = InstanceState::kActive;
    view.generation[s] = s == 0 ? generation_0 : 1;
  }
  view.active = view.slots_in_use = static_cast<uint16_t>(instances);
  for (int e = 0; e < 97; ++e) view.maglev.push_back(static_cast<uint16_t>(e % instances));
  return view;
}

std::vector<uint32_t> random_hashes(std::mt19937& rng, int n) {
  std::vector<uint32_t> out(static_cast<size_t>(n));
  for (auto& h : out) h = rng();
  return out;
}

// Slots of every hash, in bursts of 32; counts them per slot.
std::array<int, 2> place(FlowAffinity& pins, const std::vector<uint32_t>& hashes, const PoolView& view) {
  std::array<int, 2> per_slot{};
  for (size_t at = 0; at < hashes.size(); at += 32) {
    const uint16_t n = static_cast<uint16_t>(std::min<size_t>(32, hashes.size() - at));
    uint16_t slots[32];
    pins.slots_for(&hashes[at], n, view, rte_rdtsc(), slots);
    for (uint16_t i = 0; i < n; ++i) per_slot[slots[i]]++;
  }
  return per_slot;
}

void note(FlowAffinity& pins, const std::vector<uint32_t>& hashes, const PoolView& view) {
  for (size_t at = 0; at < hashes.size(); at += 32)
    pins.note_single(&hashes[at], static_cast<uint16_t>(std::min<size_t>(32, hashes.size() - at)), view);
}

// While the pool has one instance nothing is pinned; when a second one
// appears the flows the first served stay with it and new flows spread.
// Back at one instance the memory of old flows starts over, and a new
// instance in slot 0 inherits nothing.
TEST(FlowAffinityTest, FlowsOfALoneInstanceStayWithItWhenThePoolGrows) {
  std::mt19937 rng(11);
  FlowAffinity pins("test pool", 1u << 14, rte_get_tsc_hz() * 60, static_cast<int>(rte_socket_id()));
  const PoolView one = pool_of(1, 1), two = pool_of(2, 1);
  const auto served = random_hashes(rng, 1000), unseen = random_hashes(rng, 1000);
  note(pins, served, one);
  EXPECT_EQ(pins.flows_on(0), 0u) << "one instance: no pins";
  EXPECT_EQ(place(pins, served, two)[0], 1000) << "the lone instance's flows stay with it";
  const auto fresh = place(pins, unseen, two);
  EXPECT_GT(fresh[1], 400) << "new flows follow Maglev";
  EXPECT_EQ(place(pins, unseen, two), fresh) << "and are pinned where they went";
  EXPECT_EQ(pins.flows_on(0) + pins.flows_on(1), 2000u);

  // Back to one instance, then two again: flows seen only before the
  // return (and never pinned) are forgotten; flows seen since stay.
  const auto before = random_hashes(rng, 1000), since = random_hashes(rng, 1000);
  note(pins, before, one);
  place(pins, served, two);  // grows for a moment: `before` was not seen then
  note(pins, since, one);
  EXPECT_EQ(place(pins, since, two)[0], 1000);
  EXPECT_GT(place(pins, before, two)[1], 400) << "the bitmap started over at the return to one instance";

  // A new instance in slot 0 (another generation) inherits no flows.
  FlowAffinity other("other pool", 1u << 14, rte_get_tsc_hz() * 60, static_cast<int>(rte_socket_id()));
  const auto old_flows = random_hashes(rng, 1000);
  note(other, old_flows, pool_of(1, 1));
  EXPECT_GT(place(other, old_flows, pool_of(2, 2))[1], 400);
}

}  // namespace
}  // namespace nfv
