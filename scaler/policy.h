// The policy interface every scaler policy implements, the registry of
// policies by name, and the two baselines: `static` (a fixed plan) and
// `threshold` (Kubernetes HPA semantics per instance pool). A policy sees
// the same Observation and Forecast whether the system is simulated or
// real, and returns a Plan. Each policy registers itself from its own file
// (a PolicyRegistration); policies that need LibTorch live in their own
// library, which the tools that offer them link.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arrival_schedule.h"
#include "option_values.h"
#include "plan.h"
#include "system_model.h"
#include "topology.h"

namespace nfv {

// What a learning policy adds to a decision, for the journal and metrics.
struct PolicyDetails {
  bool present = false;
  double value = 0;          // the agent's estimate of the discounted cost to go, in cost units
  std::string guard;         // what ran: "agent", or the guard policy's name; empty without a guard
  std::string guard_reason;  // why the guard took over
  std::uint64_t guard_fallbacks = 0;  // slots the guard took over, since the policy was made
  struct PoolAction {
    std::uint32_t chain = 0, hop = 0, site = 0;
    float scale = 0, split = 0;  // the agent's two outputs, in [-1, 1]
  };
  std::vector<PoolAction> actions;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  // The plan for observation.slot.
  virtual Plan decide(const Observation& observation, const Forecast& forecast) = 0;
  // Forgets everything learned in an episode (e.g. stabilization history).
  virtual void reset() = 0;
  // Why the last decision came out as it did, for the decision journal.
  virtual std::string explain() const { return {}; }
  // A learning policy's action, value and guard for the last decision.
  virtual PolicyDetails details() const { return {}; }
  // What the policy carries from slot to slot, as text for the journal, and
  // back: a restarted scaler resumes where it was. Empty: nothing to carry
  // (static), or not carried (threshold restarts its stabilization window).
  virtual std::string state() const { return {}; }
  // Throws std::invalid_argument on text it did not write.
  virtual void restore(const std::string& state) { (void)state; }
};

// Always `plan`, whatever happens.
std::unique_ptr<Policy> make_static_policy(Plan plan);

// Kubernetes HorizontalPodAutoscaler semantics, applied to every pool of the
// plan in force (placement and splits stay; only instance counts change):
//   desired = ceil(current x utilisation / target)
// unchanged while |utilisation / target - 1| <= tolerance; a scale-down takes
// the highest recommendation of the last `scale_down_window_slots` slots
// (stabilization); each slot moves at most max_scale_up / max_scale_down
// instances; the result stays in [min_instances, max_instances] and within
// the site's free capacity (pools are served in plan order).
struct ThresholdSettings {
  double target_utilisation = 0.7;
  double tolerance = 0.1;                    // HPA's default
  std::size_t scale_down_window_slots = 5;   // HPA: 300 s
  std::uint32_t max_scale_up = 4;            // per pool per slot; HPA: 4 pods or 100% per 15 s
  std::uint32_t max_scale_down = 1;
  std::uint32_t min_instances = 1;
  std::uint32_t max_instances = 64;
};
std::unique_ptr<Policy> make_threshold_policy(const Topology& topology, ThresholdSettings settings);

// --- Policies by name --------------------------------------------------------

// As `nfv-sim --policy NAME --param key=value` and the scaler's config give them.
using PolicyParams = NamedParams;

// What a policy is made for: the system, and where its slots sit in the
// trace (time of day, the trace's unit) for policies that need them.
struct PolicyContext {
  PolicyContext(std::shared_ptr<const SystemModel> system, TraceMapping trace = {})  // NOLINT: a model alone will do
      : model(std::move(system)), mapping(trace) {}
  std::shared_ptr<const SystemModel> model;
  TraceMapping mapping;
};
using PolicyFactory = std::function<std::unique_ptr<Policy>(const ParamReader& params, const PolicyContext& context)>;

// A policy's file registers it:
//   static const PolicyRegistration kThreshold{"threshold", "...", with_placement({"target", ...}), factory};
// `params`: every parameter it takes, so a typo is an error naming the known ones.
struct PolicyRegistration {
  PolicyRegistration(std::string name, std::string description, std::set<std::string> params, PolicyFactory factory);
};

// Throws std::invalid_argument naming an unknown policy (and the known
// ones), an unknown parameter (and the known ones) or a bad value.
std::unique_ptr<Policy> make_policy(std::string_view name, const PolicyParams& params, const PolicyContext& context);
// Registered policies: name -> description (its parameters and defaults).
std::map<std::string, std::string> policy_names();

// Every policy starts from a plan (the static policy keeps it): a plan file,
// or a simple placement. These parameters are every policy's:
//   instances=N (1), placement=ingress|path (ingress), plan=FILE.
std::set<std::string> with_placement(std::set<std::string> params);
Plan placed_plan(const ParamReader& params, const Topology& topology);
// The plan the named policy's parameters start from.
Plan starting_plan(const PolicyParams& params, const Topology& topology);

}  // namespace nfv
