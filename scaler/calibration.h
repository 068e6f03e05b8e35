// Measured per-VNF service rates and per-link delays that override a
// topology's assumed profiles, so the simulator models the data plane as it
// was measured. File format: YAML of proto/calibration.proto (docs/simulator.md).
#pragma once

#include <string>
#include <vector>

#include "calibration.pb.h"
#include "topology.h"
#include "yaml_message.h"

namespace nfv {

struct LoadedCalibration {
  calibration::Calibration message;
  YamlSource source;  // file name and the line of every field, for errors found when applying
};

// Reads the file; errors "file:line: field: expected ...".
LoadedCalibration load_calibration(const std::string& path);
// Same, from text named `file_name` in errors.
LoadedCalibration parse_calibration(const std::string& text, const std::string& file_name);

// Overrides the service rates and link delays the calibration names (a
// link's delay becomes `given`). Throws "file:line: field: expected ..."
// naming an unknown VNF type, site or link, or a value out of range.
// Returns one line per override, for the run's header.
std::vector<std::string> apply_calibration(const LoadedCalibration& calibration, Topology& topology);

}  // namespace nfv
