// Chain classification: prefixes of both families, protocols and port
// ranges, first match wins, and only on the chain's ingress ports.
#include <arpa/inet.h>

#include <gtest/gtest.h>

#include "classifier.h"
#include "config_loader.h"
#include "eal_args.h"
#include "latency_histogram.h"

namespace nfv {
namespace {

FlowKey v4_key(const char* src, const char* dst, uint8_t proto, uint16_t sport, uint16_t dport) {
  FlowKey key{};
  key.family = AddressFamily::kIpv4;
  inet_pton(AF_INET, src, key.src_addr);
  inet_pton(AF_INET, dst, key.dst_addr);
  key.protocol = proto;
  key.src_port = sport;
  key.dst_port = dport;
  return key;
}

FlowKey v6_key(const char* src, const char* dst, uint8_t proto) {
  FlowKey key{};
  key.family = AddressFamily::kIpv6;
  inet_pton(AF_INET6, src, key.src_addr);
  inet_pton(AF_INET6, dst, key.dst_addr);
  key.protocol = proto;
  return key;
}

PodLayout two_chain_layout() {
  return build_pod_layout(parse_pod_config(R"(name: c
sites: [{name: A, lat: 0, lon: 0}, {name: B, lat: 0, lon: 1}]
hosted_sites: [A, B]
links: [{from: A, to: B}]
ports:
  - {name: a0, driver: null, site: A}
  - {name: a1, driver: null, site: A}
  - {name: b0, driver: null, site: B}
chains:
  - name: web
    id: 1
    ingress_site: A
    egress_site: B
    egress_port: b0
    ingress_ports: [a0]
    match:
      - {dst_prefix: 10.1.0.0/16, protocol: tcp, dst_ports: 80-89}
      - {src_prefix: "2001:db8::/32"}
  - name: rest
    id: 2
    ingress_site: A
    egress_site: B
    egress_port: b0
    match: [{}]
)", "c.yaml").config);
}

int classify(const Classifier& c, int port, const FlowKey& key) {
  ParsedPacket p;
  p.status = ParseStatus::kOk;
  p.key = key;
  return c.classify(port, p);
}

TEST(Classifier, FirstMatchingRuleOfTheIngressPortWins) {
  const PodLayout layout = two_chain_layout();
  const Classifier classifier(layout);
  EXPECT_EQ(classify(classifier, 0, v4_key("1.2.3.4", "10.1.200.9", 6, 5555, 80)), 0);
  EXPECT_EQ(classify(classifier, 0, v4_key("1.2.3.4", "10.1.200.9", 6, 5555, 89)), 0);
  EXPECT_EQ(classify(classifier, 0, v4_key("1.2.3.4", "10.1.200.9", 6, 5555, 90)), 1) << "port outside the range";
  EXPECT_EQ(classify(classifier, 0, v4_key("1.2.3.4", "10.1.200.9", 17, 5555, 80)), 1) << "udp, not tcp";
  EXPECT_EQ(classify(classifier, 0, v4_key("1.2.3.4", "10.2.0.1", 6, 5555, 80)), 1) << "outside the prefix";
  EXPECT_EQ(classify(classifier, 0, v6_key("2001:db8::1", "2001:db9::1", 58)), 0);
  EXPECT_EQ(classify(classifier, 0, v6_key("2001:db9::1", "2001:db8::1", 58)), 1);
  // web only accepts traffic from a0; a1 falls through to rest.
  EXPECT_EQ(classify(classifier, 1, v4_key("1.2.3.4", "10.1.200.9", 6, 5555, 80)), 1);
  // b0 is at site B: no chain enters there.
  EXPECT_EQ(classify(classifier, 2, v4_key("1.2.3.4", "10.1.200.9", 6, 5555, 80)), kNoIndex);
}

TEST(Classifier, V4RuleNeverMatchesV6AndViceVersa) {
  CompiledRule rule;
  rule.family = 4;
  EXPECT_FALSE(rule_matches(rule, v6_key("::1", "::2", 6)));
  rule.family = 6;
  EXPECT_FALSE(rule_matches(rule, v4_key("1.1.1.1", "2.2.2.2", 6, 1, 2)));
}

TEST(LatencyHistogram, PercentilesAreWithinTheBucketPrecision) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100000; ++v) h.record(v * 1000);  // 1 us .. 100 ms, uniform
  EXPECT_EQ(h.count(), 100000u);
  for (double q : {0.5, 0.95, 0.99}) {
    const double exact = q * 100000 * 1000;
    EXPECT_NEAR(static_cast<double>(h.percentile(q)), exact, exact * 0.07) << q;
  }
  LatencyHistogram small;
  for (uint64_t v = 0; v < 16; ++v) small.record(v);
  EXPECT_EQ(small.percentile(0.5), 7u) << "values below 16 ns are exact";
}

TEST(EalArgs, PodsGetTheirOwnPrefixAndNoPciUnlessTheOperatorSaysOtherwise) {
  const PodLayout layout = two_chain_layout();
  EXPECT_EQ(complete_eal_args({"-l", "0"}, layout),
            (std::vector<std::string>{"-l", "0", "--file-prefix=c", "--huge-unlink", "--no-pci"}));
  EXPECT_EQ(complete_eal_args({"--file-prefix=x", "-a", "0000:01:00.0"}, layout),
            (std::vector<std::string>{"--file-prefix=x", "-a", "0000:01:00.0", "--huge-unlink"}));
  EXPECT_EQ(complete_eal_args({"--no-huge"}, layout), (std::vector<std::string>{"--no-huge", "--file-prefix=c", "--no-pci"}))
      << "--no-huge is passed through, never added, and needs no unlink";
}

}  // namespace
}  // namespace nfv
