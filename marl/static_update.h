// Steps 1-4 of DecentralizedActorCritic::update() (the same tensor
// operations in the same order, on the learner's own parameters) run from
// buffers whose addresses never change and without a host sync: what a
// CUDA graph needs to capture an iteration (captured_update.h) and replay
// it. load() puts a rollout into the buffers (outside any capture); run()
// does the work and the learner's bookkeeping (iteration count, gossip
// traffic), as update() would. Stacked layout only: the looped one exists
// to be the slow reference.
// Included only by the module's LibTorch sources, tests and benches.
#pragma once

#include <cstdint>

#include <torch/torch.h>

#include "decentralized_actor_critic.h"
#include "agent_links.h"
#include "gossip.h"
#include "stacked_mlp.h"

namespace nfv {

// What an update path reads and writes of a learner
// (DecentralizedActorCritic::tensors()).
struct LearnerTensors {
  StackedMlp& critic;
  StackedMlp& actor;
  const torch::Tensor& critic_center;  // w0
  AgentLinks& gossip;  // the stacked run's Gossip
  torch::Device device;
  std::int64_t agents, actions, state_size, observation_size;
};

// The learner's counts, which run() moves on and a graph replay does not.
struct UpdateBookkeeping {
  std::uint64_t iterations = 0;
  GossipTraffic traffic;
};

class StaticUpdate {
 public:
  // Buffers for rollouts of `rollout`'s shape, holding it. Throws
  // std::invalid_argument naming `layout` for a looped learner, or a
  // rollout of another shape than the learner's.
  StaticUpdate(DecentralizedActorCritic& learner, const Rollout& rollout);

  // Another rollout of the same steps and copies into the buffers.
  void load(const Rollout& rollout);
  // One update on the loaded rollout, as update() makes it.
  void run();
  // The tensor work of run() alone (it counts gossip messages as Gossip
  // does): what a graph captures.
  void work();
  // load() + run() + stats(): update(rollout) on this path.
  IterationStats update(const Rollout& rollout);
  // The last run's statistics (waits for the device).
  IterationStats stats() const;

  UpdateBookkeeping bookkeeping() const;
  void set_bookkeeping(const UpdateBookkeeping& counts);
  const LearnerTensors& tensors() const { return tensors_; }
  torch::Device device() const { return tensors_.device; }

 private:
  DecentralizedActorCritic& learner_;
  LearnerTensors tensors_;
  std::size_t steps_, copies_;
  double team_return_ = 0;
  // The rollout as update() derives it: critic inputs (state, joint action
  // one-hot) at t and t+1, rewards [N, B], actions taken [N, B, 1], actor
  // observations [N, B, O].
  torch::Tensor input_, next_input_, rewards_, taken_, observations_;
  torch::Tensor critic_loss_, spread_before_, spread_after_;  // 0-d, written by work()
};

}  // namespace nfv
