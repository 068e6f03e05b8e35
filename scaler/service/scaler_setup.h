// nfv-scaler's configuration (proto/scaler.proto) read and turned into what
// the slot loop needs: the system model (topology, calibration, chains, the
// cost model's prices), the simulator backend's arrivals, and per-site limits.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scaler.pb.h"
#include "simulator.h"
#include "yaml_message.h"

namespace nfv {

struct ScalerSetup {
  scaler::ScalerConfig config;
  YamlSource source;
  std::shared_ptr<const SystemModel> model;
  std::shared_ptr<const ArrivalSchedule> arrivals;  // the trace's, simulator backend only
  std::vector<std::string> notes;                   // calibration overrides, the mapping: for the header
  std::vector<double> min_per_site, max_per_site;   // per site; max 0 = the site's capacity
  std::optional<double> trace_start_unix_s;         // the trace's time of slot 0, when it has one
};

// Reads and checks the file; errors "file:line: field: expected ...".
ScalerSetup load_scaler_setup(const std::string& path);
ScalerSetup parse_scaler_setup(const std::string& text, const std::string& file_name);

}  // namespace nfv
