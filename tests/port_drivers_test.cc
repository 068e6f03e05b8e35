// The other port drivers of the pod, each with real traffic: net_ring
// (transmit comes back as receive), net_tap (frames from the kernel's own
// UDP stack), net_null as a sink. (memif, pcap and af_packet are covered by
// the other integration tests; PCI needs a NIC this machine lacks.)
#include <unistd.h>

#include <gtest/gtest.h>

#include "live_pod.h"
#include "pcap_reader.h"
#include "bounded_wait.h"
#include "pod_runner.h"
#include "tshark.h"

namespace nfv::test {
namespace {

TEST(PortDrivers, RingPortTransmitsAndReceivesRealFrames) {
  const std::string dir = make_temp_dir("ring");
  const std::string in = shared_data("pcaps/zeek/http_bro.org.pcap");
  // pcap -> chain -> ring; the ring hands every frame back as rx, whose
  // default (pass) sends it to the output pcap.
  const std::string config = R"(name: ringpod
sites: [{name: A, lat: 0, lon: 0}]
hosted_sites: [A]
ports:
  - {name: in, driver: pcap, site: A, rx_pcap: )" + in + R"(}
  - {name: loop, driver: ring, site: A, default_action: pass, default_port: out}
  - {name: out, driver: pcap, site: A, tx_pcap: )" + dir + R"(/out.pcap}
chains:
  - {name: c, id: 1, ingress_site: A, egress_site: A, egress_port: loop, ingress_ports: [in], match: [{}], hops: [{vnf: forward, site: A}]}
)";
  PodRun pod = start_pod(dir, "ringpod", config, {"--stop-when-idle-ms", "400"});
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  const auto ipv4 = tshark_frames(in, kPlainIpv4Filter);
  EXPECT_EQ(port_stats(stats, "loop").tx_packets(), ipv4.size());
  EXPECT_EQ(port_stats(stats, "loop").rx_packets(), ipv4.size());
  EXPECT_EQ(read_frames(dir + "/out.pcap").size(), ipv4.size());
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0);
}

TEST(PortDrivers, TapPortCarriesFramesFromTheKernel) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to configure the tap interface";
  const std::string dir = make_temp_dir("tap");
  const std::string probe = required_env("NFV_UDP_PROBE");
  const std::string config = R"(name: tappod
sites: [{name: A, lat: 0, lon: 0}]
hosted_sites: [A]
control: {port: 0, token: t}
ports:
  - {name: kernel, driver: tap, site: A, iface: nfvtap0}
  - {name: out, driver: pcap, site: A, tx_pcap: )" + dir + R"(/out.pcap}
chains:
  - name: udp
    id: 3
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{dst_prefix: 198.18.7.2/32, protocol: udp, dst_ports: "7777"}]
    hops: [{vnf: counter, site: A}]
)";
  PodRun pod = start_pod(dir, "tappod", config, {});
  const int control_port = logged_port(pod, "control API listening on");
  ASSERT_GT(control_port, 0) << pod.logs();
  // The kernel sends to an address behind the tap (a static neighbour, so
  // no ARP is needed); the pod receives those frames on its tap port.
  const auto setup = run_command(
      "ip addr add 198.18.7.1/24 dev nfvtap0 && ip link set nfvtap0 up && "
      "ip neigh replace 198.18.7.2 lladdr 02:00:00:00:07:02 dev nfvtap0 nud permanent && "
      "sysctl -qw net.ipv6.conf.nfvtap0.disable_ipv6=1");
  ASSERT_EQ(setup.exit_code, 0) << setup.output;
  const auto sent = run_command(probe + " send 198.18.7.2 7777 500 200");
  ASSERT_EQ(sent.exit_code, 0) << sent.output;
  EXPECT_TRUE(poll_until([&] { return chain_stats(live_stats(control_port), "udp").out_packets() >= 500; }, std::chrono::seconds(10)))
      << "the chain did not pass the probe's 500 datagrams in 10 s";
  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  EXPECT_EQ(chain_stats(stats, "udp").out_packets(), 500u);
  const auto rows = tshark_fields(dir + "/out.pcap", {"udp.dstport"}, "udp.dstport == 7777");
  EXPECT_EQ(rows.size(), 500u);
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0);
}

TEST(PortDrivers, TwoWorkersEachPollTheirPortsAndTransmitOnTheirOwnQueue) {
  const std::string dir = make_temp_dir("workers");
  const std::string config = R"(name: twoworkers
sites: [{name: A, lat: 0, lon: 0}]
hosted_sites: [A]
ports:
  - {name: in1, driver: null, site: A, default_action: pass, default_port: sink}
  - {name: in2, driver: null, site: A, default_action: pass, default_port: sink}
  - {name: sink, driver: null, site: A, tx_only: true}
chains: []
)";
  // Three lcores on two cores: main and worker 2 share core 0.
  PodRun pod = start_pod(dir, "twoworkers", config, {"--run-for-s", "1"}, "0@0,1@1,2@0");
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  ASSERT_EQ(stats.workers_size(), 2);
  EXPECT_GT(stats.workers(0).busy_packets(), 0u);
  EXPECT_GT(stats.workers(1).busy_packets(), 0u);
  const uint64_t received = port_stats(stats, "in1").rx_packets() + port_stats(stats, "in2").rx_packets();
  EXPECT_GT(received, 1000000u);
  EXPECT_EQ(port_stats(stats, "sink").tx_packets(), received);
  EXPECT_EQ(stats.drops_size(), 0);
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0);
}

}  // namespace
}  // namespace nfv::test
