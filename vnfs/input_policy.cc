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

void InputPolicy::init(const VnfSettings& settings, std::vector<std::string> vnf_params, InputPolicyDefaults defaults) {
  for (const char* name : {"malformed", "non_ip", "fragments", "jumbo"}) vnf_params.push_back(name);
  settings.reject_unknown(vnf_params);
  drop_malformed_ = read_policy(settings, "malformed", defaults.drop_malformed);
  drop_non_ip_ = read_policy(settings, "non_ip", defaults.drop_non_ip);
  drop_fragments_ = read_policy(settings, "fragments", defaults.drop_fragments);
  drop_jumbo_ = read_policy(settings, "jumbo", defaults.drop_jumbo);
  mark_ = register_header_mark();
}

// Out of line: every frame that is not plain IPv4 (or is jumbo) comes here.
InputVerdict InputPolicy::check_general(const rte_mbuf* m, HeaderLayout& layout) {
  ParsedPacket parsed;
  const InputVerdict verdict = check(m, parsed);
  layout = HeaderLayout::of(parsed);
  return verdict;
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
