// The decentralized deep neural actor-critic (Zhang, Oh, Hairi, Luo,
// Velasquez, Liu, ICML 2025), one agent per site; docs/marl.md. Each
// iteration, on one rollout of every copy of the environment under the
// current policies:
//   1. each agent i takes K semi-gradient TD steps on its own critic
//      Q(s, a; w_i) (a ReLU MLP of width m and depth D reading the global
//      state and the joint action, one-hot) with its own local reward, each
//      step followed by the projection onto ||w_i - w0|| <= B, w0 the
//      critics' common initial parameters;
//   2. t_gossip rounds of consensus on the critics' parameters (W w);
//   3. each agent computes its local TD errors with its consensus critic
//      and the agents gossip them (t_gossip rounds, the same W);
//   4. each agent moves its own softmax policy theta_i by beta along
//      g_i / ||g_i||, g_i = mean over samples of the consensual TD error x
//      grad log pi_i(a_i | o_i) (or the Q value: the paper's ablation),
//      o_i the agent's own observation (MarlEnvironment::observe).
// Policies stay local: agents exchange nothing but gossip messages.
//
// Randomness is per agent (action sampling from a generator seeded from
// (seed, agent); the actors' initial parameters likewise; the critics'
// from the seed alone, as they start in common), so that one process per
// agent can reproduce a stacked run. A learner holds every agent (the
// stacked run) or one (one process per agent, agent_processes.h): the same
// numbers for that agent, its gossip and the others' actions going through
// AgentLinks instead of a matrix product.
//
// This header has no LibTorch; decentralized_actor_critic.cc does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "marl_environment.h"
#include "marl_settings.h"
#include "mixing_matrix.h"

namespace nfv {

class AgentLinks;
struct LearnerTensors;  // static_update.h

struct IterationStats {
  double team_return = 0;          // per episode: the team's rewards summed over its steps, averaged over copies
  double critic_loss = 0;          // mean over agents of the mean squared local TD error at the last TD step
  double critic_spread = 0;        // RMS distance of the held critics to their average, before consensus
  double critic_spread_after = 0;  // the same after t_gossip rounds (one agent held: 0)
};

// One rollout of every copy of an environment, one episode long: what an
// update learns from. Steps 0..H of states, observations and joint actions
// (the last action is drawn, not taken: the TD target's a'), rewards at
// 0..H-1. Row-major, step-major.
struct Rollout {
  std::size_t steps = 0, copies = 0, agents = 0, state_size = 0, observation_size = 0;
  std::vector<float> states;          // [(H+1) x copies x state_size]
  std::vector<float> observations;    // [(H+1) x copies x agents x observation_size]
  std::vector<std::int64_t> joint;    // [(H+1) x copies x agents]
  std::vector<float> rewards;         // [H x copies x agents]
  double team_return = 0;             // per copy

  // Whether it is whole (every buffer the size its counts say) and made for
  // this many agents, state and observation numbers.
  bool fits(std::size_t agents_of, std::size_t state_size_of, std::size_t observation_size_of) const {
    return agents == agents_of && state_size == state_size_of && observation_size == observation_size_of &&
           states.size() == (steps + 1) * copies * state_size &&
           observations.size() == (steps + 1) * copies * agents * observation_size &&
           joint.size() == (steps + 1) * copies * agents && rewards.size() == steps * copies * agents;
  }
};

class DecentralizedActorCritic {
 public:
  // Agents and their actions as `environment` has them; `graph` over the
  // same agents. Throws std::invalid_argument naming a bad setting or a
  // graph of another size, std::runtime_error for a device LibTorch lacks.
  DecentralizedActorCritic(const MarlSettings& settings, const MixingMatrix& graph, const MarlEnvironment& environment,
                           std::uint64_t seed);
  DecentralizedActorCritic(const MarlSettings& settings, const MixingMatrix& graph, const MarlShape& shape,
                           std::uint64_t seed);
  // Agent `agent` alone (its process's share of a team): the critic, actor
  // and generator that row `agent` of a stacked run with `seed` has; its
  // gossip and the other agents' actions go through `links`. Throws
  // std::invalid_argument for an agent beyond the environment's.
  DecentralizedActorCritic(const MarlSettings& settings, const MixingMatrix& graph, const MarlEnvironment& environment,
                           std::uint64_t seed, std::size_t agent, std::unique_ptr<AgentLinks> links);
  ~DecentralizedActorCritic();
  DecentralizedActorCritic(const DecentralizedActorCritic&) = delete;
  DecentralizedActorCritic& operator=(const DecentralizedActorCritic&) = delete;

