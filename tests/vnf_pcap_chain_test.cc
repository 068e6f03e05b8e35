// Real captures (nDPI's netflix and teams pcaps) through nat -> lb -> router
// in a pod with pcap ports. The client's outbound frames come out with the
// configured external addresses, the VIP's traffic on its backends (one
// backend per connection), TTL one lower, the router's next-hop MACs, and
// every IPv4/TCP/UDP checksum valid as tshark recomputes it.
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "pod_runner.h"
#include "tshark.h"

namespace nfv::test {
namespace {

struct Capture {
  std::string pcap;     // under the shared data folder
  std::string client;   // the capture's inside network
  std::string vip;      // a server address:port in the capture, balanced by the lb
  std::string proto;
};
void PrintTo(const Capture& c, std::ostream* os) { *os << c.pcap; }

std::string pod_config(const std::string& in, const std::string& out, const std::string& dir, const Capture& c) {
  write_file(dir + "/routes.txt", "0.0.0.0/0 02:00:00:00:00:99\n10.10.0.0/16 02:00:00:00:00:10\n");
  return R"(name: pcapvnf
sites:
  - {name: A, lat: 40.0, lon: -74.0}
hosted_sites: [A]
ports:
  - {name: in, driver: pcap, site: A, rx_pcap: )" + in + R"(, default_action: drop}
  - {name: out, driver: pcap, site: A, tx_pcap: )" + out + R"(}
chains:
  - name: outbound
    id: 3
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{src_prefix: )" + c.client + R"(}]
    hops:
      - {vnf: nat, site: A, params: {external: "203.0.113.1,203.0.113.2", internal: "192.168.0.0/16"}}
      - {vnf: lb, site: A, params: {services: ")" + c.vip + "/" + c.proto + R"(=10.10.0.1:8080,10.10.0.2:8080*2"}}
      - {vnf: router, site: A, params: {routes_file: )" + dir + R"(/routes.txt, src_mac: "02:00:00:00:00:fe"}}
)";
}

std::vector<std::vector<std::string>> rows(const std::string& pcap, const std::vector<std::string>& fields, const std::string& filter) {
  std::vector<std::vector<std::string>> out;
  for (const std::string& line : tshark_fields(pcap, fields, filter)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, '\t')) cells.push_back(cell);
    cells.resize(fields.size());
    out.push_back(cells);
  }
  return out;
}

class PcapChain : public ::testing::TestWithParam<Capture> {};

