// The pod as an operator meets it: a bad config fails before EAL with the
// file, line and field; SIGTERM and SIGINT stop it gracefully, delivering
// what is on the WAN links, closing ports and leaving no hugepage files.
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "live_pod.h"
#include "bounded_wait.h"
#include "pod_runner.h"

namespace nfv::test {
namespace {

std::string looping_pod(const std::string& name, const std::string& pcap) {
  return "name: " + name + R"(
sites: [{name: A, lat: 40.78, lon: -73.97}, {name: B, lat: 41.83, lon: -87.62}]
hosted_sites: [A, B]
links: [{from: A, to: B, delay_ms: 30, bandwidth_mbps: 200, queue_packets: 65536}]
mempool: {mbufs: 131071}
control: {port: 0, token: t}
ports:
  - {name: in, driver: pcap, site: A, rx_pcap: )" + pcap + R"(, rx_pcap_loop: true}
  - {name: sink, driver: null, site: B, tx_only: true}
chains:
  - name: all
    id: 1
    ingress_site: A
    egress_site: B
    egress_port: sink
    match: [{}]
    hops: [{vnf: counter, site: A}, {vnf: forward, site: B}]
)";
}

bool hugepage_files_with_prefix(const std::string& prefix) {
  DIR* dir = opendir("/dev/hugepages");
  if (!dir) return false;
  bool found = false;
  while (dirent* e = readdir(dir))
    if (std::string(e->d_name).rfind(prefix, 0) == 0) found = true;
  closedir(dir);
  return found;
}

TEST(PodLifecycle, InvalidConfigFailsBeforeEalNamingFileLineAndField) {
  const std::string dir = make_temp_dir("badcfg");
  const std::string config = dir + "/bad.yaml";
  write_file(config, "name: bad\nsites:\n  - {name: A, lat: 1, lon: 2}\nhosted_sites: [A]\nports:\n  - {name: p, driver: warp, site: A}\n");
  const auto result = run_command(nfv_pod_binary() + " -l 0 -- --config " + config);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("nfv-pod: invalid config: " + config + ":6: ports[0].driver: expected one of memif"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("EAL"), std::string::npos) << "EAL must not start on a bad config";
}

TEST(PodLifecycle, CheckConfigAndHelpNeedNoHugepages) {
  const std::string dir = make_temp_dir("check");
  write_file(dir + "/ok.yaml", looping_pod("checked", shared_data("pcaps/zeek/wikipedia.pcap")));
  const auto check = run_command(nfv_pod_binary() + " -- --config " + dir + "/ok.yaml --check-config");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("valid (2 sites, 2 hosted, 1 links, 2 ports, 1 chains)"), std::string::npos) << check.output;
  const auto help = run_command(nfv_pod_binary() + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("usage: nfv-pod [EAL args] -- --config FILE"), std::string::npos);
  const auto unknown = run_command(nfv_pod_binary() + " -- --config x.yaml --frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("unknown option '--frobnicate'"), std::string::npos) << unknown.output;
}

class GracefulStop : public ::testing::TestWithParam<int> {};

// The stale socket a killed memif server leaves is removed at start; a
// regular file at the socket's path is not a socket, and stays.
TEST(PodLifecycle, AFileWhereTheMemifSocketGoesIsNeverRemoved) {
  const std::string dir = make_temp_dir("memiffile");
  const std::string socket_path = dir + "/in.sock";
  write_file(socket_path, "not a socket\n");
  const std::string config = R"(name: memiffile
sites: [{name: A, lat: 40.78, lon: -73.97}]
hosted_sites: [A]
ports:
  - {name: in, driver: memif, site: A, memif_role: server, memif_socket: )" + socket_path + R"(}
  - {name: sink, driver: null, site: A, tx_only: true}
chains:
  - {name: all, id: 1, ingress_site: A, egress_site: A, egress_port: sink, match: [{}], hops: [{vnf: forward, site: A}]}
)";
  PodRun pod = start_pod(dir, "memiffile", config, {"--stop-when-idle-ms", "200"});
  EXPECT_NE(pod.wait(std::chrono::seconds(30)), 0) << "a memif server cannot listen where a file is\n" << pod.logs();
  EXPECT_EQ(read_file(socket_path), "not a socket\n") << pod.logs();
  EXPECT_EQ(pod.logs().find("removed the stale memif socket"), std::string::npos) << pod.logs();
}

TEST_P(GracefulStop, SignalDrainsWanLinksClosesPortsAndReleasesHugepages) {
  const int signo = GetParam();
  const std::string name = signo == SIGTERM ? "stopterm" : "stopint";
  const std::string dir = make_temp_dir(name);
  PodRun pod = start_pod(dir, name, looping_pod(name, shared_data("pcaps/zeek/http_bro.org.pcap")), {});
  const int control_port = logged_port(pod, "control API listening on");
  ASSERT_GT(control_port, 0) << pod.logs();
  // Enough in flight that the stop has something to drain.
  ASSERT_TRUE(poll_until([&] { return chain_stats(live_stats(control_port), "all").in_packets() > 1000; }, std::chrono::seconds(20)))
      << "fewer than 1000 packets in 20 s\n" << pod.logs();
  ASSERT_TRUE(pod.process->running()) << pod.logs();
  pod.process->signal(signo);
  ASSERT_EQ(pod.wait(std::chrono::seconds(10)), 0) << pod.logs();

  const auto stats = pod.stats();
  const auto& chain = chain_stats(stats, "all");
  EXPECT_GT(chain.in_packets(), 1000u) << pod.logs();
  // Nothing vanishes: every packet that entered left the sink or was
  // dropped for a counted reason; the 30 ms delay line drained on the way out.
  uint64_t dropped = 0;
  for (const auto& d : stats.drops()) dropped += d.packets();
  EXPECT_EQ(chain.in_packets(), chain.out_packets() + dropped);
  EXPECT_EQ(drops(stats, "shutdown"), 0u);
  EXPECT_EQ(stats.links(0).in_flight(), 0u);
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0);
  EXPECT_NE(read_file(pod.stdout_path()).find("pod " + name + ":"), std::string::npos) << "final counters printed";
  EXPECT_FALSE(hugepage_files_with_prefix(name)) << "hugepage files left behind";
}

INSTANTIATE_TEST_SUITE_P(Signals, GracefulStop, ::testing::Values(SIGTERM, SIGINT),
                         [](const auto& info) { return std::string(info.param == SIGTERM ? "SIGTERM" : "SIGINT"); });

}  // namespace
}  // namespace nfv::test
