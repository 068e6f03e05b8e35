// Policies by name with key=value parameters: what nfv-sim's command line
// (and later the scaler's config) selects.
#include <set>
#include <stdexcept>

#include "plan_file.h"
#include "online_policy.h"
#include "policy.h"

namespace nfv {
namespace {

// Reads parameters of one policy, rejecting any it does not know so a typo
// never silently keeps a default.
class ParamReader {
 public:
  ParamReader(std::string_view policy, const PolicyParams& params, std::set<std::string> known)
      : policy_(policy), params_(params) {
    for (const auto& [key, value] : params)
      if (!known.count(key)) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        throw std::invalid_argument("policy " + policy_ + ": unknown parameter '" + key + "' (known: " + list + ")");
      }
  }

  double number(const std::string& key, double fallback) const {
    const auto it = params_.find(key);
    if (it == params_.end()) return fallback;
    try {
      std::size_t used = 0;
      const double value = std::stod(it->second, &used);
      if (used == it->second.size()) return value;
    } catch (const std::exception&) {
    }
    throw std::invalid_argument("policy " + policy_ + ": parameter '" + key + "': expected a number, got '" +
                                it->second + "'");
  }

  std::uint32_t count(const std::string& key, std::uint32_t fallback) const {
    const double value = number(key, fallback);
    if (value < 0 || value != static_cast<double>(static_cast<std::uint32_t>(value)))
      throw std::invalid_argument("policy " + policy_ + ": parameter '" + key + "': expected a whole number >= 0, got '" +
                                  params_.at(key) + "'");
    return static_cast<std::uint32_t>(value);
  }

  std::string text(const std::string& key, const std::string& fallback) const {
    const auto it = params_.find(key);
    return it == params_.end() ? fallback : it->second;
  }

 private:
  std::string policy_;
  const PolicyParams& params_;
};

const std::set<std::string> kPlacementParams = {"instances", "placement", "plan"};

std::set<std::string> with_placement(std::set<std::string> keys) {
  keys.insert(kPlacementParams.begin(), kPlacementParams.end());
  return keys;
}

// The starting (or static) plan: a plan file, or a simple placement.
Plan placed(const ParamReader& reader, const Topology& topology) {
  const std::string file = reader.text("plan", "");
  if (!file.empty()) return load_plan_file(file, topology);
  return place_chains(topology, reader.count("instances", 1), parse_placement(reader.text("placement", "ingress")));
}

}  // namespace

std::vector<std::string> policy_names() { return {"static", "threshold", "online"}; }

Plan starting_plan(const PolicyParams& params, const Topology& topology) {
  PolicyParams placement;
  for (const std::string& key : kPlacementParams)
    if (params.count(key)) placement[key] = params.at(key);
  return placed(ParamReader("starting plan", placement, kPlacementParams), topology);
}

std::unique_ptr<Policy> make_policy(std::string_view name, const PolicyParams& params,
                                    std::shared_ptr<const SystemModel> model) {
  const Topology& topology = model->topology();
  if (name == "static") {
    const ParamReader reader(name, params, kPlacementParams);
    return make_static_policy(placed(reader, topology));
  }
  if (name == "threshold") {
    const ParamReader reader(name, params,
                             with_placement({"target", "tolerance", "window", "max_up", "max_down", "min", "max"}));
    placed(reader, topology);  // checks the placement parameters now, not at the first slot
    ThresholdSettings defaults;
    ThresholdSettings settings;
    settings.target_utilisation = reader.number("target", defaults.target_utilisation);
    settings.tolerance = reader.number("tolerance", defaults.tolerance);
    settings.scale_down_window_slots = reader.count("window", static_cast<std::uint32_t>(defaults.scale_down_window_slots));
    settings.max_scale_up = reader.count("max_up", defaults.max_scale_up);
    settings.max_scale_down = reader.count("max_down", defaults.max_scale_down);
    settings.min_instances = reader.count("min", defaults.min_instances);
    settings.max_instances = reader.count("max", defaults.max_instances);
    return make_threshold_policy(topology, settings);
  }
  if (name == "online") {
    const ParamReader reader(name, params, with_placement({"epsilon", "eta", "utilisation", "min_per_hop", "keep", "candidates", "serve_weight", "window"}));
    placed(reader, topology);
    OnlineSettings defaults;
    OnlineSettings settings;
    settings.epsilon = reader.number("epsilon", defaults.epsilon);
    settings.eta = reader.number("eta", defaults.eta);
    settings.max_utilisation = reader.number("utilisation", defaults.max_utilisation);
    settings.min_instances_per_hop = reader.number("min_per_hop", defaults.min_instances_per_hop);
    settings.keep = reader.number("keep", defaults.keep);
    settings.serve_weight = reader.number("serve_weight", defaults.serve_weight);
    settings.window_slots = reader.count("window", static_cast<std::uint32_t>(defaults.window_slots));
    const std::string candidates = reader.text("candidates", "path");
    if (candidates == "path") settings.candidates = CandidateSites::along_path;
    else if (candidates == "sla") settings.candidates = CandidateSites::within_sla;
    else if (candidates == "plan") settings.candidates = CandidateSites::fixed;
    else
      throw std::invalid_argument("policy online: parameter 'candidates': expected path, sla or plan, got '" + candidates +
                                  "'");
    return std::make_unique<OnlinePolicy>(std::move(model), settings);
  }
  if (name == "drl" || name == "marl")
    throw std::invalid_argument("policy " + std::string(name) + " is not built yet (it arrives with its issue: " +
                                (name == "drl" ? "the RNN predictor and the actor-critic agent" : "the MARL module") +
                                "); available: static, threshold, online");
  std::string known;
  for (const std::string& policy : policy_names()) known += (known.empty() ? "" : ", ") + policy;
  throw std::invalid_argument("unknown policy '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace nfv
