#include "marl_settings.h"

#include <cmath>
#include <stdexcept>

namespace nfv {

namespace {

void at_least_one(const char* field, std::size_t value) {
  if (value == 0) throw std::invalid_argument(std::string("marl: ") + field + ": expected at least 1, got 0");
}

void positive(const char* field, double value) {
  if (!(value > 0) || !std::isfinite(value))
    throw std::invalid_argument(std::string("marl: ") + field + ": expected a finite number > 0, got " + std::to_string(value));
}

}  // namespace

void validate(const MarlSettings& s) {
  at_least_one("critic_width (m)", s.critic_width);
  at_least_one("critic_depth (D)", s.critic_depth);
  at_least_one("actor_width", s.actor_width);
  at_least_one("actor_depth", s.actor_depth);
  at_least_one("critic_steps (K)", s.critic_steps);
  positive("ball_radius (B)", s.ball_radius);
  positive("critic_step (alpha)", s.critic_step);
  positive("actor_step (beta)", s.actor_step);
  positive("reward_scale", s.reward_scale);
  if (!(s.prior_logit >= 0) || !std::isfinite(s.prior_logit))
    throw std::invalid_argument("marl: prior_logit: expected a finite number >= 0, got " + std::to_string(s.prior_logit));
  if (!(s.gamma >= 0 && s.gamma < 1)) throw std::invalid_argument("marl: gamma: expected a number in [0, 1), got " + std::to_string(s.gamma));
  if (s.device != "cpu" && s.device != "cuda") throw std::invalid_argument("marl: device: expected cpu or cuda, got '" + s.device + "'");
}

ActorSignal parse_actor_signal(const std::string& option, const std::string& text) {
  if (text == "consensus_td") return ActorSignal::consensus_td_error;
  if (text == "q_value") return ActorSignal::q_value;
  if (text == "counterfactual") return ActorSignal::counterfactual;
  throw std::invalid_argument(option + ": expected consensus_td, q_value or counterfactual, got '" + text + "'");
}

NetworkLayout parse_network_layout(const std::string& option, const std::string& text) {
  if (text == "stacked") return NetworkLayout::stacked;
  if (text == "looped") return NetworkLayout::looped;
  throw std::invalid_argument(option + ": expected stacked or looped, got '" + text + "'");
}

const char* to_string(ActorSignal signal) {
  switch (signal) {
    case ActorSignal::q_value: return "q_value";
    case ActorSignal::counterfactual: return "counterfactual";
    case ActorSignal::consensus_td_error: break;
  }
  return "consensus_td";
}
const char* to_string(NetworkLayout layout) { return layout == NetworkLayout::looped ? "looped" : "stacked"; }

}  // namespace nfv
