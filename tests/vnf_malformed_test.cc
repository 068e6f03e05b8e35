// Every VNF against malformed input: truncated headers, bad IHL or total
// length, fragments, non-IP, VLAN tags, jumbo frames. Each is counted by
// reason and dropped or passed per policy; randomly mutated frames never
// crash a VNF or leak an mbuf. The key-less header check the VNFs use
// (HeaderLayout) agrees with the full parse on every such frame, and so do
// the pod's header marks.
#include <random>

#include "header_mark.h"
#include "input_policy.h"
#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

const std::map<std::string, std::map<std::string, std::string>> kVnfParams = {
    {"firewall", {{"default", "allow"}}},
    {"nat", {{"external", "203.0.113.1"}, {"internal", "10.0.0.0/8"}}},
    {"lb", {{"services", "10.0.0.2:80/tcp=10.1.0.1:80;10.0.0.2:53/udp=10.1.0.2:53"}}},
    {"router", {{"random_routes", "1000"}}},
    {"ids", {{"random_signatures", "100"}}},
    {"monitor", {}},
    {"ratelimit", {{"cir", "100000000"}, {"cbs", "100000000"}}},
};

// 32 frames from well-formed seeds (TCP, UDP, ICMP, IPv6, VLAN) with a few
// random bytes flipped, a quarter of them also cut short.
std::vector<Bytes> mutated_frames(std::mt19937& rng) {
  static const std::vector<Bytes> seeds = {
      concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 6, 20 + 30), tcp(1000, 80), Bytes(30, 'a')}),
      concat({ethernet(0x0800), ipv4("10.1.0.1", "203.0.113.1", 17, 8 + 20), udp(53, 1024, 20)}),
      concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 1, 12), Bytes{8, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0}}),
      concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8::2", 6, 20 + 10), tcp(1, 2), Bytes(10, 'b')}),
      concat({ethernet(0x8100), vlan_tag(1, 0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 12), udp(1, 53, 4)}),
  };
  std::vector<Bytes> frames;
  for (int i = 0; i < 32; ++i) {
    Bytes f = seeds[rng() % seeds.size()];
    const int flips = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < flips; ++k) f[rng() % f.size()] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0) f.resize(rng() % f.size() + 1);
    frames.push_back(f);
  }
  return frames;
}

std::map<std::string, uint64_t> counters_of(const InputPolicy& policy) {
  std::map<std::string, uint64_t> counters;
  policy.visit([&](const std::string& name, uint64_t value) { counters[name] = value; });
  return counters;
}

void expect_same_layout(const HeaderLayout& a, const HeaderLayout& b) {
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.protocol, b.protocol);
  EXPECT_EQ(a.later_fragment, b.later_fragment);
  EXPECT_EQ(a.vlan_tags, b.vlan_tags);
  EXPECT_EQ(a.l3_offset, b.l3_offset);
  EXPECT_EQ(a.l4_offset, b.l4_offset);
}

// Every field of two parses: status, EtherType, key and layout.
void expect_same_parse(const ParsedPacket& a, const ParsedPacket& b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.ether_type, b.ether_type);
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.later_fragment, b.later_fragment);
  expect_same_layout(HeaderLayout::of(a), HeaderLayout::of(b));
}