  // One rollout (every copy, one episode) and one update as above.
  IterationStats iterate(MarlEnvironment& environment);
  // The two halves: a rollout under the current policies (drawing from the
  // agents' generators), and steps 1-4 on it.
  Rollout collect(MarlEnvironment& environment);
  IterationStats update(const Rollout& rollout);
  std::uint64_t iterations() const { return iterations_; }

  // Everything the next iteration depends on: settings, every agent's
  // critic and actor, w0, the agents' generators, the iteration count and
  // the gossip traffic so far. Written aside, then renamed.
  void save(const std::string& path) const;
  // A saved run, going on as if never stopped, on `graph` (e.g. over the
  // survivors) and `device` (empty: the saved one). Throws
  // std::runtime_error naming the file when it is not a MARL checkpoint or
  // was made for another number of agents, actions or state size.
  static std::unique_ptr<DecentralizedActorCritic> load(const std::string& path, const MixingMatrix& graph,
                                                        const MarlEnvironment& environment, const std::string& device = "");
  // The same for serving, where there is no environment, only its shape.
  static std::unique_ptr<DecentralizedActorCritic> load(const std::string& path, const MixingMatrix& graph,
                                                        const MarlShape& shape, const std::string& device = "");
  // A one-agent checkpoint (saved by a learner that held one agent), going
  // on with `links`. Throws std::runtime_error as load() does, and for a
  // checkpoint that holds other agents.
  static std::unique_ptr<DecentralizedActorCritic> load_agent(const std::string& path, const MixingMatrix& graph,
                                                              const MarlEnvironment& environment,
                                                              std::unique_ptr<AgentLinks> links);

  // The team again from its agents' one-agent checkpoints (a processes
  // run's agent-<k>.pt, k = 0..N-1 in order): one learner holding every
  // agent, for serving. Throws std::runtime_error naming the file that is
  // missing, holds another agent, or was made for another environment.
  static std::unique_ptr<DecentralizedActorCritic> load_team(const std::vector<std::string>& agent_paths,
                                                             const MixingMatrix& graph, const MarlShape& shape,
                                                             const std::string& device = "");

  // Every held agent's action probabilities given its observation:
  // observations [agents x observation_size] (everyone's) -> [held x actions].
  std::vector<float> policy(std::span<const float> observations) const;
  // Every held agent's most likely action.
  std::vector<std::int64_t> greedy(std::span<const float> observations) const;
  std::size_t agents() const;
  // The agents whose networks this learner holds (all, or one).
  std::vector<std::size_t> held_agents() const;
  std::size_t actions() const;
  std::size_t observation_size() const;
  // The weights from now on (e.g. over the survivors after agents died).
  // A one-agent learner's process regroups its gossip itself: std::logic_error.
  void set_graph(const MixingMatrix& graph);
  const GossipTraffic& traffic() const;
  const MarlSettings& settings() const { return settings_; }

  // Agent i's parameters (a held agent), for tests and for comparing runs.
  std::vector<float> critic_parameters(std::size_t agent) const;
  std::vector<float> actor_parameters(std::size_t agent) const;

 private:
  // Another path through update()'s math, for CUDA graphs (static_update.h).
  friend class StaticUpdate;
  LearnerTensors tensors();

  struct Networks;
  DecentralizedActorCritic(const MarlSettings& settings, const MixingMatrix& graph, const MarlShape& shape,
                           std::uint64_t seed, std::vector<std::size_t> held, std::unique_ptr<AgentLinks> links);
  static std::unique_ptr<DecentralizedActorCritic> load_held(const std::string& path, const MixingMatrix& graph,
                                                             const MarlShape& shape, const std::string& device,
                                                             std::unique_ptr<AgentLinks> links);
  MarlSettings settings_;
  std::uint64_t seed_;
  std::uint64_t iterations_ = 0;
  std::unique_ptr<Networks> nets_;
};

// LibTorch's intra-op threads (1: deterministic, and the machine is shared).
void set_marl_threads(int threads);

}  // namespace nfv
