// (a) One pod hosting three sites runs a three-hop chain from a pcap port to
// a pcap port: every plain IPv4 frame of a real capture comes out unchanged
// and in order, and the other frames follow the port's default action.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "pcap_reader.h"
#include "pod_runner.h"
#include "tshark.h"

namespace nfv::test {
namespace {

struct PcapCase {
  std::string pcap;        // relative to the shared data folder
  std::string default_action;
};

std::string three_site_pod(const std::string& in_pcap, const std::string& out_pcap, const std::string& default_action) {
  return R"(name: pcap3
sites:
  - {name: NYCM, lat: 40.7833, lon: -73.9667}
  - {name: CHIN, lat: 41.8333, lon: -87.6167}
  - {name: KSCY, lat: 39.1000, lon: -94.5833}
hosted_sites: [NYCM, CHIN, KSCY]
links:
  - {from: NYCM, to: CHIN, bidirectional: true}
  - {from: CHIN, to: KSCY, delay_ms: 1.5}
ports:
  - {name: in, driver: pcap, site: NYCM, rx_pcap: )" + in_pcap + R"(, default_action: )" + default_action + R"(, default_port: out}
  - {name: out, driver: pcap, site: KSCY, tx_pcap: )" + out_pcap + R"(}
chains:
  - name: v4
    id: 7
    ingress_site: NYCM
    egress_site: KSCY
    egress_port: out
    match: [{src_prefix: 0.0.0.0/0}]
    hops:
      - {vnf: forward, site: NYCM}
      - {vnf: counter, site: CHIN}
      - {vnf: forward, site: KSCY}
)";
}

// Frames as strings: GCC 12 warns falsely (-Wstringop-overread) on a
// multiset of std::vector.
std::multiset<std::string> as_multiset(const std::vector<Frame>& frames) {
  std::multiset<std::string> set;
  for (const Frame& f : frames) set.emplace(f.begin(), f.end());
  return set;
}

class ThreeSitePodPcap : public ::testing::TestWithParam<PcapCase> {};

TEST_P(ThreeSitePodPcap, Ipv4FramesCrossThreeHopsUnchangedAndOthersFollowTheDefault) {
  const PcapCase& c = GetParam();
  const std::string dir = make_temp_dir("pcap3");
  const std::string in = shared_data(c.pcap);
  const std::string out = dir + "/out.pcap";

  PodRun pod = start_pod(dir, "pcap3", three_site_pod(in, out, c.default_action), {"--stop-when-idle-ms", "400"});
  ASSERT_EQ(pod.wait(), 0) << pod.logs();

  const std::vector<Frame> input = read_frames(in);
  const std::vector<Frame> output = read_frames(out);
  std::vector<Frame> ipv4;
  for (int number : tshark_frames(in, kPlainIpv4Filter)) ipv4.push_back(input[number - 1]);
  ASSERT_FALSE(ipv4.empty());
  ASSERT_LT(ipv4.size(), input.size()) << "the capture should hold odd frames too";

  const auto stats = pod.stats();
  const auto& chain = chain_stats(stats, "v4");
  EXPECT_EQ(chain.in_packets(), ipv4.size());
  EXPECT_EQ(chain.out_packets(), ipv4.size());
  EXPECT_EQ(chain.latency().samples(), chain.out_packets()) << "every packet out of the chain is timed once";
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0) << "mbuf leak";

  if (c.default_action == "drop") {
    // Exactly the IPv4 frames, byte for byte, in their original order.
    EXPECT_EQ(output, ipv4);
    EXPECT_EQ(drops(stats, "non_ip_default") + drops(stats, "unmatched_default"), input.size() - ipv4.size());
  } else {
    // Everything comes out; odd frames skip the chain (so order may differ).
    EXPECT_EQ(as_multiset(output), as_multiset(input));
    EXPECT_EQ(port_stats(stats, "in").default_passed(), input.size() - ipv4.size());
    EXPECT_EQ(stats.drops_size(), 0);
  }

  // The counter hop saw each IPv4 5-tuple once, as tshark counts them.
  const auto flows = tshark_ipv4_flows(in);
  bool found = false;
  for (const auto& hop : stats.hops())
    for (const auto& counter : hop.counters())
      if (hop.vnf() == "counter" && counter.name() == "flows") {
        EXPECT_EQ(counter.value(), flows.size());
        found = true;
      }
  EXPECT_TRUE(found);
}

INSTANTIATE_TEST_SUITE_P(RealCaptures, ThreeSitePodPcap,
                         ::testing::Values(PcapCase{"pcaps/tcpreplay/test.pcap", "drop"},
                                           PcapCase{"pcaps/tcpreplay/test.pcap", "pass"},
                                           PcapCase{"pcaps/zeek/wikipedia.pcap", "drop"},
                                           PcapCase{"pcaps/zeek/wikipedia.pcap", "pass"}),
                         [](const auto& info) {
                           std::string name = info.param.pcap.substr(info.param.pcap.rfind('/') + 1);
                           name = name.substr(0, name.find('.')) + "_" + info.param.default_action;
                           return name;
                         });

}  // namespace
}  // namespace nfv::test
