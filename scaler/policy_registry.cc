// Policies by name: each registers itself from its own file (a
// PolicyRegistration); this file only keeps the table and the starting plan
// every policy's parameters share.
#include <stdexcept>

#include "plan_file.h"
#include "policy.h"

namespace nfv {
namespace {

struct Entry {
  std::string description;
  std::set<std::string> params;
  PolicyFactory factory;
};

std::map<std::string, Entry, std::less<>>& registry() {
  static std::map<std::string, Entry, std::less<>> entries;
  return entries;
}

// Built on first use: policies register from other files' static
// initializers, which may run before a namespace-scope set here is built.
const std::set<std::string>& placement_params() {
  static const std::set<std::string> names = {"instances", "placement", "plan"};
  return names;
}

}  // namespace

PolicyRegistration::PolicyRegistration(std::string name, std::string description, std::set<std::string> params,
                                       PolicyFactory factory) {
  registry()[std::move(name)] = Entry{std::move(description), std::move(params), std::move(factory)};
}

std::map<std::string, std::string> policy_names() {
  std::map<std::string, std::string> out;
  for (const auto& [name, entry] : registry()) out[name] = entry.description;
  return out;
}

std::unique_ptr<Policy> make_policy(std::string_view name, const PolicyParams& params, const PolicyContext& context) {
  const auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& [n, entry] : registry()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown policy '" + std::string(name) + "' (known: " + known + ")");
  }
  const ParamReader reader("policy " + std::string(name), params, it->second.params);
  placed_plan(reader, context.model->topology());  // checks the placement parameters now, not at the first slot
  return it->second.factory(reader, context);
}

std::set<std::string> with_placement(std::set<std::string> params) {
  params.insert(placement_params().begin(), placement_params().end());
  return params;
}

Plan placed_plan(const ParamReader& params, const Topology& topology) {
  const std::string file = params.text("plan", "");
  if (!file.empty()) return load_plan_file(file, topology);
  return place_chains(topology, params.count("instances", 1), parse_placement(params.text("placement", "ingress")));
}

Plan starting_plan(const PolicyParams& params, const Topology& topology) {
  PolicyParams placement;
  for (const std::string& key : placement_params())
    if (params.count(key)) placement[key] = params.at(key);
  return placed_plan(ParamReader("starting plan", placement, placement_params()), topology);
}

}  // namespace nfv
