// (b) Three pods, one site each, joined by memif: a chain that spans all
// three conserves packets and bytes end to end, and the inter-pod links
// carry NSH that tshark decodes with the chain's SPI and the stages' SI.
#include <gtest/gtest.h>

#include "pcap_reader.h"
#include "pod_runner.h"
#include "tshark.h"

namespace nfv::test {
namespace {

constexpr uint32_t kSpi = 4242;

std::string common_part(const std::string& pod, const std::string& site) {
  return "name: " + pod + R"(
sites:
  - {name: NYCM, lat: 40.7833, lon: -73.9667}
  - {name: CHIN, lat: 41.8333, lon: -87.6167}
  - {name: KSCY, lat: 39.1000, lon: -94.5833}
hosted_sites: [)" + site + R"(]
links:
  - {from: NYCM, to: CHIN, route_factor: 1.3}
  - {from: CHIN, to: KSCY, route_factor: 1.3}
chains:
  - name: span
    id: 4242
    ingress_site: NYCM
    egress_site: KSCY
    egress_port: out
    match: [{src_prefix: 0.0.0.0/0}]
    hops:
      - {vnf: counter, site: NYCM}
      - {vnf: forward, site: CHIN}
      - {vnf: counter, site: CHIN}
      - {vnf: forward, site: KSCY}
)";
}

TEST(ThreePodsOverMemif, ChainSpanningThreePodsConservesPacketsAndCarriesNsh) {
  const std::string dir = make_temp_dir("memif3");
  const std::string in = shared_data("pcaps/tcpreplay/test.pcap");
  const std::vector<std::string> stop = {"--stop-when-idle-ms", "1500"};

  const std::string pod_c = common_part("memif_c", "KSCY") + R"(ports:
  - {name: from_b, driver: memif, site: KSCY, peer_sites: [CHIN], memif_role: server, memif_socket: )" + dir + R"(/bc.sock}
  - {name: out, driver: pcap, site: KSCY, tx_pcap: )" + dir + R"(/out.pcap}
)";
  const std::string pod_b = common_part("memif_b", "CHIN") + R"(ports:
  - {name: from_a, driver: memif, site: CHIN, peer_sites: [NYCM], memif_role: server, memif_socket: )" + dir + R"(/ab.sock}
  - {name: to_c, driver: memif, site: CHIN, peer_sites: [KSCY], memif_role: client, memif_socket: )" + dir + R"(/bc.sock, capture_pcapng: )" + dir + R"(/bc.pcapng}
)";
  const std::string pod_a = common_part("memif_a", "NYCM") + R"(ports:
  - {name: in, driver: pcap, site: NYCM, rx_pcap: )" + in + R"(}
  - {name: to_b, driver: memif, site: NYCM, peer_sites: [CHIN, KSCY], memif_role: client, memif_socket: )" + dir + R"(/ab.sock, capture_pcapng: )" + dir + R"(/ab.pcapng}
)";
  // Downstream first: each pod waits for its memif links before forwarding.
  PodRun c = start_pod(dir, "memif_c", pod_c, stop);
  PodRun b = start_pod(dir, "memif_b", pod_b, stop);
  PodRun a = start_pod(dir, "memif_a", pod_a, stop);
  ASSERT_EQ(a.wait(), 0) << a.logs();
  ASSERT_EQ(b.wait(), 0) << b.logs();
  ASSERT_EQ(c.wait(), 0) << c.logs();
  const auto sa = a.stats(), sb = b.stats(), sc = c.stats();

  const auto ipv4 = tshark_frames(in, kPlainIpv4Filter);
  const auto& entered = chain_stats(sa, "span");
  const auto& left = chain_stats(sc, "span");
  EXPECT_EQ(entered.in_packets(), ipv4.size());
  EXPECT_EQ(left.out_packets(), entered.in_packets()) << a.logs() << b.logs() << c.logs();
  EXPECT_EQ(left.out_bytes(), entered.in_bytes());
  // What each pod sent on a link, the next one received, byte for byte.
  EXPECT_EQ(port_stats(sa, "to_b").tx_packets(), port_stats(sb, "from_a").rx_packets());
  EXPECT_EQ(port_stats(sa, "to_b").tx_bytes(), port_stats(sb, "from_a").rx_bytes());
  EXPECT_EQ(port_stats(sb, "to_c").tx_packets(), port_stats(sc, "from_b").rx_packets());
  EXPECT_EQ(port_stats(sc, "out").tx_bytes(), entered.in_bytes());
  // Three WAN hops' worth of delay shows up in the end-to-end latency.
  EXPECT_GT(left.latency().p50_us(), 1000.0 * (sa.links(0).delay_ms() + sb.links(0).delay_ms()) * 0.9);

  // The output is exactly the IPv4 frames of the input, in order.
  const auto input = read_frames(in);
  std::vector<Frame> expected;
  for (int n : ipv4) expected.push_back(input[n - 1]);
  EXPECT_EQ(read_frames(dir + "/out.pcap"), expected);

  // tshark decodes the inter-pod links as NSH: SPI = chain, SI = stages left.
  const auto ab = tshark_fields(dir + "/ab.pcapng", {"nsh.spi", "nsh.si", "nsh.nextproto"}, "nsh");
  const auto bc = tshark_fields(dir + "/bc.pcapng", {"nsh.spi", "nsh.si", "nsh.nextproto"}, "nsh");
  ASSERT_EQ(ab.size(), ipv4.size());
  ASSERT_EQ(bc.size(), ipv4.size());
  // Stages: 0 ingress, 1-4 hops, 5 egress. A->B carries the packet to hop 2
  // (SI = 6 - 2 = 4); B->C to hop 4 (SI = 2).
  for (const auto& row : ab) EXPECT_EQ(row, std::to_string(kSpi) + "\t4\t3");
  for (const auto& row : bc) EXPECT_EQ(row, std::to_string(kSpi) + "\t2\t3");

  for (const auto* s : {&sa, &sb, &sc}) {
    EXPECT_EQ(s->mempool_in_use_after_close(), 0) << s->pod() << " leaked mbufs";
    for (const auto& d : s->drops())
      if (d.reason() != "non_ip_default" && d.reason() != "unmatched_default")
        ADD_FAILURE() << s->pod() << " dropped " << d.packets() << " packets: " << d.reason();
  }
}

}  // namespace
}  // namespace nfv::test
