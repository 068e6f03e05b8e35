// pod_throughput: forwarding rate and cycles per packet of nfv-pod on one
// worker core, next to dpdk-testpmd io-forward on the same kind of port,
// measured in the same run.
//
// The port is net_pcap replaying a capture of 64-byte UDP frames (1024
// flows) forever and dropping what it transmits: both programs pay the
// same driver cost (copying each frame into a fresh mbuf, freeing it on
// transmit), so the ratio shows what the pod's chain path costs on top.
//
//   pod_throughput NFV_POD_BINARY [SECONDS] [OUT_DIR]
#include <pcap/pcap.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "pod_stats.pb.h"

#include "testpmd_and_pod.h"

namespace {

constexpr int kFlows = 1024;
constexpr int kFrameBytes = 64;

// 64-byte Ethernet/IPv4/UDP frames, one per flow, written with libpcap.
void write_capture(const std::string& path) {
  pcap_t* dead = pcap_open_dead(DLT_EN10MB, 65535);
  pcap_dumper_t* dumper = pcap_dump_open(dead, path.c_str());
  for (int f = 0; f < kFlows; ++f) {
    unsigned char frame[kFrameBytes] = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00};
    unsigned char* ip = frame + 14;
    const int ip_len = kFrameBytes - 14 - 4;  // leave room for the FCS the wire would add
    ip[0] = 0x45;
    ip[2] = static_cast<unsigned char>(ip_len >> 8);
    ip[3] = static_cast<unsigned char>(ip_len);
    ip[8] = 64;
    ip[9] = 17;
    const unsigned char src[4] = {198, 18, static_cast<unsigned char>(f >> 8), static_cast<unsigned char>(f)};
    const unsigned char dst[4] = {198, 19, 0, 1};
    std::copy(src, src + 4, ip + 12);
    std::copy(dst, dst + 4, ip + 16);
    unsigned sum = 0;
    for (int i = 0; i < 20; i += 2) sum += (ip[i] << 8) | ip[i + 1];
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    ip[10] = static_cast<unsigned char>(~sum >> 8);
    ip[11] = static_cast<unsigned char>(~sum);
    unsigned char* udp = ip + 20;
    udp[0] = static_cast<unsigned char>((1024 + f) >> 8);
    udp[1] = static_cast<unsigned char>(1024 + f);
    udp[2] = 0x23;
    udp[3] = 0x28;  // port 9000
    const int udp_len = ip_len - 20;
    udp[5] = static_cast<unsigned char>(udp_len);
    pcap_pkthdr header{};
    header.caplen = header.len = kFrameBytes - 4;
    pcap_dump(reinterpret_cast<u_char*>(dumper), &header, frame);
  }
  pcap_dump_close(dumper);
  pcap_close(dead);
}

nfv::bench::Throughput run_pod(const std::string& pod_binary, const std::string& dir, const std::string& pcap, int hops, int seconds) {
  std::ostringstream hop_lines;
  for (int h = 0; h < hops; ++h) hop_lines << "      - {vnf: forward, site: A}\n";
  const std::string config = nfv::bench::one_site_pod_config("bench" + std::to_string(hops), pcap, hop_lines.str());
  const std::string config_path = dir + "/bench" + std::to_string(hops) + ".yaml";
  const std::string stats_path = dir + "/bench" + std::to_string(hops) + ".json";
  std::ofstream(config_path) << config;
  return nfv::bench::run_pod_config(pod_binary, config_path, stats_path, seconds);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pod_throughput NFV_POD_BINARY [SECONDS] [OUT_DIR]\n");
    return 2;
  }
  const std::string pod = argv[1];
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  const std::string pcap = dir + "/bench_64B_1024flows.pcap";
  write_capture(pcap);
  std::printf("pod throughput on one worker core: %d-byte UDP, %d flows, net_pcap (infinite rx, tx drop), %d s per run\n",
              kFrameBytes, kFlows, seconds);

  std::printf("  running dpdk-testpmd io-forward ...\n");
  const nfv::bench::Throughput testpmd = nfv::bench::run_testpmd(pcap, seconds, "bench_testpmd");
  std::printf("  running nfv-pod, 1 hop of forward ...\n");
  const nfv::bench::Throughput one = run_pod(pod, dir, pcap, 1, seconds);
  std::printf("  running nfv-pod, 3 hops of forward ...\n");
  const nfv::bench::Throughput three = run_pod(pod, dir, pcap, 3, seconds);

  std::printf("\n%-28s %10s %16s %14s %8s\n", "configuration", "Mpps", "cycles/packet", "vs testpmd", "target");
  std::printf("%-28s %10.2f %16.1f %14s %8s\n", "dpdk-testpmd io-forward", testpmd.mpps, testpmd.cycles_per_packet, "1.00", "");
  auto row = [&](const char* name, const nfv::bench::Throughput& r, double target) {
    const double ratio = testpmd.mpps > 0 ? r.mpps / testpmd.mpps : 0;
    std::printf("%-28s %10.2f %16.1f %14.3f %7.0f%% %s\n", name, r.mpps, r.cycles_per_packet, ratio, target * 100,
                ratio >= target ? "met" : "MISSED");
  };
  row("nfv-pod 1 hop (forward)", one, 0.50);
  row("nfv-pod 3 hops (forward x3)", three, 0.33);
  return testpmd.mpps > 0 && one.mpps > 0 && three.mpps > 0 ? 0 : 1;
}
