// The header mark (vnfs/header_mark.h) through a real pod: a frame leaves
// the pod marked exactly when its headers are plain IPv4 of standard size,
// whatever mark it arrived with, and a VNF behind the pod reads a frame
// that arrived with a stale mark from its real headers.
//
// The pod runs in this process (EAL: main lcore + one worker); frames go in
// through a net_ring port with the mark already set, as a peer in the same
// process could hand them over, and come out of another.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <rte_ethdev.h>

#include "header_mark.h"
#include "in_process_pod.h"
#include "packet_builder.h"

namespace nfv {
namespace {

using namespace std::chrono_literals;
using nfv::test::Bytes;
using nfv::test::concat;
using nfv::test::ethernet;
using nfv::test::ipv4;
using nfv::test::udp;

Bytes plain_udp(uint16_t dport, uint16_t payload = 20) {
  return concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, static_cast<uint16_t>(8 + payload)), udp(1000, dport, payload)});
}

// The same with 4 bytes of IPv4 options (three NOPs and an end): the UDP
// header lies 4 bytes further in than a marked frame's layout says.
Bytes udp_with_options(uint16_t dport) {
  Bytes header = ipv4("10.0.0.1", "10.0.0.2", 17, 8 + 20 + 4);
  header[0] = 0x46;
  header.insert(header.end(), {1, 1, 1, 0});
  return concat({ethernet(0x0800), header, udp(1000, dport, 20)});
}

// Sends `frame` carrying the mark; returns what comes out (null: dropped).
rte_mbuf* pass_marked(uint16_t in, uint16_t out, rte_mempool* pool, const Bytes& frame, uint64_t mark) {
  rte_mbuf* m = nfv::test::to_mbuf(pool, frame);
  m->ol_flags |= mark;
  while (rte_eth_tx_burst(in, 0, &m, 1) == 0) std::this_thread::sleep_for(20us);
  for (int wait = 0; wait < 300; ++wait) {
    rte_mbuf* got = nullptr;
    if (rte_eth_rx_burst(out, 0, &got, 1) == 1) return got;
    std::this_thread::sleep_for(1ms);
  }
  return nullptr;
}

TEST(HeaderMarkInPod, MarksWhatIsPlainAndNeverTrustsAStaleMark) {
  const std::string rules = (std::filesystem::temp_directory_path() / "header_mark_pod_rules.txt").string();
  std::ofstream(rules) << "deny udp any any any 53\n";
  const std::string config = nfv::test::one_hop_pod_config(
      "marks", "ring", "{vnf: firewall, site: A, params: {default: allow, rules_file: " + rules + "}}");
  nfv::test::run_in_process_pod(config, [](Pod& pod, rte_mempool* pool) {
    const uint64_t mark = g_header_mark;
    ASSERT_NE(mark, 0u) << "the pod registers the mark";
    const uint16_t in = pod.runtime().ports[0].port_id, out = pod.runtime().ports[1].port_id;
    struct Case {
      const char* what;
      Bytes frame;
      bool passes;       // the firewall lets it through (not to port 53)
      bool leaves_marked;
    };
    const std::vector<Case> cases = {
        {"plain UDP to 8080", plain_udp(8080), true, true},
        {"plain UDP to 53", plain_udp(53), false, false},
        {"UDP with IP options to 8080", udp_with_options(8080), true, false},
        // A trusted stale mark would make the firewall read the options as ports and let it pass.
        {"UDP with IP options to 53", udp_with_options(53), false, false},
        {"plain UDP of 1600 bytes to 8080 (jumbo)", plain_udp(8080, 1600), true, false},
    };
    for (const Case& c : cases) {
      rte_mbuf* got = pass_marked(in, out, pool, c.frame, mark);
      EXPECT_EQ(got != nullptr, c.passes) << c.what;
      if (!got) continue;
      EXPECT_EQ((got->ol_flags & mark) != 0, c.leaves_marked) << c.what;
      EXPECT_EQ(nfv::test::from_mbuf(got), c.frame) << c.what << " passes unchanged";
      rte_pktmbuf_free(got);
    }
  });
  std::filesystem::remove(rules);
}

}  // namespace
}  // namespace nfv
