// An instance's service rate is enforced like a VM of that size: offered
// more than it can serve, it serves at its rate, its queue fills, then the
// excess is dropped and counted with its reason.
#include <gtest/gtest.h>

#include "pod_runner.h"

namespace nfv::test {
namespace {

TEST(InstanceCapacity, OverloadQueuesThenDropsAtTheServiceRate) {
  const std::string dir = make_temp_dir("capacity");
  const std::string config = R"(name: capacity
sites: [{name: A, lat: 40.78, lon: -73.97}]
hosted_sites: [A]
ports:
  - {name: in, driver: pcap, site: A, rx_pcap: )" + shared_data("pcaps/zeek/http_bro.org.pcap") + R"(, rx_pcap_loop: true}
  - {name: out, driver: null, site: A, tx_only: true}
chains:
  - name: web
    id: 1
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{}]
    hops: [{vnf: forward, site: A, instances: 2, service_rate_pps: 20000, queue_packets: 256}]
)";
  PodRun pod = start_pod(dir, "capacity", config, {"--run-for-s", "2"});
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  const auto& hop = stats.hops(0);
  const auto& chain = chain_stats(stats, "web");
  // Two instances at 20,000 packets/s each, for the time the pod forwarded.
  const double expected = 2 * 20000.0 * stats.forwarding_s();
  EXPECT_NEAR(static_cast<double>(hop.in_packets()), expected, 0.05 * expected);
  uint64_t refused = 0;
  for (const auto& instance : hop.instances()) {
    EXPECT_NEAR(static_cast<double>(instance.in_packets()), expected / 2, 0.05 * expected / 2);
    EXPECT_GT(instance.in_bytes(), instance.in_packets() * 60) << "bytes counted per instance";
    EXPECT_EQ(instance.out_bytes(), instance.in_bytes()) << "forward keeps every byte";
    refused += instance.queue_full();
  }
  EXPECT_EQ(refused, hop.queue_full()) << "per-instance refusals add up to the hop's";
  ASSERT_EQ(chain.drops_size(), 1);
  EXPECT_EQ(chain.drops(0).reason(), "instance_queue_full");
  EXPECT_EQ(chain.drops(0).packets(), drops(stats, "instance_queue_full")) << "the chain's drops by reason";
  EXPECT_GT(drops(stats, "instance_queue_full"), chain.in_packets() / 2) << "the overload should mostly be dropped";
  EXPECT_EQ(hop.queue_full(), drops(stats, "instance_queue_full"));
  EXPECT_EQ(chain.in_packets(), chain.out_packets() + drops(stats, "instance_queue_full") + drops(stats, "shutdown"));
  ASSERT_EQ(stats.sites_size(), 1);
  EXPECT_EQ(stats.sites(0).active_instances(), 2u);
  EXPECT_EQ(stats.sites(0).processed_packets(), hop.in_packets());
  EXPECT_EQ(stats.sites(0).rx_bytes(), port_stats(stats, "in").rx_bytes());
  EXPECT_GT(stats.sites(0).processed_bytes(), 0u);
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0);
}

}  // namespace
}  // namespace nfv::test
