// Trains the DRL policy's TD3 agent on the simulator (docs/drl.md):
//   1. start: K environments run the untrained actor with exploration noise
//      (its zero output is the layout's base plan) or, with imitation on,
//      the teacher (the online policy, whose plans the agent's actions can
//      express) for `start_steps` slots; the input statistics are taken from
//      these states and frozen; with imitation, the actor first learns to
//      copy the teacher (behaviour cloning); the critics then fit the
//      start slots alone for `critic_warmup` updates;
//   2. learn: the actor acts with Ornstein-Uhlenbeck exploration noise, each slot's
//      transitions (per-chain rewards) go to the replay buffer, and every
//      slot makes `updates_per_step` TD3 updates on prioritized samples.
// Episodes start at random slots of the training rows; the last
// `validation_slots` rows are held back, and every `validate_every` slots
// the actor (without noise or guard) and the online policy run over them
// through the same slot loop as nfv-sim: the training curve compares the two.
// Deterministic for a seed on the CPU; resume() continues a saved run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arrival_schedule.h"
#include "drl_policy.h"
#include "forecaster.h"
#include "replay_buffer.h"
#include "system_model.h"
#include "td3_agent.h"

namespace nfv {

struct DrlTrainSettings {
  std::size_t envs = 8;
  std::size_t steps = 3000;           // slots each environment runs (one update round per slot)
  std::size_t episode_slots = 0;      // 0: one day of trace steps; the first runs the starting plan
  std::size_t validation_slots = 0;   // 0: two days of trace steps, at most a quarter of the rows
  std::size_t validate_every = 250;   // slots; 0: only at the end
  std::size_t horizon = 3;            // forecast steps in the features
  ForecastSpec forecast{"ewma", {{"alpha", "0.5"}}};
  double arrival_noise = 0.1;         // log-normal noise on the training rates
  std::size_t batch = 128;
  std::size_t updates_per_step = 4;
  std::size_t start_steps = 100;      // slots that fill the replay buffer before learning
  bool imitation = false;             // start from the online teacher and clone it
  std::size_t imitation_updates = 1000;
  std::size_t critic_warmup = 500;    // critic-only updates on the start slots before the actor learns
  bool size_weighted_actor = true;    // the actor weighs each chain's value by its size (TransitionBatch::actor_weight)
  PolicyParams teacher;               // the online policy's parameters
  double explore_noise = 0.2;         // stationary std of the exploration noise on the actions
  bool explore_per_chain = true;      // one noise per chain shared by its pools (else one per pool)
  double explore_theta = 0.15;        // its pull back to 0 per slot (Ornstein-Uhlenbeck; 1 = independent per slot)
  double beta_start = 0.4;            // importance-weight exponent, annealed to 1 over the run
  ReplaySettings replay;
  AgentSettings agent;
  ActionScale scale;
  std::uint32_t max_instances_per_pool = 64;
  std::uint64_t seed = 1;
  std::size_t threads = 1;            // environment helper threads besides the caller
  std::string out;                    // checkpoint path (empty: none); the best validation also goes to out + ".best"
  std::size_t checkpoint_every = 500; // slots
  std::string config_text;            // the command line, stored in the checkpoint
};

struct DrlCurvePoint {
  std::size_t step = 0;               // slots per environment so far
  double updates = 0;
  double train_cost = 0;              // mean cost per slot of the last episodes, per environment
  double critic_loss = 0, actor_loss = 0, mean_q = 0;
  double validation_cost = 0;         // the agent's, over the validation slots (NaN: not validated here)
  double online_cost = 0;             // online's, over the same slots
  double seconds = 0;                 // since the run began (resumes add up)
};

struct DrlProgress {
  std::string phase;                  // "start", "imitate", "learn"
  std::size_t step = 0, steps = 0;
  double train_cost = 0, critic_loss = 0;
  double imitation_loss = 0;          // the last behaviour-cloning loss (NaN without imitation)
  double validation_cost = 0, online_cost = 0;  // NaN until validated
};

class DrlTrainer {
 public:
  // `train`: the training rows (the last validation_slots are held back).
  DrlTrainer(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> train,
             DrlTrainSettings settings);
  ~DrlTrainer();
  // Takes up a saved run: networks, optimisers, normalisation, counters and
  // curve. The replay buffer is not saved (only its summary): it refills
  // from the restored actor for start_steps slots before learning goes on.
  void resume(const std::string& checkpoint);
  // Starts from a checkpoint's networks, optimisers and normalisation,
  // trained on this system or another (a new run: counters and curve from 0).
  void fine_tune(const std::string& checkpoint);
  // Trains up to settings.steps slots (from where a resumed run was).
  void run(const std::function<void(const DrlProgress&)>& progress = {});

  // Over the validation slots, through the slot loop: the agent alone, and online.
  double validation_cost();
  double online_validation_cost();

  const std::vector<DrlCurvePoint>& curve() const { return curve_; }
  const Td3Agent& agent() const { return *agent_; }
  std::shared_ptr<const Td3Agent> shared_agent() const { return agent_; }
  const DrlServing& serving() const { return serving_; }
  const DrlTrainSettings& settings() const { return settings_; }
  std::size_t step() const { return step_; }
  ReplaySummary replay_summary() const;
  std::size_t validation_slots() const { return validation_->slots(); }
  std::size_t episode_slots() const { return episode_slots_; }
  double env_steps_per_second() const;
  double updates_per_second() const;
  void save(const std::string& path) const;

 private:
  struct State;
  void start_episodes();
  void featurize_all();
  void collect(bool teacher, bool explore);
  void learn();
  DrlCurvePoint validate_point();
  DrlServing make_serving() const;

  std::shared_ptr<const SystemModel> model_;
  DrlTrainSettings settings_;
  std::shared_ptr<const ArrivalSchedule> all_, learn_rows_, validation_;
  std::size_t episode_slots_ = 0;
  DrlServing serving_;                // what a checkpoint of this run serves with
  std::vector<double> chain_scale_;   // per chain: its reward unit (1 + its mean rate in instances' worth)
  std::shared_ptr<Td3Agent> agent_;
  std::unique_ptr<State> state_;
  std::vector<DrlCurvePoint> curve_;
  std::size_t step_ = 0;              // slots per environment run so far
  std::uint64_t episodes_ = 0;
  double seconds_before_ = 0;         // of the run before a resume
  double online_cost_ = -1;           // cached
  double imitation_loss_ = NAN;
  double best_validation_ = -1;
  double env_seconds_ = 0, update_seconds_ = 0;
  std::uint64_t env_steps_ = 0, updates_ = 0;
};

}  // namespace nfv
