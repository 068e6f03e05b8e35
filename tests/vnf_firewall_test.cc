// firewall: first matching rule wins (IPv4 and IPv6), the default applies
// otherwise, 10,000 rules load and classify like a linear first-match search,
// and rule-file errors name file:line.
#include <arpa/inet.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "vnf_test_helpers.h"

namespace nfv {
namespace {

using namespace nfv::test;

class Firewall : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("vnf_fw", 16383); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0u); }

  static std::string write_rules(const std::string& text) {
    const std::string path = "/tmp/nfv_fw_rules_" + std::to_string(getpid()) + "_" + std::to_string(files_++) + ".txt";
    std::ofstream(path) << text;
    return path;
  }
  // True when the packet passes.
  bool passes(Vnf& fw, rte_mbuf* m) {
    BurstResult r = run_vnf(fw, {m});
    const bool passed = r.passed.size() == 1;
    r.free_all();
    return passed;
  }
  rte_mbuf* v6(const std::string& src, const std::string& dst, uint8_t proto, uint16_t sport, uint16_t dport) {
    return ipv6_packet(pool_, proto, src, sport, dst, dport);
  }

  static rte_mempool* pool_;
  static int files_;
};
rte_mempool* Firewall::pool_ = nullptr;
int Firewall::files_ = 0;

const char* kRules = R"(# ssh only from the admin /24
allow tcp 10.0.0.0/24  any any 22
deny  tcp 10.0.0.0/8   any any 22
allow tcp any          any any 80-81
deny  any 2001:db8::/32 any any any
allow udp any 2001:db8:1::/48 any 53
)";

TEST_F(Firewall, FirstMatchingRuleWinsForIpv4AndIpv6) {
  auto fw = make_vnf("firewall", {{"rules_file", write_rules(kRules)}});
  EXPECT_TRUE(passes(*fw, ipv4_packet(pool_, IPPROTO_TCP, "10.0.0.5", 40000, "192.0.2.1", 22)));   // rule 1
  EXPECT_FALSE(passes(*fw, ipv4_packet(pool_, IPPROTO_TCP, "10.1.0.5", 40000, "192.0.2.1", 22)));  // rule 2
  EXPECT_TRUE(passes(*fw, ipv4_packet(pool_, IPPROTO_TCP, "10.1.0.5", 40000, "192.0.2.1", 81)));   // rule 3 (range)
  EXPECT_FALSE(passes(*fw, ipv4_packet(pool_, IPPROTO_TCP, "10.1.0.5", 40000, "192.0.2.1", 82)));  // default deny
  EXPECT_FALSE(passes(*fw, ipv4_packet(pool_, IPPROTO_UDP, "10.0.0.5", 40000, "192.0.2.1", 22)));  // protocol differs
  EXPECT_TRUE(passes(*fw, v6("2001:db8::1", "2001:db8:ffff::1", IPPROTO_TCP, 1000, 80)));          // rule 3 before rule 4
  EXPECT_FALSE(passes(*fw, v6("2001:db8::1", "2001:db8:1::1", IPPROTO_UDP, 1000, 53)));            // rule 4 before rule 5
  EXPECT_TRUE(passes(*fw, v6("2001:dead::1", "2001:db8:1::1", IPPROTO_UDP, 1000, 53)));            // rule 5
  EXPECT_FALSE(passes(*fw, v6("2001:dead::1", "2001:db8:2::1", IPPROTO_UDP, 1000, 53)));           // default deny
  auto c = counters(*fw);
  EXPECT_EQ(c["rules"], 5u);
  EXPECT_EQ(c["allowed"], 4u);
  EXPECT_EQ(c["denied"], 2u);
  EXPECT_EQ(c["default_denied"], 3u);
}

TEST_F(Firewall, ReversedOrderReversesTheOutcome) {
  auto fw = make_vnf("firewall", {{"rules_file", write_rules("deny tcp 10.0.0.0/8 any any 22\nallow tcp 10.0.0.0/24 any any 22\n")},
                                  {"default", "allow"}});
  EXPECT_FALSE(passes(*fw, ipv4_packet(pool_, IPPROTO_TCP, "10.0.0.5", 40000, "192.0.2.1", 22)));
  EXPECT_TRUE(passes(*fw, ipv4_packet(pool_, IPPROTO_TCP, "11.0.0.5", 40000, "192.0.2.1", 22)));  // default allow
  EXPECT_EQ(counters(*fw)["default_allowed"], 1u);
}

struct Rule4 {
  bool allow;
  uint8_t proto;
  uint32_t src, src_len, dst, dst_len;
  uint16_t sp_lo, sp_hi, dp_lo, dp_hi;
};

