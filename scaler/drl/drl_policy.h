// `drl`: the TD3 agent (td3_agent.h) as a scaler policy. Each slot it
// featurizes the observation and the forecast, runs the actor on the
// candidate pools, turns the actions into decoder inputs (drl_layout.h) and
// decodes them into a valid plan; an agent trained on the online policy's
// plans (ActionBase::online) runs that policy for the slot and applies its
// actions as a residual on the plan (residual_plan.h). A guard then falls back to another policy
// (online by default) for the slot when
//   - the plan leaves the forecast under-served: the traffic each pool's
//     split sends it beyond what its instances serve, added over all pools,
//     exceeds `margin` of the forecast rate (over all hops); or
//   - the inputs are outside what the agent trained on: more than
//     `range_share` of the pool features, or of the global ones, fall
//     outside the range seen in training (widened by `range_slack` of its
//     width on each side).
// Once it fired, the guard keeps deciding for `hold` more slots: flipping
// between two placements slot by slot would pay a deployment each time.
// The guard policy decides every slot (its own state then follows the
// system); if it fails, the agent's plan stands where it passes the checks.
// The plan is checked before the slot loop applies the operator's site limits.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "action_decoder.h"
#include "drl_layout.h"
#include "featurizer.h"
#include "policy.h"
#include "residual_plan.h"
#include "td3_agent.h"

namespace nfv {

// What serving needs besides the weights; a checkpoint holds it.
struct DrlServing {
  std::size_t horizon = 3;
  ActionScale scale;
  std::uint32_t max_instances_per_pool = 64;
  double reward_scale = 1;  // cost units per reward unit (the value estimate in cost)
  std::string forecast;     // what the agent trained with, e.g. "ewma:alpha=0.5"
  PolicyParams base_params; // the online policy's, when scale.base is online
};

// The serving settings as the checkpoint stores them, and back (the horizon,
// forecast and base parameters of a DrlServing come back too; throws
// std::runtime_error on a list of the wrong size). A checkpoint made before
// the action base existed holds one number less: its base is the forecast.
std::vector<double> serving_numbers(const DrlServing& serving);
DrlServing serving_from_numbers(const std::vector<double>& numbers, const std::string& forecast,
                                const std::string& base_params = "");
// The base policy's parameters as the checkpoint's text: KEY=VALUE lines.
std::string base_params_text(const PolicyParams& params);

struct GuardSettings {
  std::string policy = "online";  // "none": the agent's plan always
  PolicyParams params;            // the guard policy's
  double margin = 0.1;
  double range_share = 0.01;
  double range_slack = 0.5;
  std::size_t hold = 12;  // slots the guard policy keeps deciding after it fired
};

class DrlPolicy final : public Policy {
 public:
  // `pools`: per PoolIndex pool, 1 where plans may run it (plan_pools; empty: every pool within the SLA).
  DrlPolicy(const PolicyContext& context, std::shared_ptr<const Td3Agent> agent, DrlServing serving,
            GuardSettings guard, const std::vector<std::uint8_t>& pools = {});
  std::string name() const override { return "drl"; }
  Plan decide(const Observation& observation, const Forecast& forecast) override;
  void reset() override;
  std::string explain() const override { return explanation_; }
  PolicyDetails details() const override { return details_; }

  const DrlServing& serving() const { return serving_; }
  std::uint64_t guard_fallbacks() const { return fallbacks_; }
  // The last decision's agent plan (before the guard) and actions, per candidate pool.
  const Plan& agent_plan() const { return agent_plan_; }

 private:
  std::shared_ptr<const SystemModel> model_;
  std::shared_ptr<const Td3Agent> agent_;
  DrlServing serving_;
  GuardSettings guard_settings_;
  Featurizer featurizer_;
  DrlLayout layout_;
  ActionDecoder decoder_;
  std::unique_ptr<Policy> guard_;
  std::unique_ptr<Policy> base_;  // the plan the actions are a residual on (ActionBase::online)
  ResidualPlanner residual_;
  std::vector<float> all_rows_, rows_, global_, actions_, instances_, logits_, values_;
  Plan agent_plan_;
  std::string explanation_;
  PolicyDetails details_;
  std::uint64_t fallbacks_ = 0;
  std::size_t held_ = 0;  // slots the guard keeps
};

// The checkpoint's agent on the context's system, with its serving settings.
// Throws std::runtime_error naming the file when it cannot.
std::unique_ptr<DrlPolicy> load_drl_policy(const std::string& checkpoint, const PolicyContext& context,
                                           GuardSettings guard, const std::string& device = "cpu",
                                           const std::vector<std::uint8_t>& pools = {});

// The agent's shape on a system (candidate pools, chains, feature counts).
AgentShape agent_shape(const DrlLayout& layout);

}  // namespace nfv
