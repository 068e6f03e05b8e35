#include "input_policy.h"

namespace nfv {
namespace {

bool read_policy(const VnfSettings& settings, const std::string& key, bool drop_by_default) {
  const std::string value = settings.get_string(key, drop_by_default ? "drop" : "pass");
  if (value == "drop") return true;
  if (value == "pass") return false;
  throw VnfConfigError(key, "'drop' or 'pass', got '" + value + "'");
}

}  // namespace

const std::vector<std::string>& InputPolicy::param_names() {
  static const std::vector<std::string> names = {"malformed", "non_ip", "fragments", "jumbo"};
  return names;
}

void InputPolicy::init(const VnfSettings& settings, InputPolicyDefaults defaults) {
  drop_malformed_ = read_policy(settings, "malformed", defaults.drop_malformed);
  drop_non_ip_ = read_policy(settings, "non_ip", defaults.drop_non_ip);
  drop_fragments_ = read_policy(settings, "fragments", defaults.drop_fragments);
  drop_jumbo_ = read_policy(settings, "jumbo", defaults.drop_jumbo);
}

void InputPolicy::visit(const CounterVisitor& visit) const {
  for (int s = 0; s < kStatuses; ++s) {
    const auto status = static_cast<ParseStatus>(s);
    if (status == ParseStatus::kOk || status == ParseStatus::kNonIp) continue;
    visit(std::string("malformed_") + parse_status_name(status), read_counter(malformed_[s]));
  }
  visit("non_ip", read_counter(non_ip_));
  visit("fragments", read_counter(fragments_));
  visit("jumbo", read_counter(jumbo_));
  visit("vlan_tagged", read_counter(vlan_tagged_));
}

}  // namespace nfv