bool in_prefix(uint32_t addr, uint32_t net, uint32_t len) { return len == 0 || (addr >> (32 - len)) == (net >> (32 - len)); }

TEST_F(Firewall, TenThousandRulesClassifyLikeALinearFirstMatch) {
  // Random rules over a small address space so they overlap and order matters.
  std::mt19937 rng(7);
  std::vector<Rule4> rules;
  std::string text;
  for (int i = 0; i < 10000; ++i) {
    Rule4 r{};
    r.allow = rng() & 1;
    r.proto = (rng() % 3 == 0) ? 0 : ((rng() & 1) ? IPPROTO_TCP : IPPROTO_UDP);
    r.src_len = 8 + rng() % 25;
    r.src = ((10u << 24) | (rng() & 0x000fffffu)) & (r.src_len == 32 ? ~0u : ~((1u << (32 - r.src_len)) - 1));
    r.dst_len = rng() % 3 == 0 ? 0 : 16 + rng() % 17;
    r.dst = r.dst_len ? (((192u << 24) | (168u << 16) | (rng() & 0xffffu)) & (r.dst_len == 32 ? ~0u : ~((1u << (32 - r.dst_len)) - 1))) : 0;
    r.sp_lo = 0;
    r.sp_hi = 65535;
    r.dp_lo = static_cast<uint16_t>(rng() % 1000);
    r.dp_hi = static_cast<uint16_t>(r.dp_lo + rng() % 50);
    rules.push_back(r);
    auto addr = [](uint32_t a, uint32_t len) {
      if (len == 0) return std::string("any");
      return ipv4_text(htonl(a)) + "/" + std::to_string(len);
    };
    text += std::string(r.allow ? "allow " : "deny ") + (r.proto == 0 ? "any" : r.proto == IPPROTO_TCP ? "tcp" : "udp") + " " +
            addr(r.src, r.src_len) + " " + addr(r.dst, r.dst_len) + " any " + std::to_string(r.dp_lo) + "-" + std::to_string(r.dp_hi) +
            "\n";
  }
  auto fw = make_vnf("firewall", {{"rules_file", write_rules(text)}});
  EXPECT_EQ(counters(*fw)["rules"], 10000u);
  int allowed_expected = 0, allowed = 0, matched = 0;
  for (int i = 0; i < 4000; ++i) {
    const uint32_t src = (10u << 24) | (rng() & 0x000fffffu);
    const uint32_t dst = (192u << 24) | (168u << 16) | (rng() & 0xffffu);
    const uint8_t proto = (rng() & 1) ? IPPROTO_TCP : IPPROTO_UDP;
    const uint16_t dport = static_cast<uint16_t>(rng() % 1100);
    bool expect = false;  // default deny
    for (const Rule4& r : rules) {
      if ((r.proto && r.proto != proto) || !in_prefix(src, r.src, r.src_len) || !in_prefix(dst, r.dst, r.dst_len) ||
          dport < r.dp_lo || dport > r.dp_hi)
        continue;
      expect = r.allow;
      matched++;
      break;
    }
    const bool got = passes(*fw, ipv4_packet(pool_, proto, ipv4_text(htonl(src)), 1234, ipv4_text(htonl(dst)), dport));
    ASSERT_EQ(got, expect) << "packet " << i;
    allowed_expected += expect;
    allowed += got;
  }
  EXPECT_GT(matched, 400) << "the random rules should match a good share of packets";
  EXPECT_EQ(allowed, allowed_expected);
}

TEST_F(Firewall, GeneratedRulesLoad) {
  auto fw = make_vnf("firewall", {{"random_rules", "10000"}, {"default", "allow"}});
  EXPECT_EQ(counters(*fw)["rules"], 10000u);
}

TEST_F(Firewall, RuleFileErrorsNameFileAndLine) {
  const std::string path = write_rules("allow tcp any any any 80\nallow tcp 10.0.0.0/33 any any 80\n");
  try {
    make_vnf("firewall", {{"rules_file", path}});
    FAIL() << "a bad prefix must be rejected";
  } catch (const VnfConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_vnf("firewall", {{"rules_file", write_rules("permit tcp any any any 80\n")}}), VnfConfigError);
  EXPECT_THROW(make_vnf("firewall", {{"rules_file", write_rules("allow tcp 10.0.0.0/8 2001:db8::/32 any 80\n")}}), VnfConfigError);
  EXPECT_THROW(make_vnf("firewall", {{"rules_file", write_rules("allow tcp any any any 90-80\n")}}), VnfConfigError);
  EXPECT_THROW(make_vnf("firewall", {{"rules_file", "/nonexistent/rules"}}), VnfConfigError);
  EXPECT_THROW(make_vnf("firewall", {{"default", "maybe"}}), VnfConfigError);
}

}  // namespace
}  // namespace nfv
