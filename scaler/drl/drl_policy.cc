#include "drl_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace nfv {

std::vector<double> serving_numbers(const DrlServing& serving) {
  return {static_cast<double>(serving.horizon), serving.scale.kappa, serving.scale.logit_range,
          static_cast<double>(serving.max_instances_per_pool), serving.reward_scale, serving.scale.need_floor,
          serving.scale.headroom, static_cast<double>(serving.scale.sites_per_hop), serving.scale.learn_split ? 1.0 : 0.0,
          static_cast<double>(serving.scale.base)};
}

std::string base_params_text(const PolicyParams& params) {
  std::string text;
  for (const auto& [key, value] : params) text += key + "=" + value + "\n";
  return text;
}

DrlServing serving_from_numbers(const std::vector<double>& numbers, const std::string& forecast,
                                const std::string& base_params) {
  if (numbers.size() != 9 && numbers.size() != 10)
    throw std::runtime_error("serving settings of " + std::to_string(numbers.size()) + " numbers, expected 9 (before the action base) or 10");
  DrlServing serving;
  serving.horizon = static_cast<std::size_t>(numbers[0]);
  serving.scale.kappa = numbers[1];
  serving.scale.logit_range = numbers[2];
  serving.max_instances_per_pool = static_cast<std::uint32_t>(numbers[3]);
  serving.reward_scale = numbers[4];
  serving.scale.need_floor = numbers[5];
  serving.scale.headroom = numbers[6];
  serving.scale.sites_per_hop = static_cast<std::size_t>(numbers[7]);
  serving.scale.learn_split = numbers[8] != 0;
  if (numbers.size() > 9) {
    if (numbers[9] != 0 && numbers[9] != 1) throw std::runtime_error("serving settings: an unknown action base");
    serving.scale.base = numbers[9] != 0 ? ActionBase::online : ActionBase::forecast;
  }
  serving.forecast = forecast;
  std::istringstream lines(base_params);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) add_named_param("the base policy's parameters", line, serving.base_params);
  return serving;
}

AgentShape agent_shape(const DrlLayout& layout) {
  AgentShape shape;
  shape.pools = layout.pools();
  shape.chains = layout.chains();
  shape.pool_features = layout.pool_features();
  shape.global_features = layout.global_features();
  shape.chain_begin = layout.chain_begin();
  return shape;
}

namespace {

DecoderSettings decoder_settings(const DrlServing& serving, const std::vector<std::uint8_t>& pools) {
  DecoderSettings settings;
  settings.max_instances_per_pool = serving.max_instances_per_pool;
  settings.pools = pools;
  return settings;
}

// The forecast rate the plan cannot serve, as a share of the forecast rate:
// per pool, the traffic its split sends it beyond what its instances serve,
// added over every pool of every hop.
double shortfall(const SystemModel& model, const Plan& plan, const Observation& observation, const Forecast& forecast) {
  const PoolIndex& index = model.pool_index();
  double missing = 0, wanted = 0;
  for (const PoolPlan& p : plan.pools) {
    const double offered = p.split * DrlLayout::planned_rate(p.chain, observation, forecast);
    missing += std::max(0.0, offered - p.instances * model.service_rate_pps(index.hop_number(p.chain, p.hop)));
  }
  for (std::size_t c = 0; c < model.chains(); ++c)
    wanted += DrlLayout::planned_rate(c, observation, forecast) * static_cast<double>(model.topology().chains[c].vnfs.size());
  return wanted > 0 ? missing / wanted : 0.0;
}

}  // namespace

DrlPolicy::DrlPolicy(const PolicyContext& context, std::shared_ptr<const Td3Agent> agent, DrlServing serving,
                     GuardSettings guard, const std::vector<std::uint8_t>& pools)
    : model_(context.model), agent_(std::move(agent)), serving_(std::move(serving)), guard_settings_(std::move(guard)),
      featurizer_(model_, context.mapping, serving_.horizon), layout_(model_, featurizer_, serving_.scale, pools),
      decoder_(model_, decoder_settings(serving_, pools)), residual_(layout_, decoder_) {
  if (!agent_) throw std::invalid_argument("policy drl: no agent");
  if (serving_.scale.base == ActionBase::online) base_ = make_policy("online", serving_.base_params, context);
  const AgentShape& shape = agent_->shape();
  if (shape.pools != layout_.pools() || shape.chains != layout_.chains() ||
      shape.pool_features != layout_.pool_features() || shape.global_features != layout_.global_features())
    throw std::invalid_argument("policy drl: the agent was made for another system");
  if (guard_settings_.policy != "none") {
    if (guard_settings_.policy == "drl") throw std::invalid_argument("policy drl: parameter 'guard': drl cannot guard itself");
    guard_ = make_policy(guard_settings_.policy, guard_settings_.params, context);
  }
  if (!(guard_settings_.margin >= 0)) throw std::invalid_argument("policy drl: parameter 'margin' must be >= 0");
  all_rows_.resize(featurizer_.pools() * featurizer_.pool_features());
  rows_.resize(layout_.pools() * layout_.pool_features());
  global_.resize(featurizer_.global_features());
  actions_.resize(layout_.actions());
  instances_.resize(featurizer_.pools());
  logits_.resize(featurizer_.pools());
  values_.resize(layout_.chains());
}