TEST_P(PcapChain, NatLbRouterOutputHasTranslatedAddressesAndValidChecksums) {
  const Capture& c = GetParam();
  const std::string dir = make_temp_dir("vnf_pcap");
  const std::string in = shared_data(c.pcap), out = dir + "/out.pcap";
  PodRun pod = start_pod(dir, "pcapvnf", pod_config(in, out, dir, c), {"--stop-when-idle-ms", "400"});
  ASSERT_EQ(pod.wait(), 0) << pod.logs();

  // What the NAT translates: TCP, UDP (first fragments) and ICMP echo from the inside network.
  const std::string inside = "ip.src == " + c.client + " && ip.flags.mf == 0 && ip.frag_offset == 0 && (tcp || udp) && !icmp";
  const std::vector<std::string> fields = {"ip.src", "ip.dst", "ip.proto", "tcp.srcport", "tcp.dstport", "udp.srcport", "udp.dstport",
                                           "ip.ttl", "eth.dst", "eth.src"};
  // Frames with TTL 1 expire at the router (the captures hold SSDP/mDNS-style ones).
  const auto before = rows(in, fields, inside + " && ip.ttl > 1");
  const size_t expiring = tshark_frames(in, inside + " && ip.ttl <= 1").size();
  const auto after = rows(out, fields, "");
  ASSERT_GT(before.size(), 500u);
  ASSERT_EQ(after.size(), before.size()) << pod.logs();

  const std::string vip_addr = c.vip.substr(0, c.vip.find(':')), vip_port = c.vip.substr(c.vip.find(':') + 1);
  std::map<std::string, std::string> nat_map;        // inside endpoint -> outside endpoint
  std::map<std::string, std::string> backend_of;     // connection -> backend
  std::set<std::string> outside_used;
  int to_vip = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    const auto& b = before[i];
    const auto& a = after[i];
    const bool is_tcp = b[2] == "6";
    const std::string b_sport = is_tcp ? b[3] : b[5], b_dport = is_tcp ? b[4] : b[6];
    const std::string a_sport = is_tcp ? a[3] : a[5], a_dport = is_tcp ? a[4] : a[6];
    ASSERT_TRUE(a[0] == "203.0.113.1" || a[0] == "203.0.113.2") << "frame " << i << " src " << a[0];
    const std::string in_ep = b[0] + ":" + b_sport + "/" + b[2], out_ep = a[0] + ":" + a_sport + "/" + b[2];
    auto [it, added] = nat_map.emplace(in_ep, out_ep);
    EXPECT_EQ(it->second, out_ep) << "an inside endpoint keeps its mapping";
    if (added) {
      EXPECT_TRUE(outside_used.insert(out_ep).second) << "two inside endpoints share " << out_ep;
    }
    EXPECT_EQ(std::stoi(a[7]), std::stoi(b[7]) - 1) << "TTL decremented";
    EXPECT_EQ(a[9], "02:00:00:00:00:fe");
    if (b[1] == vip_addr && b_dport == vip_port && b[2] == (c.proto == "tcp" ? "6" : "17")) {
      ++to_vip;
      EXPECT_TRUE(a[1] == "10.10.0.1" || a[1] == "10.10.0.2") << a[1];
      EXPECT_EQ(a_dport, "8080");
      EXPECT_EQ(a[8], "02:00:00:00:00:10");
      auto [conn, fresh] = backend_of.emplace(in_ep + ">" + b[1] + ":" + b_dport, a[1]);
      EXPECT_EQ(conn->second, a[1]) << "a connection stays on its backend";
    } else {
      EXPECT_EQ(a[1], b[1]);
      EXPECT_EQ(a_dport, b_dport);
      EXPECT_EQ(a[8], "02:00:00:00:00:99");
    }
  }
  EXPECT_GT(to_vip, 100);

  // tshark's own checksum verdicts on the output.
  const auto verdicts = run_command("tshark -r " + out +
                                    " -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE"
                                    " -T fields -e ip.checksum.status -e tcp.checksum.status -e udp.checksum.status 2>/dev/null");
  ASSERT_EQ(verdicts.exit_code, 0);
  std::istringstream lines(verdicts.output);
  size_t good_ip = 0, good_l4 = 0, bad = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    std::string ip, l4;
    cells >> ip >> l4;
    good_ip += ip == "1";  // tshark: 1 = good, 0 = bad, 2 = unverified
    good_l4 += l4 == "1";
    bad += ip == "0" || l4 == "0";
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(good_ip, after.size());
  EXPECT_GT(good_l4, after.size() * 9 / 10);

  const auto stats = pod.stats();
  EXPECT_EQ(chain_stats(stats, "outbound").out_packets(), after.size());
  for (const auto& hop : stats.hops()) {
    for (const auto& counter : hop.counters()) {
      if (hop.vnf() == "router" && counter.name() == "ttl_expired") {
        EXPECT_EQ(counter.value(), expiring);
      }
    }
  }
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0) << "mbuf leak";
}

INSTANTIATE_TEST_SUITE_P(Ndpi, PcapChain,
                         ::testing::Values(Capture{"pcaps/ndpi/netflix.pcap", "192.168.1.0/24", "23.246.11.141:80", "tcp"},
                                           Capture{"pcaps/ndpi/teams.pcap", "192.168.1.0/24", "52.114.77.33:443", "tcp"}),
                         [](const auto& info) { return info.param.pcap.substr(11, info.param.pcap.find('.') - 11); });

}  // namespace
}  // namespace nfv::test
