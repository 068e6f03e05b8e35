#include "config_loader.h"

namespace nfv {

LoadedConfig parse_pod_config(const std::string& text, const std::string& file_name) {
  LoadedConfig out;
  static_cast<YamlSource&>(out) = parse_yaml_message(text, file_name, out.config);
  return out;
}

LoadedConfig load_pod_config(const std::string& path) {
  LoadedConfig out;
  static_cast<YamlSource&>(out) = load_yaml_message(path, out.config);
  return out;
}

}  // namespace nfv
