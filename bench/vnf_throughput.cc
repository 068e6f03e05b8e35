// vnf_throughput: what each VNF costs on one core, at 64 and 512 bytes.
//
// 1. In process (EAL, hugepage mbufs): cycles per packet of each VNF's
//    process() alone on bursts of 64 (the pod's) packets of 1024 UDP flows, headers
//    restored between bursts outside the timed region (NAT, LB and router
//    rewrite them). Mpps = TSC rate / cycles.
// 2. In nfv-pod on one worker core, a net_pcap port replaying the same frames
//    forever: each VNF as a one-hop chain run hop by hop (the VNF's own
//    cost in the pod), and the 4-VNF chain firewall (1,000 rules) -> nat ->
//    lb -> router (10,000 routes) with the chain fast path
//    (dataplane/chain_fast_path.h), hop by hop, and hop by hop with pools of
//    at most one instance (which keep no flow pins), next to dpdk-testpmd
//    io-forward on the same port kind, measured in the same run, and 4 hops
//    of `forward` hop by hop (the pod's own cost for a 4-hop chain); the
//    chain scaled out (every pool at 4 instances, each with a service rate
//    above the offered load) and the same with monitor and ratelimit added
//    (6 hops), with the fast path and hop by hop, with the share of packets
//    the fast path repeated; then
//    bench/lean_chain, the same chain's work as one fused loop with nothing
//    of the pod or the VNF framework around it, and lean_chain --vnfs, the
//    chain's four VNF instances back to back without the pod.
// 3. The floor under the pod's chain: the pod's own cost plus the DPDK
//    lookups the chain makes per packet, timed alone (dpdk_lookup_floor.h),
//    against the cycle budget of 25% of testpmd; and what the VNFs and the
//    pod each add to the chain's work.
//
// Every measurement in 2 is the median of RUNS runs (default 3).
//
// With ROWS "chains", only part 2's chain rows at 64 B (testpmd next to them).
//
//   vnf_throughput NFV_POD_BINARY [SECONDS] [OUT_DIR] [RUNS] [ROWS]
#include <filesystem>
#include <pcap/pcap.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/util/json_util.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "dpdk_lookup_floor.h"
#include "pod_stats.pb.h"
#include "testpmd_and_pod.h"
#include "vnf.h"
#include "vnf_cases.h"

