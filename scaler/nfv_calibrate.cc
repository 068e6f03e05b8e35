// nfv-calibrate: turns the counters of a measured pod run (nfv-pod
// --stats-json) into the calibration file nfv-sim reads (docs/simulator.md).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "pod_calibration.h"

namespace {

constexpr const char* kUsage = R"(usage: nfv-calibrate [--output FILE] POD_STATS.json...

Reads the stats every pod of a run wrote at stop (nfv-pod --stats-json) and
writes a calibration file for nfv-sim --calibration (stdout without
--output): per VNF type the rate one instance serves (its configured limit,
or what its core managed when that is lower), per WAN link the emulated
delay, and the per-instance queue. Warnings go to stderr.
)";

}  // namespace

int main(int argc, char** argv) {
  std::string output;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--output" || arg == "-o") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "nfv-calibrate: %s: expected a file name\n", arg.c_str());
        return 1;
      }
      output = argv[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "nfv-calibrate: unknown option '%s' (--help lists them)\n", arg.c_str());
      return 1;
    } else {
      inputs.push_back(arg);
    }
  }
  try {
    std::vector<nfv::stats::PodStats> pods;
    for (const std::string& path : inputs) pods.push_back(nfv::read_pod_stats_json(path));
    const nfv::PodCalibration result = nfv::calibrate_from_pods(pods);
    for (const std::string& warning : result.warnings) std::fprintf(stderr, "nfv-calibrate: warning: %s\n", warning.c_str());
    const std::string yaml = nfv::calibration_to_yaml(result.calibration);
    if (output.empty()) {
      std::cout << yaml;
      return 0;
    }
    std::ofstream out(output);
    if (!(out << yaml)) throw std::runtime_error(output + ": cannot write");
    std::printf("calibration of %zu VNF types and %zu links written to %s\n",
                static_cast<std::size_t>(result.calibration.vnf_rates_size()),
                static_cast<std::size_t>(result.calibration.link_delays_size()), output.c_str());
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "nfv-calibrate: %s\n", error.what());
    return 1;
  }
}
