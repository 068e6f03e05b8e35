// The VNF library on real traffic: two network namespaces (client, server)
// joined through a pod with af_packet ports; the client->server direction
// runs the chain firewall -> ids -> monitor -> ratelimit as a bump in the
// wire (replies pass by the port default). Real curl fetches from a real
// HTTP server (python3 -m http.server): an allowed port works, a denied port
// does not, a signature in a request is counted, the monitor reports the flow
// through the control API (nfvctl vnf ... top).
#include <unistd.h>

#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "namespace_pair.h"
#include "live_pod.h"
#include "bounded_wait.h"
#include "pod_runner.h"

namespace nfv::test {
namespace {

std::string pod_config(const std::string& dir) {
  return R"(name: bump
sites:
  - {name: A, lat: 40.0, lon: -74.0}
hosted_sites: [A]
control: {port: 0, token: t0ken}
ports:
  - {name: cli, driver: af_packet, site: A, iface: nfvv-c1, default_action: pass, default_port: srv}
  - {name: srv, driver: af_packet, site: A, iface: nfvv-s1, default_action: pass, default_port: cli}
chains:
  - name: web
    id: 5
    ingress_site: A
    egress_site: A
    egress_port: srv
    ingress_ports: [cli]
    match: [{dst_prefix: 198.18.1.2/32, protocol: tcp}]
    hops:
      - {vnf: firewall, site: A, params: {rules_file: ")" + dir + R"(/rules.txt"}}
      - {vnf: ids, site: A, params: {signatures_file: ")" + dir + R"(/signatures.txt"}}
      - {vnf: monitor, site: A, params: {top_k: "4", export_interval_ms: "20"}}
      - {vnf: ratelimit, site: A, params: {cir: "125000000", cbs: "1000000", ebs: "1000000"}}
)";
}

const nfv::stats::HopStats& hop(const nfv::stats::PodStats& stats, uint32_t n) {
  for (const auto& h : stats.hops())
    if (h.chain() == "web" && h.hop() == n) return h;
  throw std::runtime_error("no hop " + std::to_string(n));
}

uint64_t counter(const nfv::stats::HopStats& h, const std::string& name) {
  for (const auto& c : h.counters())
    if (c.name() == name) return c.value();
  return 0;
}

TEST(VnfRealTraffic, CurlThroughFirewallIdsMonitorRatelimit) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for network namespaces";
  NamespacePair ns("nfvv", "198.18.1");
  ASSERT_TRUE(ns.ok()) << ns.error();
  const std::string dir = make_temp_dir("vnf_real");
  write_file(dir + "/rules.txt",
             "# the web port is open, the admin port is not\n"
             "allow tcp any 198.18.1.2/32 any 8080\n"
             "deny  tcp any 198.18.1.2/32 any 8081\n");
  write_file(dir + "/signatures.txt", "1001 alert \"X-Attack: nfv-sig\" test header\n2002 alert \"never-seen-signature\"\n");
  run_command("mkdir -p " + dir + "/www && echo hello-from-server > " + dir + "/www/hello.txt");
  Subprocess web({"ip", "netns", "exec", "nfvv-srv", "/usr/bin/python3", "-m", "http.server", "8080", "--bind", "198.18.1.2",
                  "--directory", dir + "/www"},
                 dir + "/web.out", dir + "/web.err");
  Subprocess admin({"ip", "netns", "exec", "nfvv-srv", "/usr/bin/python3", "-m", "http.server", "8081", "--bind", "198.18.1.2",
                    "--directory", dir + "/www"},
                   dir + "/admin.out", dir + "/admin.err");
  PodRun pod = start_pod(dir, "bump", pod_config(dir), {});
  const int control_port = logged_port(pod, "control API listening on");
  ASSERT_GT(control_port, 0) << pod.logs();
  // The servers are up once the server namespace answers locally.
  ASSERT_TRUE(poll_until(
      [] {
        return run_command("ip netns exec nfvv-srv curl -s -o /dev/null --max-time 1 http://198.18.1.2:8081/hello.txt", 5).exit_code == 0 &&
               run_command("ip netns exec nfvv-srv curl -s -o /dev/null --max-time 1 http://198.18.1.2:8080/hello.txt", 5).exit_code == 0;
      },
      std::chrono::seconds(15), std::chrono::milliseconds(20)))
      << "the http servers did not answer in their namespace within 15 s";

  const auto fetched = run_command("ip netns exec nfvv-cli curl -s --max-time 10 http://198.18.1.2:8080/hello.txt", 20);
  EXPECT_EQ(fetched.exit_code, 0) << fetched.output;
  EXPECT_NE(fetched.output.find("hello-from-server"), std::string::npos) << fetched.output;
  const auto denied = run_command("ip netns exec nfvv-cli curl -s --max-time 3 http://198.18.1.2:8081/hello.txt", 20);
  EXPECT_NE(denied.exit_code, 0) << "the firewall denies port 8081: " << denied.output;
  const auto flagged =
      run_command("ip netns exec nfvv-cli curl -s --max-time 10 -H 'X-Attack: nfv-sig' http://198.18.1.2:8080/hello.txt", 20);
  EXPECT_EQ(flagged.exit_code, 0) << "alert-only signatures let the request through: " << flagged.output;

  const std::string nfvctl = required_env("NFVCTL") + " --addr 127.0.0.1:" + std::to_string(control_port) + " ";
  // The monitor's top list shows the flows once an export interval has passed.
  CommandResult top;
  const std::regex web_flow(R"(\n1 6 198\.18\.1\.1 \d+ 198\.18\.1\.2 8080 \d+ \d+)");
  EXPECT_TRUE(poll_until([&] { return std::regex_search((top = run_command(nfvctl + "vnf web 3 top")).output, web_flow); },
                         std::chrono::seconds(10)))
      << top.output;
  EXPECT_EQ(top.exit_code, 0) << top.output;
  const auto refused = run_command(nfvctl + "vnf web 1 top");
  EXPECT_NE(refused.exit_code, 0) << "the firewall takes no requests";

  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  web.signal(SIGTERM);
  admin.signal(SIGTERM);
  web.wait(std::chrono::seconds(5));
  admin.wait(std::chrono::seconds(5));
  const auto stats = pod.stats();
  const auto& fw = hop(stats, 1);
  EXPECT_GE(counter(fw, "denied"), 1u) << "the SYN (and its retries) to 8081";
  EXPECT_GE(counter(fw, "allowed"), 10u);
  EXPECT_EQ(counter(fw, "default_denied"), 0u);
  const auto& ids = hop(stats, 2);
  EXPECT_EQ(counter(ids, "alerts_sid_1001"), 1u);
  EXPECT_EQ(counter(ids, "alerts_sid_2002"), 0u);
  EXPECT_GE(counter(hop(stats, 3), "flows"), 2u);
  EXPECT_EQ(counter(hop(stats, 4), "red"), 0u);
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0) << "mbuf leak";
}

}  // namespace
}  // namespace nfv::test
