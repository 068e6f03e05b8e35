// Reads a pod configuration (YAML or JSON) into the schema of
// proto/pod_config.proto, with located errors (see proto/yaml_message.h).
#pragma once

#include <string>

#include "pod_config.pb.h"
#include "yaml_message.h"

namespace nfv {

struct LoadedConfig : YamlSource {
  nfv::config::PodConfig config;
};

// Throws std::runtime_error whose message is "file:line: field: expected ...".
LoadedConfig load_pod_config(const std::string& path);
LoadedConfig parse_pod_config(const std::string& text, const std::string& file_name);

}  // namespace nfv
