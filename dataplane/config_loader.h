// Reads a pod configuration (YAML, or JSON which is YAML too) into the
// protobuf schema of proto/pod_config.proto, field by field through
// reflection, so every mistake is reported with its line and field path.
#pragma once

#include <map>
#include <string>

#include "pod_config.pb.h"

namespace nfv {

struct LoadedConfig {
  std::string file;
  nfv::config::PodConfig config;
  std::map<std::string, int> line_of_field;  // "chains[0].hops[1].site" -> 1-based line

  // "file:line: field: expected ..." for an error found after loading.
  std::string locate(const std::string& field, const std::string& expected) const;
};

// Throws std::runtime_error whose message is "file:line: field: expected ...".
LoadedConfig load_pod_config(const std::string& path);
LoadedConfig parse_pod_config(const std::string& text, const std::string& file_name);

}  // namespace nfv