class Malformed : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_malformed", 8191); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }

  std::unique_ptr<Vnf> vnf(std::map<std::string, std::string> extra = {}) {
    auto params = kVnfParams.at(GetParam());
    for (auto& [k, v] : extra) params[k] = v;
    return make_vnf(GetParam(), params);
  }

  // One frame per malformed reason; returns reason -> frame.
  std::vector<std::pair<std::string, Bytes>> malformed_frames() {
    const Bytes good_udp = udp(1, 53, 4);
    Bytes bad_ihl = ipv4("10.0.0.1", "10.0.0.2", 17, 12);
    bad_ihl[0] = 0x44;
    Bytes bad_version = ipv4("10.0.0.1", "10.0.0.2", 17, 12);
    bad_version[0] = 0x65;
    Bytes long_total = ipv4("10.0.0.1", "10.0.0.2", 17, 400);
    Bytes short_total = ipv4("10.0.0.1", "10.0.0.2", 17, 12);
    short_total[2] = 0;
    short_total[3] = 12;
    Bytes bad_tcp = tcp(1, 80);
    bad_tcp[12] = 0x20;  // data offset 2 words
    const Bytes hop_by_hop = {17, 9, 0, 0, 0, 0, 0, 0};  // claims 80 bytes
    return {
        {"truncated_l2", Bytes(10, 0)},
        {"truncated_l2", concat({ethernet(0x8100), Bytes{0, 1}})},
        {"bad_ipv4_header", concat({ethernet(0x0800), Bytes(12, 0x45)})},
        {"bad_ipv4_header", concat({ethernet(0x0800), bad_ihl, good_udp})},
        {"bad_ipv4_header", concat({ethernet(0x0800), bad_version, good_udp})},
        {"bad_ipv4_length", concat({ethernet(0x0800), long_total, good_udp})},
        {"bad_ipv4_length", concat({ethernet(0x0800), short_total, good_udp})},
        {"truncated_l4", concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 6, 10), Bytes(10, 0)})},
        {"truncated_l4", concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 6, 20), bad_tcp})},
        {"bad_ipv6_header", concat({ethernet(0x86dd), Bytes(20, 0x60)})},
        {"bad_ipv6_length", concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8::2", 17, 500), good_udp})},
        {"bad_ipv6_header", concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8::2", 0, 8 + 12), hop_by_hop, good_udp})},
    };
  }
  static rte_mempool* pool_;
};
rte_mempool* Malformed::pool_ = nullptr;

TEST_P(Malformed, CountsEachReasonAndDropsOrPassesPerPolicy) {
  for (const bool drop : {true, false}) {
    auto v = vnf({{"malformed", drop ? "drop" : "pass"}, {"non_ip", "pass"}, {"fragments", "drop"}, {"jumbo", "pass"}});
    std::vector<rte_mbuf*> pkts;
    std::map<std::string, uint64_t> expected;
    for (const auto& [reason, frame] : malformed_frames()) {
      pkts.push_back(to_mbuf(pool_, frame));
      expected["malformed_" + reason]++;
    }
    const size_t n_malformed = pkts.size();
    pkts.push_back(to_mbuf(pool_, concat({ethernet(0x0806), Bytes(28, 0)})));                                        // ARP
    pkts.push_back(to_mbuf(pool_, concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 16, 0x0010), Bytes(16, 0)})));  // later fragment
    pkts.push_back(to_mbuf(pool_, concat({ethernet(0x8100), vlan_tag(7, 0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 12), udp(1, 53, 4)})));
    BurstResult r = run_vnf(*v, pkts);
    auto c = counters(*v);
    for (const auto& [name, count] : expected) EXPECT_EQ(c[name], count) << GetParam() << " " << name;
    EXPECT_EQ(c["non_ip"], 1u);
    EXPECT_EQ(c["fragments"], 1u);
    EXPECT_EQ(c["vlan_tagged"], 1u);
    if (GetParam() != "monitor" && GetParam() != "ratelimit" && GetParam() != "router") {
      // Fragment dropped by policy; malformed per policy; ARP passes; the VLAN frame is processed.
      EXPECT_EQ(r.dropped.size(), (drop ? n_malformed : 0) + 1) << GetParam();
    }
    r.free_all();
  }
}

