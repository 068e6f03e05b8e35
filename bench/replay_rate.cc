// replay_rate: packets/s of nfv-replay's generator on one core at 64 bytes,
// next to dpdk-testpmd's txonly engine on the same kind of port, measured in
// the same run.
//
// The port is net_null (transmit frees the mbufs), so both programs pay only
// for building packets: mbuf allocation from the hugepage mempool, headers,
// and (nfv-replay) the probe payload, flow and size draws and TSC pacing.
// The generator is asked for far more than it can send, so the rate it
// reaches per 1-s slot is its ceiling; the median slot is reported.
//
//   replay_rate NFV_REPLAY_BINARY [SECONDS] [OUT_DIR]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.h"

namespace {

constexpr double kTargetMpps = 5.0;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double run_testpmd_txonly(int seconds) {
  const std::string out = nfv::bench::run_command("timeout -s INT " + std::to_string(seconds + 4) +
                              " dpdk-testpmd -l 0,1 --no-pci --file-prefix=bench_txonly --huge-unlink "
                              "--log-level=lib.eal:warning --vdev net_null0 -- --forward-mode=txonly --txpkts=64 "
                              "--nb-cores=1 --burst=32 --stats-period=1");
  std::vector<double> pps;
  std::regex tx_pps(R"(Tx-pps:\s+(\d+))");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), tx_pps); it != std::sregex_iterator(); ++it)
    pps.push_back(std::stod((*it)[1]));
  if (pps.size() > 2) pps.erase(pps.begin());  // warm-up second
  const double rate = median(pps) / 1e6;
  if (rate == 0) std::fprintf(stderr, "testpmd gave no rate; its output:\n%s\n", out.c_str());
  return rate;
}

double run_replay(const std::string& binary, const std::string& dir, int seconds, int chains) {
  const std::string config = dir + "/replay_rate_" + std::to_string(chains) + ".yaml";
  const std::string csv = dir + "/replay_rate_" + std::to_string(chains) + ".csv";
  std::ostringstream yaml;
  yaml << "name: bench_replay\nports:\n  - {name: out, driver: null}\ngenerator:\n  port: out\n"
       << "  trace: {builtin: step, unit: pkt/s, rows: " << seconds << ", step_seconds: 1, before: 1e8, after: 1e8}\n"
       << "  scale: {slot_wall_seconds: 1, volume_scale: " << 1.0 / chains << "}\n"
       << "  packet_sizes: [{bytes: 64, weight: 1}]\n  flows: 1024\n  zipf_exponent: 1.0\n";
  if (chains > 1) {
    // One trace column replayed as several chains, each its own prefix.
    yaml << "  chains:\n";
    for (int c = 0; c < chains; ++c) yaml << "    - {column: chain, dst_prefix: 10." << c + 1 << ".0.0/16}\n";
  }
  std::ofstream(config) << yaml.str();
  const std::string out = nfv::bench::run_command(binary + " -l 1 --log-level=lib.eal:warning -- --config " + config + " --csv " + csv + " --quiet");
  // Sum the chains of each slot; skip slot 0 (warm-up).
  std::vector<double> per_slot(static_cast<std::size_t>(seconds), 0);
  std::ifstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("slot", 0) == 0) continue;
    std::stringstream cells(line);
    std::string slot, chain, target, sent_pps;
    std::getline(cells, slot, ',');
    std::getline(cells, chain, ',');
    std::getline(cells, target, ',');
    std::getline(cells, sent_pps, ',');
    per_slot[std::stoul(slot)] += std::stod(sent_pps);
  }
  if (per_slot.size() > 2) per_slot.erase(per_slot.begin());
  const double rate = median(per_slot) / 1e6;
  if (rate == 0) std::fprintf(stderr, "nfv-replay gave no rate; its output:\n%s\n", out.c_str());
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: replay_rate NFV_REPLAY_BINARY [SECONDS] [OUT_DIR]\n");
    return 2;
  }
  const std::string replay = argv[1];
  const int seconds = argc > 2 ? std::max(3, std::atoi(argv[2])) : 5;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  std::printf("generator rate on one core: 64-byte UDP, 1024 flows (Zipf 1), net_null (tx frees), %d s per run\n", seconds);

  std::printf("  running dpdk-testpmd txonly ...\n");
  const double testpmd = run_testpmd_txonly(seconds);
  std::printf("  running nfv-replay generator, 1 chain ...\n");
  const double one = run_replay(replay, dir, seconds, 1);
  std::printf("  running nfv-replay generator, 16 chains ...\n");
  const double sixteen = run_replay(replay, dir, seconds, 16);

  std::printf("\n%-34s %10s %12s %8s\n", "configuration", "Mpps", "vs testpmd", "target");
  std::printf("%-34s %10.2f %12s %8s\n", "dpdk-testpmd txonly", testpmd, "1.00", "");
  auto row = [&](const char* name, double mpps) {
    std::printf("%-34s %10.2f %12.3f %6.1f M %s\n", name, mpps, testpmd > 0 ? mpps / testpmd : 0, kTargetMpps,
                mpps >= kTargetMpps ? "met" : "MISSED");
  };
  row("nfv-replay generator, 1 chain", one);
  row("nfv-replay generator, 16 chains", sixteen);
  return testpmd > 0 && one > 0 && sixteen > 0 ? 0 : 1;
}
