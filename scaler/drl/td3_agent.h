// The DRL policy's learner: TD3 (Fujimoto et al., 2018), an off-policy
// actor-critic with a deterministic actor, twin critics whose minimum makes
// the target (against value overestimation), target networks updated by
// Polyak averaging, smoothing noise on the target action and a delayed
// actor update. docs/drl.md says why TD3. Chains share the networks and
// learn separately: the critic estimates each chain's own discounted
// cost-to-go from its pools' features and actions and the global features,
// and learns from the chain's own cost (SlotOutcome::chain_cost), so every
// slot gives one learning signal per chain instead of one for the whole
// system, and a batch is chains, not whole systems.
//
// This header has no LibTorch; td3_agent.cc and drl_network.cc do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "checkpoint_extras.h"
#include "feature_statistics.h"
#include "transition.h"

namespace nfv {

// The system the agent acts on; weights depend only on the feature counts.
struct AgentShape {
  std::size_t pools = 0, chains = 0, pool_features = 0, global_features = 0;
  std::vector<std::size_t> chain_begin;  // per chain + 1: its pools are [chain_begin[c], chain_begin[c + 1])
};

struct AgentSettings {
  std::size_t hidden = 64;
  double gamma = 0.9;           // per slot
  double actor_lr = 3e-4;
  double critic_lr = 1e-3;
  double tau = 0.01;            // target networks: theta' <- tau theta + (1 - tau) theta'
  std::size_t policy_delay = 2; // critic updates per actor update
  double target_noise = 0.2;    // std of the target action's smoothing noise
  double noise_clip = 0.5;
  // TD3+BC (Fujimoto & Gu, 2021): the actor maximises lambda Q - (a - a_replay)^2,
  // lambda = bc_alpha / mean |Q|, so it moves away from what was tried only
  // where the critic is sure; 0 = plain TD3.
  double bc_alpha = 2.5;
  // The BC term's anchor: false, the replayed actions (TD3+BC); true, the
  // zero action, for a residual agent (ActionBase::online), whose zero is
  // the plan of a policy known to be good: the actor then leaves that plan
  // only where the critic's gain outweighs the distance.
  bool bc_to_zero = false;
  std::string device = "cpu";   // cpu | cuda
};

struct UpdateStats {
  double critic_loss = 0;
  double actor_loss = 0;
  bool actor_updated = false;
  double mean_q = 0;              // per chain, over the batch
  std::vector<float> td_error;    // per chain sample: |TD error| of the first critic (the new priorities)
};

class Td3Agent {
 public:
  // Fresh networks, deterministic for `seed`. Throws std::invalid_argument
  // for an inconsistent shape, std::runtime_error for a device LibTorch lacks.
  Td3Agent(AgentShape shape, AgentSettings settings, std::uint64_t seed);
  ~Td3Agent();
  Td3Agent(const Td3Agent&) = delete;
  Td3Agent& operator=(const Td3Agent&) = delete;

  const AgentShape& shape() const { return shape_; }
  const AgentSettings& settings() const { return settings_; }
  std::uint64_t updates() const { return updates_; }

  // The input normalisation (columns: pool features, global features).
  void set_statistics(FeatureStatistics pool, FeatureStatistics global);
  const FeatureStatistics& pool_statistics() const { return pool_stats_; }
  const FeatureStatistics& global_statistics() const { return global_stats_; }
  // Widens the statistics' ranges (what the guard compares with) by rows trained on.
  void widen_ranges(std::span<const float> pool, std::span<const float> global);

  // For `states` states of raw (unnormalised) rows: the actions (states x
  // pools x 2, in [-1, 1]) and, when `values` is not empty, the critic's
  // value of them per state and chain (states x chains, reward units).
  void act(std::span<const float> pool, std::span<const float> global, std::size_t states, std::span<float> actions,
           std::span<float> values = {}) const;
  // One TD3 step on a batch of chain samples: the critics every call, the actor and the
  // targets every policy_delay-th call (`actor` false: the critics and
  // their targets only, e.g. to fit the critics to a cloned actor first).
  UpdateStats update(const TransitionBatch& batch, bool actor = true);
  // Behaviour cloning: one step moving the actor's actions towards
  // batch.action (mean squared error, returned).
  double imitate(const TransitionBatch& batch);

  // Networks, target networks, optimisers, normalisation, settings, the
  // update count and `extras`.
  void save(const std::string& path, const CheckpointExtras& extras) const;
  // The checkpoint's weights on a system of `shape` (any pools and chains,
  // the same feature counts). `wanted`: the extras to read back. `optimizer`
  // false: the networks alone (serving). Throws std::runtime_error naming the file.
  static std::unique_ptr<Td3Agent> load(const std::string& path, AgentShape shape, CheckpointExtras& wanted,
                                        bool optimizer = true, const std::string& device = "");

  // Only the extras of a checkpoint (e.g. what sizes the shape to load it on).
  static void read_extras(const std::string& path, CheckpointExtras& wanted);

  // Every parameter's values, in order: for tests (bit-identical round trips, determinism).
  std::vector<float> parameters() const;

 private:
  struct Nets;
  AgentShape shape_;
  AgentSettings settings_;
  std::uint64_t seed_;
  std::uint64_t updates_ = 0;
  FeatureStatistics pool_stats_, global_stats_;
  std::unique_ptr<Nets> nets_;
};

// LibTorch's intra-op threads (1: deterministic).
void set_drl_threads(int threads);

}  // namespace nfv