void DrlPolicy::reset() {
  if (guard_) guard_->reset();
  if (base_) base_->reset();
  held_ = 0;
  explanation_.clear();
  details_ = {};
}

Plan DrlPolicy::decide(const Observation& observation, const Forecast& forecast) {
  featurizer_.featurize(observation, forecast, all_rows_, global_);
  layout_.gather(all_rows_, rows_);
  agent_->act(rows_, global_, 1, actions_, values_);
  // Each chain's value is in units of its size, its mean rate over the
  // training rows (drl_trainer.h); serving knows only its size now, so the
  // value in cost units is an estimate.
  double value = 0;
  for (std::size_t c = 0; c < values_.size(); ++c) {
    const double size = 1.0 + DrlLayout::planned_rate(c, observation, forecast) /
                                  model_->service_rate_pps(model_->pool_index().hop_number(c, 0));
    value += values_[c] * size;
  }
  if (base_) {
    Plan base;
    try {
      base = base_->decide(observation, forecast);
    } catch (const std::exception& e) {
      // No plan to add the residual to: the slot loop keeps the last good plan.
      throw std::runtime_error(std::string("drl: its base online policy failed: ") + e.what());
    }
    agent_plan_ = residual_.plan(actions_, base, &observation.plan);
  } else {
    layout_.to_decoder(actions_, observation, forecast, instances_, logits_);
    agent_plan_ = decoder_.decode(instances_, layout_.decoder_logits(logits_), &observation.plan);
  }

  details_ = {};
  details_.present = true;
  details_.value = -value * serving_.reward_scale;
  details_.actions.reserve(layout_.pools());
  const PoolIndex& index = model_->pool_index();
  for (std::size_t k = 0; k < layout_.pools(); ++k) {
    const std::size_t p = layout_.pool()[k];
    const std::size_t hop_number = p / index.sites();
    const auto chain = static_cast<std::uint32_t>(layout_.chain_of_pool()[k]);
    details_.actions.push_back({chain, static_cast<std::uint32_t>(hop_number - index.hop_number(chain, 0)),
                                static_cast<std::uint32_t>(p % index.sites()), actions_[2 * k], actions_[2 * k + 1]});
  }

  char text[200];
  std::snprintf(text, sizeof text, "drl%s: %lld instances, value %.4g", base_ ? " (residual on online)" : "",
                static_cast<long long>(agent_plan_.total_instances()), details_.value);
  explanation_ = text;
  if (!guard_) return agent_plan_;

  // The guard decides every slot so that its state follows the system. If it
  // fails, the agent's plan stands where it passes the checks below.
  Plan guarded;
  std::string guard_error;
  try {
    guarded = guard_->decide(observation, forecast);
  } catch (const std::exception& e) {
    guard_error = e.what();
  }
  std::string why;
  const double short_share = shortfall(*model_, agent_plan_, observation, forecast);
  if (short_share > guard_settings_.margin) {
    std::snprintf(text, sizeof text, "the plan leaves %.1f%% of the forecast unserved (margin %.1f%%)",
                  100 * short_share, 100 * guard_settings_.margin);
    why = text;
  } else {
    const FeatureStatistics& pool_stats = agent_->pool_statistics();
    const FeatureStatistics& global_stats = agent_->global_statistics();
    // Pool and global features apart: a few global features out of range weigh as much as many pools'.
    const double share = std::max(
        static_cast<double>(pool_stats.out_of_range(rows_, guard_settings_.range_slack, 0.1)) / rows_.size(),
        static_cast<double>(global_stats.out_of_range(global_, guard_settings_.range_slack, 0.1)) / global_.size());
    if (share > guard_settings_.range_share) {
      std::snprintf(text, sizeof text, "%.1f%% of the inputs are outside the training range (at most %.1f%%)",
                    100 * share, 100 * guard_settings_.range_share);
      why = text;
    }
  }
  // Once the guard took over it keeps the slots for `hold` slots: flipping
  // between two placements slot by slot would pay a deployment each time.
  if (why.empty() && held_ > 0 && guard_error.empty()) {
    --held_;
    why = "held after a fallback (" + std::to_string(held_) + " more slots)";
  } else if (!why.empty()) {
    held_ = guard_settings_.hold;
  }
  if (why.empty()) {
    details_.guard = "agent";
    if (!guard_error.empty()) explanation_ += "; the guard failed (" + guard_error + ")";
    details_.guard_fallbacks = fallbacks_;
    return agent_plan_;
  }
  if (!guard_error.empty()) throw std::runtime_error(why + ", and the guard failed: " + guard_error);
  ++fallbacks_;
  details_.guard = guard_->name();
  details_.guard_reason = why;
  details_.guard_fallbacks = fallbacks_;
  explanation_ += "; guard: " + why + ", " + guard_->name() + " decides";
  const std::string guard_explanation = guard_->explain();
  if (!guard_explanation.empty()) explanation_ += " (" + guard_explanation + ")";
  return guarded;
}