namespace {

using nfv::bench::VnfCase;

constexpr int kFlows = 1024;
constexpr int kBurst = nfv::kBurstSize;  // the pod's

// Ethernet/IPv4/UDP frame of `size` bytes (without FCS) for flow f:
// 198.18.x.y:1024+f -> 198.19.0.1:9000, payload pseudo-random bytes.
std::vector<uint8_t> frame(int f, int size) {
  std::vector<uint8_t> b(static_cast<size_t>(size), 0);
  const uint8_t eth[14] = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00};
  std::copy(eth, eth + 14, b.begin());
  uint8_t* ip = b.data() + 14;
  const int ip_len = size - 14;
  ip[0] = 0x45;
  ip[2] = static_cast<uint8_t>(ip_len >> 8);
  ip[3] = static_cast<uint8_t>(ip_len);
  ip[8] = 64;
  ip[9] = 17;
  const uint8_t src[4] = {198, 18, static_cast<uint8_t>(f >> 8), static_cast<uint8_t>(f)};
  const uint8_t dst[4] = {198, 19, 0, 1};
  std::copy(src, src + 4, ip + 12);
  std::copy(dst, dst + 4, ip + 16);
  unsigned sum = 0;
  for (int i = 0; i < 20; i += 2) sum += (ip[i] << 8) | ip[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  ip[10] = static_cast<uint8_t>(~sum >> 8);
  ip[11] = static_cast<uint8_t>(~sum);
  uint8_t* udp = ip + 20;
  udp[0] = static_cast<uint8_t>((1024 + f) >> 8);
  udp[1] = static_cast<uint8_t>(1024 + f);
  udp[2] = 0x23;
  udp[3] = 0x28;  // 9000
  const int udp_len = ip_len - 20;
  udp[4] = static_cast<uint8_t>(udp_len >> 8);
  udp[5] = static_cast<uint8_t>(udp_len);
  std::mt19937 rng(static_cast<uint32_t>(f));
  for (int i = 8; i < udp_len; ++i) udp[i] = static_cast<uint8_t>(rng());
  return b;
}

void write_capture(const std::string& path, int size) {
  pcap_t* dead = pcap_open_dead(DLT_EN10MB, 65535);
  pcap_dumper_t* dumper = pcap_dump_open(dead, path.c_str());
  if (dumper == nullptr) {
    std::fprintf(stderr, "vnf_throughput: cannot write %s: %s\n", path.c_str(), pcap_geterr(dead));
    std::exit(1);
  }
  for (int f = 0; f < kFlows; ++f) {
    const auto b = frame(f, size);
    pcap_pkthdr header{};
    header.caplen = header.len = static_cast<bpf_u_int32>(b.size());
    pcap_dump(reinterpret_cast<u_char*>(dumper), &header, b.data());
  }
  pcap_dump_close(dumper);
  pcap_close(dead);
}

nfv::bench::Throughput run_in_process(const VnfCase& c, rte_mempool* pool, int size, uint64_t packets) {
  auto vnf = nfv::VnfRegistry::instance().create(c.name);
  nfv::VnfSettings settings;
  settings.instance_name = c.name + "@bench";
  settings.params = c.params;
  vnf->init(settings);
  std::vector<std::vector<uint8_t>> frames;
  for (int f = 0; f < kFlows; ++f) frames.push_back(frame(f, size));
  std::vector<rte_mbuf*> mbufs(kFlows);
  if (rte_pktmbuf_alloc_bulk(pool, mbufs.data(), kFlows) != 0) return {};
  for (int f = 0; f < kFlows; ++f) {
    char* d = rte_pktmbuf_append(mbufs[f], static_cast<uint16_t>(size));
    std::memcpy(d, frames[f].data(), static_cast<size_t>(size));
  }
  uint64_t cycles = 0, done = 0;
  int at = 0;
  while (done < packets) {
    rte_mbuf* burst[kBurst];
    rte_mbuf* dropped[kBurst];
    for (int i = 0; i < kBurst; ++i) {
      const int f = (at + i) % kFlows;
      std::memcpy(rte_pktmbuf_mtod(mbufs[f], void*), frames[f].data(), 64);  // headers back as sent
      burst[i] = mbufs[f];
    }
    uint16_t n_dropped = 0;
    const uint64_t t0 = rte_rdtsc_precise();
    vnf->process(burst, kBurst, dropped, &n_dropped);
    cycles += rte_rdtsc_precise() - t0;
    done += kBurst;
    at = (at + kBurst) % kFlows;
  }
  rte_pktmbuf_free_bulk(mbufs.data(), kFlows);
  nfv::bench::Throughput r;
  r.cycles_per_packet = static_cast<double>(cycles) / static_cast<double>(done);
  r.mpps = static_cast<double>(rte_get_tsc_hz()) / r.cycles_per_packet / 1e6;
  return r;
}

std::string yaml_params(const std::map<std::string, std::string>& params) {
  std::string out = "{";
  for (const auto& [k, v] : params) out += (out.size() > 1 ? ", " : "") + k + ": \"" + v + "\"";
  return out + "}";
}

// How the pod runs a chain's packets.
enum class Path { kFast, kHopByHop };

nfv::bench::Throughput run_pod(const std::string& pod_binary, const std::string& dir, const std::string& pcap, const std::string& tag,
               const std::vector<VnfCase>& hops, int seconds, Path path, const std::string& hop_fields = "") {
  std::ostringstream hop_lines;
  for (const auto& h : hops)
    hop_lines << "      - {vnf: " << h.name << ", site: A" << hop_fields << ", params: " << yaml_params(h.params) << "}\n";
  const std::string config = nfv::bench::one_site_pod_config("vnfbench_" + tag, pcap, hop_lines.str(), path == Path::kFast);
  const std::string config_path = dir + "/vnfbench_" + tag + ".yaml";
  const std::string stats_path = dir + "/vnfbench_" + tag + ".json";
  std::ofstream(config_path) << config;
  return nfv::bench::run_pod_config(pod_binary, config_path, stats_path, seconds, "--file-prefix=vnfbench");
}

// bench/lean_chain (next to this program) on the same port kind: the
// chain's work as one fused loop, or with `vnfs_dir` the chain's VNF
// instances back to back without the pod.
nfv::bench::Throughput run_lean_chain(const std::string& pcap, int seconds, const std::string& vnfs_dir = "") {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string binary = length > 0 ? std::string(self, static_cast<size_t>(length)) : "";
  binary = binary.substr(0, binary.rfind('/') + 1) + "lean_chain";
  const std::string out = nfv::bench::run_command(binary + " " + pcap + " " + std::to_string(seconds) + " bench_lean_chain" +
                                                  (vnfs_dir.empty() ? "" : " --vnfs " + vnfs_dir));
  std::smatch m;
  nfv::bench::Throughput r;
  if (std::regex_search(out, m, std::regex(R"(Mpps=([0-9.]+) cycles_per_packet=([0-9.]+).* output=right)"))) {
    r.mpps = std::stod(m[1]);
    r.cycles_per_packet = std::stod(m[2]);
  } else {
    std::fprintf(stderr, "lean_chain gave no rate (or a wrong output); its output:\n%s\n", out.c_str());
  }
  return r;
}

// One configuration's line: Mpps, cycles per packet and the ratio to
// testpmd, with the issue's 25% verdict where `judged`.
void print_row(const std::string& label, const nfv::bench::Throughput& r, const nfv::bench::Throughput& testpmd, bool judged = false,
               double target = 0.25) {
  const double ratio = testpmd.mpps > 0 ? r.mpps / testpmd.mpps : 0;
  std::printf("%-36s %10.2f %16.1f %12.3f", label.c_str(), r.mpps, r.cycles_per_packet, ratio);
  if (judged) std::printf("  target %.2f %s", target, ratio >= target ? "met" : "MISSED");
  if (r.repeated > 0) std::printf("  repeated %.3f", r.repeated);
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vnf_throughput NFV_POD_BINARY [SECONDS] [OUT_DIR] [RUNS] [all|chains]\n");
    return 2;
  }
  const std::string pod = argv[1];
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made) {
    std::fprintf(stderr, "vnf_throughput: cannot make %s: %s\n", dir.c_str(), made.message().c_str());
    return 1;
  }
  const int runs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 3;
  const bool chains_only = argc > 5 && std::string(argv[5]) == "chains";
  const char* eal_args[] = {argv[0], "-l", "0", "--in-memory", "--no-pci", "--no-telemetry", "--log-level=lib.eal:error"};
  if (rte_eal_init(static_cast<int>(std::size(eal_args)), const_cast<char**>(eal_args)) < 0) {
    std::fprintf(stderr, "EAL init failed: are hugepages reserved? (./nfv setup)\n");
    return 1;
  }
  rte_mempool* pool = rte_pktmbuf_pool_create("vnf_bench", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
  const auto vnfs = nfv::bench::vnf_cases(dir);
  const std::vector<VnfCase> chain = nfv::bench::chain_cases(vnfs);
  bool ok = pool != nullptr;

  std::printf("VNF cost on one core: UDP, %d flows, bursts of %d\n", kFlows, kBurst);
  std::printf("\n1. process() alone, in process (TSC %.2f GHz)\n", static_cast<double>(rte_get_tsc_hz()) / 1e9);
  std::printf("%-12s %14s %10s %14s %10s %8s\n", "vnf", "cycles/pkt 64B", "Mpps 64B", "cycles/pkt 512B", "Mpps 512B", "<= 300");
  for (const auto& c : chains_only ? std::vector<VnfCase>{} : vnfs) {
    const nfv::bench::Throughput small = run_in_process(c, pool, 64, 2000000);
    const nfv::bench::Throughput large = run_in_process(c, pool, 512, 1000000);
    const char* target = c.name == "ids" ? "n/a" : small.cycles_per_packet <= 300 ? "met" : "MISSED";
    std::printf("%-12s %14.1f %10.2f %14.1f %10.2f %8s\n", c.label.c_str(), small.cycles_per_packet, small.mpps, large.cycles_per_packet,
                large.mpps, target);
    std::fflush(stdout);
  }
  const nfv::bench::LookupFloor lookups = chains_only ? nfv::bench::LookupFloor{} : nfv::bench::measure_lookup_floor(kFlows, kBurst);
  std::printf("\nDPDK lookups of the chain, each alone, keys prepared: rte_acl (1,000 rules) %.1f or a verdict cache hit %.1f,"
              " rte_hash (16 B key) %.1f or a flow cache hit %.1f x 2, rte_lpm (10,000 routes) %.1f = %.1f cycles/packet with cache hits\n",
              lookups.acl, lookups.verdict_hit, lookups.hash, lookups.cache_hit, lookups.lpm, lookups.chain());
  ok = ok && (chains_only || (lookups.acl > 0 && lookups.verdict_hit > 0 && lookups.hash > 0 && lookups.cache_hit > 0 && lookups.lpm > 0));
  rte_mempool_free(pool);
  rte_eal_cleanup();

  std::printf("\n2. nfv-pod, one worker core, net_pcap (infinite rx, tx drop), median of %d runs of %d s, next to dpdk-testpmd io-forward\n",
              runs, seconds);
  for (const int size : chains_only ? std::vector<int>{64} : std::vector<int>{64, 512}) {
    const std::string pcap = dir + "/vnfbench_" + std::to_string(size) + "B.pcap";
    write_capture(pcap, size);
    const nfv::bench::Throughput testpmd =
        nfv::bench::median_of(runs, [&] { return nfv::bench::run_testpmd(pcap, seconds, "bench_vnf_testpmd"); });
    // The median of `runs` runs of nfv-pod on `hops`.
    const auto pod_median = [&](const std::string& tag, const std::vector<VnfCase>& hops, Path path, const std::string& hop_fields = "") {
      return nfv::bench::median_of(runs, [&] { return run_pod(pod, dir, pcap, tag, hops, seconds, path, hop_fields); });
    };
    std::printf("\n%d B frames\n%-36s %10s %16s %12s\n", size, "configuration", "Mpps", "cycles/packet", "vs testpmd");
    std::printf("%-36s %10.2f %16.1f %12s\n", "dpdk-testpmd io-forward", testpmd.mpps, testpmd.cycles_per_packet, "1.000");
    ok = ok && testpmd.mpps > 0;
    for (const auto& c : chains_only ? std::vector<VnfCase>{} : vnfs) {
      std::string tag = c.label + std::to_string(size);
      std::replace_if(tag.begin(), tag.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
      const nfv::bench::Throughput r = pod_median(tag, {c}, Path::kHopByHop);
      print_row("nfv-pod, 1 hop: " + c.label, r, testpmd);
      ok = ok && r.mpps > 0;
    }
    const nfv::bench::Throughput r = pod_median("chain" + std::to_string(size), chain, Path::kFast);
    print_row("nfv-pod, fw(1k)->nat->lb->router(10k)", r, testpmd, true);
    const nfv::bench::Throughput slow = pod_median("chain_hop_by_hop" + std::to_string(size), chain, Path::kHopByHop);
    print_row("  same, hop by hop", slow, testpmd, true);
    // Pools that may never scale out keep no flow pins (docs/pod-config.md).
    const nfv::bench::Throughput single = pod_median("chain_single" + std::to_string(size), chain, Path::kHopByHop, ", max_instances: 1");
    print_row("  same, hop by hop, max_instances: 1", single, testpmd, true);
    // Scaled out: every pool at 4 instances, each with a service rate above
    // the offered load (so no instance queues), and the same with monitor
    // and ratelimit added (6 hops). One worker: net_pcap has one tx queue.
    const std::string pools = ", instances: 4, max_instances: 4, service_rate_pps: 100000000";
    std::vector<VnfCase> six = chain;
    six.insert(six.begin(), vnfs[6]);      // monitor
    six.insert(six.begin() + 4, vnfs[7]);  // ratelimit, before the router
    const std::string tail = std::to_string(size);
    const auto scaled = pod_median("chain_pools" + tail, chain, Path::kFast, pools);
    print_row("  same, pools of 4 at a rate", scaled, testpmd, true);
    const auto scaled_slow = pod_median("chain_pools_hbh" + tail, chain, Path::kHopByHop, pools);
    print_row("    hop by hop", scaled_slow, testpmd);
    const auto six_fast = pod_median("chain6_pools" + tail, six, Path::kFast, pools);
    print_row("  +monitor +ratelimit (6), pools of 4", six_fast, testpmd, true, 0.20);
    const auto six_slow = pod_median("chain6_pools_hbh" + tail, six, Path::kHopByHop, pools);
    print_row("    hop by hop", six_slow, testpmd);
    ok = ok && scaled.mpps > 0 && scaled_slow.mpps > 0 && six_fast.mpps > 0 && six_slow.mpps > 0;
    const nfv::bench::Throughput bare = pod_median("forward4_" + std::to_string(size), {vnfs[0], vnfs[0], vnfs[0], vnfs[0]}, Path::kHopByHop);
    print_row("nfv-pod, 4 hops of forward, hop by hop", bare, testpmd);
    const nfv::bench::Throughput lean = nfv::bench::median_of(runs, [&] { return run_lean_chain(pcap, seconds); });
    print_row("lean_chain: same work, one loop", lean, testpmd, true);
    const nfv::bench::Throughput no_pod = nfv::bench::median_of(runs, [&] { return run_lean_chain(pcap, seconds, dir); });
    print_row("lean_chain --vnfs: the 4 VNFs, no pod", no_pod, testpmd, true);
    ok = ok && r.mpps > 0 && slow.mpps > 0 && single.mpps > 0 && bare.mpps > 0 && lean.mpps > 0 && no_pod.mpps > 0;
    // 3. What the target leaves for the four VNFs, next to what their lookups alone cost.
    const double budget = testpmd.cycles_per_packet / 0.25, floor = bare.cycles_per_packet + lookups.chain();
    std::printf("floor, hop by hop: pod with 4 no-op hops %.1f + the chain's DPDK lookups %.1f = %.1f cycles/packet (at best %.3f of testpmd);"
                " 25%% of testpmd allows %.1f, leaving the 4 VNFs %.1f\n",
                bare.cycles_per_packet, lookups.chain(), floor, floor > 0 ? testpmd.cycles_per_packet / floor : 0, budget,
                budget - bare.cycles_per_packet);
    std::printf("framework: over the chain's work in one loop, the VNFs add %.1f cycles/packet and the pod (max_instances: 1) %.1f more\n",
                no_pod.cycles_per_packet - lean.cycles_per_packet, single.cycles_per_packet - no_pod.cycles_per_packet);
    std::printf("fast path: the chain costs %.1f cycles/packet against %.1f hop by hop (%.2fx the rate), %.1f over lean_chain\n",
                r.cycles_per_packet, slow.cycles_per_packet, slow.mpps > 0 ? r.mpps / slow.mpps : 0,
                r.cycles_per_packet - lean.cycles_per_packet);
  }
  return ok ? 0 : 1;
}
