// (c) WAN emulation measured from outside the pod: two network namespaces
// (client, server) joined through a pod with af_packet ports, the pod's
// link between the client's site and the server's site set to a delay and a
// loss rate. Kernel UDP sockets timestamp each datagram; the receiver
// measures one-way delay and loss.
#include <unistd.h>

#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

#include "namespace_pair.h"
#include "bounded_wait.h"
#include "pod_runner.h"

namespace nfv::test {
namespace {

// RFC 2544 benchmarking addresses, only inside our own namespaces.
constexpr const char* kClientIp = "198.18.0.1";
constexpr const char* kServerIp = "198.18.0.2";
constexpr int kProbes = 2000;
constexpr int kIntervalUs = 500;

struct WanCase {
  double delay_ms;
  double loss;
};

std::string wan_pod(const WanCase& c) {
  std::ostringstream yaml;
  yaml << R"(name: wan
sites:
  - {name: NYCM, lat: 40.7833, lon: -73.9667}
  - {name: KSCY, lat: 39.1000, lon: -94.5833}
hosted_sites: [NYCM, KSCY]
links:
  - {from: NYCM, to: KSCY, delay_ms: )" << c.delay_ms << ", loss: " << c.loss << R"(}
  - {from: KSCY, to: NYCM, delay_ms: )" << c.delay_ms << R"(}
ports:
  - {name: cli, driver: af_packet, site: NYCM, iface: nfvw-c1, default_action: pass, default_port: srv}
  - {name: srv, driver: af_packet, site: KSCY, iface: nfvw-s1, default_action: pass, default_port: cli}
chains:
  - name: probe
    id: 9
    ingress_site: NYCM
    egress_site: KSCY
    egress_port: srv
    match: [{dst_prefix: 198.18.0.2/32, protocol: udp, dst_ports: "9000"}]
    hops:
      - {vnf: forward, site: NYCM}
      - {vnf: forward, site: KSCY}
)";
  return yaml.str();
}

struct ProbeResult {
  long received = 0;
  double median_us = 0, mean_us = 0, min_us = 0, max_us = 0;
};

ProbeResult parse_probe(const std::string& text) {
  ProbeResult r;
  std::istringstream in(text.substr(text.find("received")));
  std::string word;
  in >> word >> r.received >> word >> r.median_us >> word >> r.mean_us >> word >> r.min_us >> word >> r.max_us;
  return r;
}

class WanEmulation : public ::testing::TestWithParam<WanCase> {};

TEST_P(WanEmulation, MeasuredOneWayDelayAndLossMatchTheLink) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for network namespaces";
  const WanCase c = GetParam();
  NamespacePair namespaces("nfvw", "198.18.0");
  ASSERT_TRUE(namespaces.ok()) << namespaces.error();
  const std::string dir = make_temp_dir("wan");
  const std::string probe = required_env("NFV_UDP_PROBE");

  PodRun pod = start_pod(dir, "wan", wan_pod(c), {});
  // The receiver is ready once it prints "ready".
  Subprocess receiver({"ip", "netns", "exec", "nfvw-srv", probe, "recv", "9000", std::to_string(kProbes), "3000"},
                      dir + "/recv.out", dir + "/recv.err");
  ASSERT_TRUE(poll_until([&] { return read_file(dir + "/recv.out").find("ready") != std::string::npos; }, std::chrono::seconds(5)))
      << "the receiver did not get ready in 5 s: " << read_file(dir + "/recv.err");
  // Let the pod finish starting (its ports come up in well under a second).
  ASSERT_TRUE(poll_until([&] { return read_file(pod.stderr_path()).find("forwarding on") != std::string::npos; }, std::chrono::seconds(10)))
      << pod.logs();

  const auto sent = run_command("ip netns exec nfvw-cli " + probe + " send " + kServerIp + " 9000 " +
                                std::to_string(kProbes) + " " + std::to_string(kIntervalUs));
  ASSERT_EQ(sent.exit_code, 0) << sent.output;
  ASSERT_EQ(receiver.wait(std::chrono::seconds(30)), 0);
  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();

  const ProbeResult r = parse_probe(read_file(dir + "/recv.out"));
  const auto stats = pod.stats();
  const double configured_us = c.delay_ms * 1000.0;
  RecordProperty("median_us", std::to_string(r.median_us));
  std::printf("delay %.1f ms loss %.2f: received %ld/%d, one-way median %.1f us mean %.1f us min %.1f us max %.1f us\n",
              c.delay_ms, c.loss, r.received, kProbes, r.median_us, r.mean_us, r.min_us, r.max_us);

  EXPECT_NEAR(r.median_us, configured_us, 0.10 * configured_us + 50.0);
  EXPECT_GE(r.min_us, configured_us * 0.99) << "a packet arrived before its delay";

  // Loss: binomial, within four standard deviations of the configured rate.
  const double expected_lost = kProbes * c.loss;
  const double sigma = std::sqrt(kProbes * c.loss * (1 - c.loss));
  EXPECT_NEAR(kProbes - r.received, expected_lost, 4 * sigma + 1);
  // Every probe entered the chain; the pod's own loss counter explains the rest.
  const auto& chain = chain_stats(stats, "probe");
  EXPECT_EQ(chain.in_packets(), static_cast<uint64_t>(kProbes));
  EXPECT_EQ(chain.out_packets() + drops(stats, "wan_loss"), chain.in_packets());
  ASSERT_EQ(chain.drops_size(), 1);
  EXPECT_EQ(chain.drops(0).reason(), "wan_loss");
  EXPECT_EQ(chain.drops(0).packets(), drops(stats, "wan_loss"));
  EXPECT_EQ(static_cast<uint64_t>(r.received), chain.out_packets());
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0) << "mbuf leak";
}

INSTANTIATE_TEST_SUITE_P(Links, WanEmulation, ::testing::Values(WanCase{20.0, 0.10}, WanCase{5.0, 0.02}),
                         [](const auto& info) {
                           return "delay" + std::to_string(static_cast<int>(info.param.delay_ms)) + "ms_loss" +
                                  std::to_string(static_cast<int>(info.param.loss * 100)) + "pct";
                         });

}  // namespace
}  // namespace nfv::test