std::unique_ptr<DrlPolicy> load_drl_policy(const std::string& checkpoint, const PolicyContext& context,
                                           GuardSettings guard, const std::string& device,
                                           const std::vector<std::uint8_t>& pools) {
  CheckpointExtras wanted;
  wanted.numbers = {{"serving", {}}};
  wanted.text = {{"forecast", {}}};
  // The serving settings first: the horizon sizes the features the agent's shape needs.
  Td3Agent::read_extras(checkpoint, wanted);
  DrlServing serving;
  try {
    serving = serving_from_numbers(wanted.numbers[0].second, wanted.text[0].second);
    if (serving.scale.base == ActionBase::online) {
      // Only such checkpoints hold the base policy's parameters.
      CheckpointExtras base{{{"base_params", {}}}, {}};
      Td3Agent::read_extras(checkpoint, base);
      serving = serving_from_numbers(wanted.numbers[0].second, wanted.text[0].second, base.text[0].second);
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(checkpoint + ": " + e.what());
  }
  const Featurizer featurizer(context.model, context.mapping, serving.horizon);
  const DrlLayout layout(context.model, featurizer, serving.scale, pools);
  CheckpointExtras none;
  std::shared_ptr<Td3Agent> agent = Td3Agent::load(checkpoint, agent_shape(layout), none, /*optimizer=*/false, device);
  return std::make_unique<DrlPolicy>(context, std::move(agent), serving, std::move(guard), pools);
}

}  // namespace nfv

namespace nfv {

namespace {

const PolicyRegistration kDrl{
    "drl",
    "the TD3 agent of a checkpoint (nfv-train drl): checkpoint=FILE (required), guard=online|threshold|static|none "
    "(online), margin (0.1: the forecast share the plan may leave unserved), range_share (0.01) and range_slack (0.5): "
    "inputs outside the training range, hold (12: slots the guard keeps after it fired), device=cpu|cuda (cpu), "
    "candidates=sla|plan (sla: any site within the SLA; plan: only the starting plan's pools, e.g. the pods'), "
    "guard.KEY=VALUE (a parameter of the guard policy, e.g. guard.utilisation=0.75; the guard gets the agent's plan, "
    "instances, placement and, for online, candidates=plan unless given its own)",
    with_placement({"checkpoint", "guard", "margin", "range_share", "range_slack", "hold", "device", "candidates", "guard."}),
    [](const ParamReader& params, const PolicyContext& context) -> std::unique_ptr<Policy> {
      const std::string checkpoint = params.text("checkpoint", "");
      if (checkpoint.empty())
        throw std::invalid_argument(params.what() + ": parameter 'checkpoint' is required (a file nfv-train drl wrote)");
      GuardSettings guard;
      guard.policy = params.text("guard", guard.policy);
      guard.margin = params.number("margin", guard.margin);
      guard.range_share = params.number("range_share", guard.range_share);
      guard.range_slack = params.number("range_slack", guard.range_slack);
      guard.hold = params.count("hold", static_cast<std::uint32_t>(guard.hold));
      guard.params = params.prefixed("guard.");
      if (guard.policy == "none" && !guard.params.empty())
        throw std::invalid_argument(params.what() + ": parameter 'guard." + guard.params.begin()->first +
                                    "' given, but guard=none");
      const std::string candidates = params.text("candidates", "sla");
      if (candidates != "sla" && candidates != "plan")
        throw std::invalid_argument(params.what() + ": parameter 'candidates': expected sla or plan, got '" + candidates + "'");
      // The guard starts from the same plan as the agent, and an online
      // guard keeps to the same pools, unless told otherwise.
      for (const char* key : {"plan", "instances", "placement"})
        if (params.has(key) && !guard.params.count(key)) guard.params[key] = params.text(key, "");
      if (candidates == "plan" && guard.policy == "online" && !guard.params.count("candidates"))
        guard.params["candidates"] = "plan";
      std::vector<std::uint8_t> pools;
      if (candidates == "plan") pools = plan_pools(*context.model, placed_plan(params, context.model->topology()));
      try {
        return load_drl_policy(checkpoint, context, guard, params.text("device", "cpu"), pools);
      } catch (const std::exception& e) {
        throw std::invalid_argument(params.what() + ": " + e.what());
      }
    }};

}  // namespace

}  // namespace nfv
