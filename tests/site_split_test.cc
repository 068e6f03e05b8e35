// Site splits changed through the control API (nfvctl split) on a running
// pod: a stateful hop's existing flows never move; new flows follow the shares.
#include <unistd.h>

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "control.pb.h"
#include "pod_runner.h"
#include "bounded_wait.h"
#include "live_pod.h"
#include "subprocess.h"

namespace nfv::test {
namespace {

// The chain's packets in so far, over the pod's control API.
uint64_t chain_in(int port, const std::string& chain = "web") { return chain_stats(live_stats(port), chain).in_packets(); }

TEST(SiteSplit, ChangingTheSplitNeverMovesAStatefulHopsExistingFlows) {
  const std::string dir = make_temp_dir("split");
  const std::string config = R"(name: splitpod
sites: [{name: A, lat: 40.78, lon: -73.97}, {name: B, lat: 41.83, lon: -87.62}]
hosted_sites: [A, B]
links: [{from: A, to: B, delay_ms: 1, bidirectional: true}]
control: {port: 0, token: t0ken}
ports:
  - {name: in, driver: pcap, site: A, rx_pcap: )" + shared_data("pcaps/ndpi/netflix.pcap") + R"(, rx_pcap_loop: true}
  - {name: out, driver: null, site: A, tx_only: true}
chains:
  - name: web
    id: 1
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{}]
    hops:
      - {vnf: counter, placements: [{site: A, weight: 1, instances: 1}, {site: B, weight: 0, instances: 1}]}
)";
  PodRun pod = start_pod(dir, "splitpod", config, {});
  const int port = logged_port(pod, "control API listening on");
  ASSERT_GT(port, 0) << pod.logs();
  const std::string nfvctl = "NFV_TOKEN=t0ken " + required_env("NFVCTL") + " --addr 127.0.0.1:" + std::to_string(port) + " ";
  // All flows at A so far; then half the new flows go to B.
  auto before = run_command(nfvctl + "--json telemetry").output;
  EXPECT_EQ(run_command(nfvctl + "split web 1 A=1 B=1").exit_code, 0);
  const auto refused = run_command(nfvctl + "split web 1 C=1");
  EXPECT_NE(refused.output.find("has no placement at C"), std::string::npos) << refused.output;
  // Every flow of the looping capture comes round again after the split.
  const uint64_t at_split = chain_in(port);
  ASSERT_TRUE(poll_until([&] { return chain_in(port) > at_split + 2000; }, std::chrono::seconds(20)))
      << "fewer than 2000 packets in 20 s after the split";
  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  ASSERT_EQ(stats.hops_size(), 2);
  const auto& at_a = stats.hops(0).site() == "A" ? stats.hops(0) : stats.hops(1);
  const auto& at_b = stats.hops(0).site() == "A" ? stats.hops(1) : stats.hops(0);
  uint64_t flows_a = 0, flows_b = 0;
  for (const auto& c : at_a.counters()) if (c.name() == "flows") flows_a = c.value();
  for (const auto& c : at_b.counters()) if (c.name() == "flows") flows_b = c.value();
  // The capture's 119 flows all started at A before the split; afterwards
  // the pins keep them there (a flow never moves), so B sees no old flow.
  EXPECT_EQ(flows_a, 119u);
  EXPECT_EQ(flows_b, 0u) << "an existing flow moved to the other site";
  EXPECT_GT(at_a.in_packets(), 0u);
  EXPECT_EQ(chain_stats(stats, "web").out_packets() + drops(stats, "shutdown"), chain_stats(stats, "web").in_packets());
}

TEST(SiteSplit, NewFlowsFollowTheShares) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to configure the tap interface";
  const std::string dir = make_temp_dir("split2");
  const std::string config = R"(name: split2pod
sites: [{name: A, lat: 40.78, lon: -73.97}, {name: B, lat: 41.83, lon: -87.62}]
hosted_sites: [A, B]
links: [{from: A, to: B, delay_ms: 1, bidirectional: true}]
control: {port: 0, token: t0ken}
ports:
  - {name: kernel, driver: tap, site: A, iface: nfvsplit0}
  - {name: out, driver: null, site: A, tx_only: true}
chains:
  - name: udp
    id: 2
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{dst_prefix: 198.18.9.2/32, protocol: udp}]
    hops:
      - {vnf: counter, placements: [{site: A, weight: 1, instances: 1}, {site: B, weight: 0, instances: 2}]}
)";
  PodRun pod = start_pod(dir, "split2pod", config, {});
  const int port = logged_port(pod, "control API listening on");
  ASSERT_GT(port, 0) << pod.logs();
  ASSERT_EQ(run_command("ip addr add 198.18.9.1/24 dev nfvsplit0 && ip link set nfvsplit0 up && "
                        "ip neigh replace 198.18.9.2 lladdr 02:00:00:00:09:02 dev nfvsplit0 nud permanent")
                .exit_code,
            0);
  const std::string probe = required_env("NFV_UDP_PROBE");
  const std::string nfvctl = "NFV_TOKEN=t0ken " + required_env("NFVCTL") + " --addr 127.0.0.1:" + std::to_string(port) + " ";
  auto flows_at = [&](const nfv::stats::PodStats& s, const std::string& site) {
    for (const auto& h : s.hops())
      if (h.site() == site)
        for (const auto& c : h.counters())
          if (c.name() == "flows") return c.value();
    return uint64_t{0};
  };
  auto telemetry = [&] {
    nfv::control::Response r;
    const auto json = run_command(nfvctl + "--json telemetry").output;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &r).ok()) << json;
    return r.telemetry();
  };
  ASSERT_EQ(run_command(probe + " flows 198.18.9.2 7000 400 20000").exit_code, 0);
  auto counted = [&](uint64_t flows) {
    return poll_until([&] { const auto t = telemetry(); return flows_at(t, "A") + flows_at(t, "B") >= flows; }, std::chrono::seconds(10));
  };
  EXPECT_TRUE(counted(400)) << "the pod did not count the probe's 400 flows in 10 s";
  auto s = telemetry();
  EXPECT_EQ(flows_at(s, "A"), 400u);
  EXPECT_EQ(flows_at(s, "B"), 0u);
  // A quarter of the new flows to B (whose two instances share them).
  ASSERT_EQ(run_command(nfvctl + "split udp 1 A=3 B=1").exit_code, 0);
  ASSERT_EQ(run_command(probe + " flows 198.18.9.2 7000 800 30000").exit_code, 0);
  EXPECT_TRUE(counted(1200)) << "the pod did not count the probe's next 800 flows in 10 s";
  s = telemetry();
  const double at_b = static_cast<double>(flows_at(s, "B"));
  std::printf("after the 3:1 split: %lu new flows at A, %.0f at B\n", static_cast<unsigned long>(flows_at(s, "A") - 400), at_b);
  EXPECT_NEAR(at_b, 200.0, 40.0);
  EXPECT_EQ(flows_at(s, "A") - 400 + flows_at(s, "B"), 800u);
  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
}

}  // namespace
}  // namespace nfv::test