TEST_P(Malformed, JumboFramesAreCountedAndDroppedOnRequest) {
  auto v = vnf({{"jumbo", "drop"}});
  Bytes payload(8000, 0x41);
  Bytes frame = concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, static_cast<uint16_t>(8 + payload.size())), udp(1, 53, 0), payload});
  frame[38] = static_cast<uint8_t>((8 + payload.size()) >> 8);
  frame[39] = static_cast<uint8_t>(8 + payload.size());
  // Four segments of up to 2048 bytes, as a PMD with scatter would deliver it.
  rte_mbuf* head = nullptr;
  for (size_t at = 0; at < frame.size(); at += 2048) {
    rte_mbuf* seg = to_mbuf(pool_, Bytes(frame.begin() + static_cast<long>(at), frame.begin() + static_cast<long>(std::min(frame.size(), at + 2048))));
    if (!head) head = seg;
    else ASSERT_EQ(rte_pktmbuf_chain(head, seg), 0);
  }
  BurstResult r = run_vnf(*v, {head});
  EXPECT_EQ(r.dropped.size(), 1u);
  r.free_all();
  EXPECT_EQ(counters(*v)["jumbo"], 1u);
}

TEST_P(Malformed, RandomlyMutatedFramesNeverCrashOrLeak) {
  auto v = vnf({{"malformed", "pass"}});
  std::mt19937 rng(99);
  for (int round = 0; round < 200; ++round) {
    std::vector<rte_mbuf*> pkts;
    for (const Bytes& f : mutated_frames(rng)) pkts.push_back(to_mbuf(pool_, f));
    BurstResult r = run_vnf(*v, pkts);
    EXPECT_EQ(r.passed.size() + r.dropped.size(), 32u);
    r.free_all();
  }
}

// The check without a flow key (what firewall, nat, lb, router and ids use)
// gives each frame the verdict, counters and header layout the full parse
// gives it, and the 5-tuple read from the headers is the parsed key's.
TEST(HeaderLayout, AgreesWithTheFullParseOnMutatedFrames) {
  rte_mempool* pool = test_pool("vnf_layout", 1023);
  InputPolicy keyed, keyless;
  keyed.init(VnfSettings{}, {}, InputPolicyDefaults{});
  keyless.init(VnfSettings{}, {}, InputPolicyDefaults{});
  std::mt19937 rng(7);
  int processed = 0, plain = 0;
  for (int round = 0; round < 100; ++round) {
    for (const Bytes& f : mutated_frames(rng)) {
      rte_mbuf* m = to_mbuf(pool, f);
      ParsedPacket parsed;
      HeaderLayout layout;
      const InputVerdict full = keyed.check(m, parsed);
      const InputVerdict light = keyless.check(m, layout);
      ASSERT_EQ(light, full);
      const HeaderLayout expected = HeaderLayout::of(parsed);
      if (full == InputVerdict::kProcess || layout.later_fragment) {
        processed += full == InputVerdict::kProcess;
        expect_same_layout(layout, expected);
      }
      if (full == InputVerdict::kProcess && layout.family == AddressFamily::kIpv4) {
        const Ipv4Tuple read = Ipv4Tuple::read(m, layout), parsed_tuple = Ipv4Tuple::of(parsed.key);
        EXPECT_EQ(read.src, parsed_tuple.src);
        EXPECT_EQ(read.dst, parsed_tuple.dst);
        EXPECT_EQ(read.src_port, parsed_tuple.src_port);
        EXPECT_EQ(read.dst_port, parsed_tuple.dst_port);
        EXPECT_EQ(read.flow_hash(), flow_hash(parsed.key));
      }
      HeaderLayout fast;
      if (plain_ipv4_layout(m, fast)) {
        ++plain;
        EXPECT_EQ(parse_packet(m, parsed), ParseStatus::kOk);
        EXPECT_EQ(fast.l4_offset, HeaderLayout::of(parsed).l4_offset);
      }
      rte_pktmbuf_free(m);
    }
  }
  EXPECT_GT(processed, 300) << "enough frames survive mutation to compare layouts";
  EXPECT_GT(plain, 100);
  EXPECT_EQ(counters_of(keyless), counters_of(keyed));
  rte_mempool_free(pool);
}

