// The decentralized actor-critic's settings (docs/marl.md), with the
// paper's names: m, D, K, B, t_gossip, alpha, beta, gamma. No LibTorch.
#pragma once

#include <cstddef>
#include <string>

namespace nfv {

// What multiplies grad log pi_i in agent i's actor step: the TD error
// averaged by gossip (the algorithm), agent i's own Q value after
// consensus (the paper's ablation), or agent i's counterfactual advantage
// with its consensus critic: Q(s, a) minus the mean of Q over agent i's own
// actions under its policy, the others' kept (COMA's baseline; not the
// paper's, whose TD error has zero mean once a Q critic is right).
enum class ActorSignal { consensus_td_error, q_value, counterfactual };

// How the N agents' networks are held: one set of tensors with a leading
// agent dimension, trained with batched matmuls (stacked), or N separate
// small networks run one after another (looped, the reference).
enum class NetworkLayout { stacked, looped };

struct MarlSettings {
  std::size_t critic_width = 20;  // m
  std::size_t critic_depth = 5;   // D: hidden ReLU layers of the critic
  std::size_t actor_width = 20;
  std::size_t actor_depth = 2;
  std::size_t critic_steps = 10;  // K local TD steps per iteration
  double ball_radius = 10;        // B: each critic stays within B of the common initial parameters
  std::size_t gossip_rounds = 1;  // t_gossip, for the critics and again for the TD errors
  double critic_step = 0.01;      // alpha
  double actor_step = 0.05;       // beta: the length of each normalized actor step
  double gamma = 0.9;
  double reward_scale = 1;        // rewards x this before learning (the critic's units)
  // The actors' initial logit of the environment's preferred action, over
  // the others' (0: start near uniform, as the paper does). Only where
  // training starts from; a checkpoint holds what came of it.
  double prior_logit = 0;
  ActorSignal actor_signal = ActorSignal::consensus_td_error;
  NetworkLayout layout = NetworkLayout::stacked;
  std::string device = "cpu";     // cpu | cuda
};

// Throws std::invalid_argument naming the first bad field.
void validate(const MarlSettings& settings);

// "consensus_td" | "q_value"; "stacked" | "looped". Errors name `option`.
ActorSignal parse_actor_signal(const std::string& option, const std::string& text);
NetworkLayout parse_network_layout(const std::string& option, const std::string& text);
const char* to_string(ActorSignal signal);
const char* to_string(NetworkLayout layout);

}  // namespace nfv
