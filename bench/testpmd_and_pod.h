// What the throughput benchmarks share: dpdk-testpmd io-forward on a
// net_pcap port replaying a capture forever (the reference), and nfv-pod on
// a config for some seconds, both read back as Mpps and cycles per packet.
#pragma once

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "burst_size.h"
#include "pod_stats.pb.h"
#include "run_command.h"

namespace nfv::bench {

struct Throughput {
  double mpps = 0;
  double cycles_per_packet = 0;
  double repeated = 0;  // nfv-pod: the share of the chain's packets the chain fast path repeated
};

// testpmd io-forward with one forwarding core, at the pod's burst size;
// `prefix` keeps its hugepage files apart.
inline Throughput run_testpmd(const std::string& pcap, int seconds, const std::string& prefix) {
  const std::string command = "timeout -s INT " + std::to_string(seconds + 4) + " dpdk-testpmd -l 0,1 --no-pci --file-prefix=" +
                              prefix + " --huge-unlink --log-level=lib.eal:warning --vdev 'net_pcap0,rx_pcap=" + pcap +
                              ",infinite_rx=1' -- --forward-mode=io --port-topology=loop --nb-cores=1 "
                              "--record-core-cycles --stats-period=1 --burst=" + std::to_string(nfv::kBurstSize);
  const std::string out = run_command(command);
  // Per-second Rx-pps readings; skip the first (warm-up) and take the median.
  std::vector<double> pps;
  std::regex rx_pps(R"(Rx-pps:\s+(\d+))");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), rx_pps); it != std::sregex_iterator(); ++it)
    pps.push_back(std::stod((*it)[1]));
  Throughput r;
  if (pps.size() > 2) {
    pps.erase(pps.begin());
    std::sort(pps.begin(), pps.end());
    r.mpps = pps[pps.size() / 2] / 1e6;
  }
  std::smatch m;
  if (std::regex_search(out, m, std::regex(R"(CPU cycles/packet=([0-9.]+))"))) r.cycles_per_packet = std::stod(m[1]);
  if (r.mpps == 0) std::fprintf(stderr, "testpmd gave no rate; its output:\n%s\n", out.c_str());
  return r;
}

// A one-site pod whose net_pcap port replays `pcap` forever and sends the
// one chain's output back out of it (tx drops); `hops_yaml` lists the hops,
// one "      - {vnf: ...}" line each. Without `fast_path` every packet
// goes hop by hop (dataplane/chain_fast_path.h).
inline std::string one_site_pod_config(const std::string& name, const std::string& pcap, const std::string& hops_yaml,
                                       bool fast_path = true) {
  return "name: " + name + R"(
sites: [{name: A, lat: 40.78, lon: -73.97}]
hosted_sites: [A]
mempool: {mbufs: 65535}
ports:
  - {name: p, driver: pcap, site: A, rx_pcap: )" + pcap + R"(, rx_pcap_loop: true}
chains:
  - name: bench
    id: 1
    ingress_site: A
    egress_site: A
    egress_port: p
    fast_path: )" + (fast_path ? "true" : "false") + R"(
    match: [{dst_prefix: 198.19.0.0/16, protocol: udp}]
    hops:
)" + hops_yaml;
}

// nfv-pod on lcores 0 (main) and 1 (the worker) for `seconds`: port 0's tx
// rate and the worker's cycles per packet, from --stats-json.
inline Throughput run_pod_config(const std::string& pod_binary, const std::string& config_path,
                                 const std::string& stats_path, int seconds, const std::string& eal_extra = "") {
  const std::string out = run_command(pod_binary + " -l 0,1 " + eal_extra + " --log-level=lib.eal:warning -- --config " +
                                      config_path + " --run-for-s " + std::to_string(seconds) +
                                      " --stats-interval-s 0 --stats-json " + stats_path);
  nfv::stats::PodStats stats;
  std::stringstream json;
  json << std::ifstream(stats_path).rdbuf();
  Throughput r;
  if (!google::protobuf::util::JsonStringToMessage(json.str(), &stats).ok() || stats.workers_size() == 0) {
    std::fprintf(stderr, "nfv-pod gave no stats; its output:\n%s\n", out.c_str());
    return r;
  }
  r.mpps = static_cast<double>(stats.ports(0).tx_packets()) / stats.forwarding_s() / 1e6;
  r.cycles_per_packet = stats.workers(0).cycles_per_packet();
  if (stats.chains_size() > 0 && stats.chains(0).in_packets() > 0)
    r.repeated = static_cast<double>(stats.chains(0).fast_path_packets()) / static_cast<double>(stats.chains(0).in_packets());
  return r;
}

// The run with the median rate of `runs` runs of `measure()`: on a shared
// machine one run alone can be off by 15%.
template <typename Measure>
Throughput median_of(int runs, Measure&& measure) {
  std::vector<Throughput> all;
  for (int i = 0; i < std::max(runs, 1); ++i) all.push_back(measure());
  std::sort(all.begin(), all.end(), [](const Throughput& a, const Throughput& b) { return a.mpps < b.mpps; });
  return all[all.size() / 2];
}

}  // namespace nfv::bench