// The pod marks the frames whose headers it checked (header_mark.h) and the
// VNFs trust the mark: it must stand for exactly the frames the VNFs' own
// check would process as plain IPv4 of standard size (a stale mark from
// elsewhere is cleared; frames of 1514 and 1515 bytes sit either side of
// the size limit), and a marked frame must get the verdict, layout, flow
// key and counters it gets unmarked. And the mark is really trusted.
TEST(HeaderMark, StandsForExactlyTheFramesThatPassTheChecks) {
  rte_mempool* pool = test_pool("vnf_mark", 1023);
  const uint64_t mark = register_header_mark();
  ASSERT_NE(mark, 0u) << "the mbuf dynflag registers once EAL is up";
  InputPolicy trusting, checking;
  trusting.init(VnfSettings{}, {}, InputPolicyDefaults{});
  checking.init(VnfSettings{}, {}, InputPolicyDefaults{});
  // Plain UDP at the standard size's edge (1514 bytes: marked) and past it
  // (1515 and 1642: never marked).
  const auto plain_udp_frame = [](uint16_t payload) {
    return concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, static_cast<uint16_t>(8 + payload)), udp(1, 53, payload)});
  };
  const std::vector<Bytes> edges = {plain_udp_frame(1514 - 42), plain_udp_frame(1515 - 42), plain_udp_frame(1600)};
  std::mt19937 rng(11);
  int marked = 0, jumbo_seen = 0;
  for (int round = 0; round < 100; ++round) {
    std::vector<Bytes> frames = mutated_frames(rng);
    frames.insert(frames.end(), edges.begin(), edges.end());
    for (const Bytes& f : frames) {
      rte_mbuf* m = to_mbuf(pool, f);
      m->ol_flags |= mark;  // as if a peer in this process had handed it over marked
      HeaderLayout plain_layout;
      const bool plain = check_and_mark(m, mark, plain_layout);
      const bool standard = rte_pktmbuf_pkt_len(m) <= kLongestStandardFrame;
      jumbo_seen += plain && !standard;
      ASSERT_EQ((m->ol_flags & mark) != 0, plain && standard);
      marked += (m->ol_flags & mark) != 0;

      HeaderLayout with_mark, without_mark;
      ParsedPacket keyed_with, keyed_without;
      const InputVerdict v1 = trusting.check(m, with_mark);
      const InputVerdict k1 = trusting.check(m, keyed_with);
      clear_header_mark(m, mark);
      const InputVerdict v2 = checking.check(m, without_mark);
      const InputVerdict k2 = checking.check(m, keyed_without);
      ASSERT_EQ(v1, v2);
      ASSERT_EQ(k1, k2);
      if (v1 == InputVerdict::kProcess) {
        expect_same_layout(with_mark, without_mark);
        expect_same_parse(keyed_with, keyed_without);
      }
      rte_pktmbuf_free(m);
    }
  }
  EXPECT_GT(marked, 200) << "enough frames stay plain after mutation (and a 1514-byte one per round)";
  EXPECT_EQ(jumbo_seen, 200) << "the 1515- and 1642-byte frames, never marked";
  EXPECT_EQ(counters_of(trusting), counters_of(checking));
  EXPECT_EQ(counters_of(checking).at("jumbo"), 2u * 200) << "both checks of each jumbo frame ran in full";

  // The mark is trusted, not re-checked: a frame marked against the rules
  // (IPv6 here) is taken as plain IPv4. Only the pod may set it.
  rte_mbuf* m = to_mbuf(pool, concat({ethernet(0x86dd), ipv6("2001:db8::1", "2001:db8::2", 17, 8 + 20), udp(1, 53, 20)}));
  m->ol_flags |= mark;
  HeaderLayout trusted;
  EXPECT_EQ(trusting.check(m, trusted), InputVerdict::kProcess);
  EXPECT_EQ(trusted.family, AddressFamily::kIpv4);
  rte_pktmbuf_free(m);
  rte_mempool_free(pool);
}

INSTANTIATE_TEST_SUITE_P(EveryVnf, Malformed, ::testing::Values("firewall", "nat", "lb", "router", "ids", "monitor", "ratelimit"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace nfv
