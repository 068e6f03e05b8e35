// Calibration from a measured data-plane run: the counters real pods wrote
// at stop (nfv-pod --stats-json, proto/pod_stats.proto) become the file
// nfv-sim reads (proto/calibration.proto), so the simulator serves, queues
// and delays traffic as the pods did.
#pragma once

#include <string>
#include <vector>

#include "calibration.pb.h"
#include "pod_stats.pb.h"

namespace nfv {

struct PodCalibration {
  calibration::Calibration calibration;
  std::vector<std::string> warnings;  // what could not be measured or disagreed
};

// Per VNF type, the rate one instance serves: the lower of its configured
// limit (service_rate_pps) and what its core would do alone (TSC rate /
// measured busy cycles per packet, over every instance of that type; needs
// kMinMeasuredPackets). Per WAN link, the delay the pods emulated. The
// per-instance queue the hops were given. Throws when `pods` is empty.
PodCalibration calibrate_from_pods(const std::vector<stats::PodStats>& pods);
inline constexpr double kMinMeasuredPackets = 10000;

// Reads a pod's --stats-json file; throws naming the file on bad JSON.
stats::PodStats read_pod_stats_json(const std::string& path);

// The calibration file's text (YAML, read back by load_calibration).
std::string calibration_to_yaml(const calibration::Calibration& calibration);

}  // namespace nfv
