#include "static_update.h"

#include <stdexcept>
#include <string>

#include "ball_projection.h"

namespace nfv {

namespace {

// RMS distance of the rows to their average, on the device.
torch::Tensor spread(const torch::Tensor& flat) { return (flat - flat.mean(0, true)).pow(2).sum(1).mean().sqrt(); }

// `buffer` takes `value`'s numbers, keeping its address (or is made, with value's layout).
void store(torch::Tensor& buffer, const torch::Tensor& value) {
  if (buffer.defined()) buffer.copy_(value);
  else buffer = value.clone();
}

}  // namespace

StaticUpdate::StaticUpdate(DecentralizedActorCritic& learner, const Rollout& rollout)
    : learner_(learner), tensors_(learner.tensors()), steps_(rollout.steps), copies_(rollout.copies) {
  if (learner.settings().layout != NetworkLayout::stacked)
    throw std::invalid_argument("marl: layout: the static update runs the stacked layout only, got looped");
  if (learner.held_agents().size() != learner.agents())
    throw std::invalid_argument("marl: the static update runs a learner holding every agent, not one process's");
  if (learner.settings().actor_signal == ActorSignal::counterfactual)
    throw std::invalid_argument("marl: actor_signal: the static update has consensus_td and q_value, not counterfactual");
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(tensors_.device);
  critic_loss_ = torch::zeros({}, options);
  spread_before_ = torch::zeros({}, options);
  spread_after_ = torch::zeros({}, options);
  load(rollout);
}

void StaticUpdate::load(const Rollout& rollout) {
  const LearnerTensors& n = tensors_;
  if (rollout.steps != steps_ || rollout.copies != copies_)
    throw std::invalid_argument("marl: static update: a rollout of " + std::to_string(rollout.steps) + " steps x " +
                                std::to_string(rollout.copies) + " copies, the buffers hold " + std::to_string(steps_) +
                                " x " + std::to_string(copies_));
  if (!rollout.fits(static_cast<std::size_t>(n.agents), static_cast<std::size_t>(n.state_size),
                    static_cast<std::size_t>(n.observation_size)))
    throw std::invalid_argument("marl: a rollout of another shape than the agents were made for");
  torch::NoGradGuard no_grad;
  const auto copies = static_cast<std::int64_t>(copies_), steps = static_cast<std::int64_t>(steps_);
  const std::int64_t samples = copies * steps;
  const auto on_device = [&](const auto& values, at::IntArrayRef shape, torch::ScalarType type) {
    return torch::from_blob(const_cast<void*>(static_cast<const void*>(values.data())), shape, type).clone().to(n.device);
  };
  // The same derivations as update() (decentralized_actor_critic.cc), so the numbers are the same.
  const torch::Tensor all_states = on_device(rollout.states, {steps + 1, copies, n.state_size}, torch::kFloat32);
  const torch::Tensor all_joint = on_device(rollout.joint, {steps + 1, copies, n.agents}, torch::kInt64);
  const auto critic_input = [&](const torch::Tensor& states, const torch::Tensor& joint) {
    const torch::Tensor one_hot = torch::one_hot(joint, n.actions).to(torch::kFloat32).view({joint.size(0), n.agents * n.actions});
    return torch::cat({states, one_hot}, 1);
  };
  const torch::Tensor a = all_joint.narrow(0, 0, steps).reshape({samples, n.agents});
  store(input_, critic_input(all_states.narrow(0, 0, steps).reshape({samples, n.state_size}), a));
  store(next_input_, critic_input(all_states.narrow(0, 1, steps).reshape({samples, n.state_size}),
                                  all_joint.narrow(0, 1, steps).reshape({samples, n.agents})));
  store(rewards_, on_device(rollout.rewards, {samples, n.agents}, torch::kFloat32).t().mul(learner_.settings().reward_scale));
  store(taken_, a.t().unsqueeze(-1));
  store(observations_, torch::from_blob(const_cast<float*>(rollout.observations.data()), {samples, n.agents, n.observation_size},
                                        torch::kFloat32)
                           .to(n.device)
                           .transpose(0, 1)
                           .contiguous());
  team_return_ = rollout.team_return;
}

void StaticUpdate::work() {
  const LearnerTensors& n = tensors_;
  const MarlSettings& s = learner_.settings();
  const double gamma = s.gamma;
  const auto q_values = [&](const torch::Tensor& input) {
    return n.critic.forward(input.expand({n.agents, input.size(0), input.size(1)})).squeeze(-1);
  };

  // 1. K local TD steps, each projected onto the ball around w0. The
  // gradient comes from autograd::grad, not backward(): nothing is kept in
  // .grad between steps, and the numbers are backward()'s.
  for (std::size_t k = 0; k < s.critic_steps; ++k) {
    torch::Tensor target;
    {
      torch::NoGradGuard no_grad;
      target = rewards_ + gamma * q_values(next_input_);
    }
    const torch::Tensor td = q_values(input_) - target;
    const torch::Tensor loss = 0.5 * td.pow(2).mean(1).sum();
    const torch::Tensor gradient = torch::autograd::grad({loss}, {n.critic.stacked()})[0];
    torch::NoGradGuard no_grad;
    const torch::Tensor stepped = n.critic.parameters() - s.critic_step * gradient;
    n.critic.set_parameters(project_onto_ball(stepped, n.critic_center, s.ball_radius));
    if (k + 1 == s.critic_steps) critic_loss_.copy_(td.detach().pow(2).mean());
  }

  // 2. Consensus on the critics.
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor local = n.critic.parameters();
    spread_before_.copy_(spread(local));
    const torch::Tensor mixed = n.gossip.mix(local, s.gossip_rounds, GossipKind::critic_parameters);
    spread_after_.copy_(spread(mixed));
    n.critic.set_parameters(mixed);
  }

  // 3. Local TD errors with the consensus critics, then gossiped.
  torch::Tensor signal;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor q = q_values(input_);
    signal = s.actor_signal == ActorSignal::q_value ? q : n.gossip.mix(rewards_ + gamma * q_values(next_input_) - q, s.gossip_rounds, GossipKind::td_errors);
  }

  // 4. Normalized policy-gradient step per agent.
  const torch::Tensor log_pi = torch::log_softmax(n.actor.forward(observations_), -1).gather(2, taken_).squeeze(-1);
  const torch::Tensor surrogate = (signal * log_pi).mean(1).sum();
  const torch::Tensor g = torch::autograd::grad({surrogate}, {n.actor.stacked()})[0];
  torch::NoGradGuard no_grad;
  n.actor.set_parameters(n.actor.parameters() + s.actor_step * g / g.norm(2, {1}, true).clamp_min(1e-12));
}

void StaticUpdate::run() {
  work();
  ++learner_.iterations_;
}

IterationStats StaticUpdate::update(const Rollout& rollout) {
  load(rollout);
  run();
  return stats();
}

IterationStats StaticUpdate::stats() const {
  IterationStats out;
  out.team_return = team_return_;
  out.critic_loss = critic_loss_.item<double>();
  out.critic_spread = spread_before_.item<double>();
  out.critic_spread_after = spread_after_.item<double>();
  return out;
}

UpdateBookkeeping StaticUpdate::bookkeeping() const { return {learner_.iterations_, tensors_.gossip.traffic()}; }

void StaticUpdate::set_bookkeeping(const UpdateBookkeeping& counts) {
  learner_.iterations_ = counts.iterations;
  tensors_.gossip.set_traffic(counts.traffic);
}

}  // namespace nfv
