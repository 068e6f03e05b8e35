#include <charconv>
#include <set>

#include "vnf.h"

namespace nfv {

uint64_t VnfSettings::get_uint(const std::string& key, uint64_t fallback, uint64_t min, uint64_t max) const {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  uint64_t value = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    throw VnfConfigError(key, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got '" +
                                  text + "'");
  return value;
}

std::string VnfSettings::get_string(const std::string& key, const std::string& fallback) const {
  auto it = params.find(key);
  return it == params.end() ? fallback : it->second;
}

void VnfSettings::reject_unknown(const std::vector<std::string>& known) const {
  const std::set<std::string> allowed(known.begin(), known.end());
  for (const auto& [key, value] : params) {
    if (allowed.count(key)) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw VnfConfigError(key, "one of the known params (" + (list.empty() ? std::string("none") : list) + ")");
  }
}

VnfRegistry& VnfRegistry::instance() {
  static VnfRegistry registry;
  return registry;
}

void VnfRegistry::add(const std::string& name, const std::string& description, const VnfTraits& traits, VnfFactory factory) {
  entries_[name] = Entry{description, traits, std::move(factory)};
}

const VnfRegistry::Entry& VnfRegistry::entry(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown VNF type '" + name + "' (known: " + known + ")");
  }
  return it->second;
}

std::unique_ptr<Vnf> VnfRegistry::create(const std::string& name) const { return entry(name).factory(); }

bool VnfRegistry::stateful(const std::string& name) const { return entry(name).traits.stateful; }

bool VnfRegistry::repeats_flows(const std::string& name) const { return entry(name).traits.repeats_flows; }
bool VnfRegistry::order_across_flows(const std::string& name) const { return entry(name).traits.order_across_flows; }

std::map<std::string, std::string> VnfRegistry::list() const {
  std::map<std::string, std::string> out;
  for (const auto& [name, entry] : entries_) out[name] = entry.description;
  return out;
}

}  // namespace nfv
