// Trains the decentralized placement agents (decentralized_actor_critic.h)
// on the placement game over a trace's training rows, and validates them on
// held-back slots against the base plan (every site's base action) and the
// online policy, run on the same slots by the same slot loop. Each iteration
// is one rollout of every copy of the game and one update. The output
// directory holds the layout's settings, the agents (last and best
// validation), the trainer's state and the curve (marl_policy.h).
// Deterministic per seed on CPU; a resumed run goes on as if never stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent_processes.h"
#include "arrival_schedule.h"
#include "decentralized_actor_critic.h"
#include "forecaster.h"
#include "placement_game.h"
#include "policy.h"
#include "site_layout.h"

namespace nfv {

struct MarlTrainSettings {
  MarlSettings agents;
  SiteLayoutSettings layout;
  PlacementGameSettings game;      // its cost_unit is worked out: the base plan's cost per site and slot
  double arrival_noise = 0.1;
  std::size_t iterations = 300;
  std::size_t validation_slots = 0;  // 0: two days of trace steps, at most a quarter of the rows
  std::size_t validate_every = 25;   // iterations
  std::uint64_t seed = 1;
  std::string out = "marl";          // directory
  PolicyParams online;               // the online baseline's parameters
};

struct MarlCurvePoint {
  std::size_t iteration = 0;
  double train_cost = 0;        // per slot, over the iteration's rollout (all copies)
  double critic_loss = 0;
  double critic_spread = 0, critic_spread_after = 0;
  double validation_cost = NAN, base_cost = NAN, online_cost = NAN;
  std::uint64_t gossip_bytes = 0;  // so far
  double seconds = 0;
};

class MarlTrainer {
 public:
  // Throws std::invalid_argument naming a bad setting or rows too few.
  MarlTrainer(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> train, MarlTrainSettings settings);
  ~MarlTrainer();

  // Continues the run saved in settings.out. Throws std::runtime_error naming the file.
  void resume();
  // Runs the remaining iterations, validating every validate_every and at
  // the end, saving after each validation.
  void run(const std::function<void(const MarlCurvePoint&, std::size_t iterations)>& progress);
  // The same iterations with one OS process per agent (agent_processes.h),
  // each with its own copy of the game, its checkpoints in DIR/agents
  // (options.checkpoint_dir is set to it); then the team, gathered from
  // them, is validated once and saved as a stacked run's would be (the
  // stacked run and this one give the same agents for the same seed).
  AgentProcessesRun run_processes(AgentProcessOptions options);

  const std::vector<MarlCurvePoint>& curve() const { return curve_; }
  std::size_t iteration() const { return iteration_; }
  std::size_t validation_slots() const { return validation_->slots(); }
  const SiteLayout& layout() const { return *layout_; }
  const MixingMatrix& graph() const { return graph_; }
  const PlacementGame& game() const { return *game_; }
  double cost_unit() const { return game_->settings().cost_unit; }
  double base_cost() const { return base_cost_; }
  double online_cost() const;  // NaN in a build without the online policy (no Ipopt)
  double env_slots_per_second() const;
  double iterations_per_second() const;

 private:
  double validation_cost(const std::shared_ptr<const DecentralizedActorCritic>& agents) const;
  void start_curve();  // validates the untrained agents: the curve's first point, the first best
  void save() const;
  void save_best() const;  // the agents just saved are the best validation so far

  std::shared_ptr<const SystemModel> model_;
  MarlTrainSettings settings_;
  std::shared_ptr<const ArrivalSchedule> all_, learn_rows_, validation_;
  MixingMatrix graph_;
  std::shared_ptr<const SiteLayout> layout_;
  EnvironmentSettings environment_;
  std::unique_ptr<PlacementGame> game_;
  std::shared_ptr<DecentralizedActorCritic> agents_;
  std::vector<MarlCurvePoint> curve_;
  std::size_t iteration_ = 0;
  double base_cost_ = 0;
  mutable double online_cost_ = -1;
  double best_validation_ = -1;
  bool processes_ = false;  // the agents were trained as one process each
  double rollout_seconds_ = 0, update_seconds_ = 0, seconds_ = 0;
  std::uint64_t env_slots_ = 0;
};

}  // namespace nfv
