#include "drl_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "action_decoder.h"
#include "drl_layout.h"
#include "episode.h"
#include "featurizer.h"
#include "rate_trace.h"
#include "transition.h"
#include "vector_environment.h"

namespace nfv {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One independent stream per (seed, purpose, counter): a resumed run draws what an uninterrupted one would.
std::uint64_t stream(std::uint64_t seed, std::uint64_t purpose, std::uint64_t counter) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL ^ (purpose << 56) ^ counter * 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 29);
}

enum Purpose : std::uint64_t { kEpisode = 1, kExplore = 2, kSample = 3 };

constexpr std::size_t kCurveFields = 9;

}  // namespace

struct DrlTrainer::State {
  State(const std::shared_ptr<const SystemModel>& model, const ArrivalSchedule& rows, const DrlTrainSettings& s)
      : featurizer(model, rows.mapping, s.horizon), layout(model, featurizer, s.scale),
        decoder(model, [&] {
          DecoderSettings d;
          d.max_instances_per_pool = s.max_instances_per_pool;
          return d;
        }()),
        residual(layout, decoder), transitions(layout.chain_begin(), layout.pool_features(), layout.global_features()),
        replay(transitions.floats(), s.replay, layout.chains()) {}

  Featurizer featurizer;
  DrlLayout layout;
  ActionDecoder decoder;
  ResidualPlanner residual;
  TransitionLayout transitions;
  ReplayBuffer replay;
  std::unique_ptr<VectorEnvironment> envs;
  std::vector<std::unique_ptr<Policy>> teachers;
  // Per environment, concatenated: the current and next states' rows.
  std::vector<float> all_rows, rows, global, next_rows, next_global;
  std::vector<float> actions, instances, logits, reward, record;
  std::vector<float> noise;  // exploration noise per action, carried from slot to slot
  std::vector<Plan> plans;
  std::vector<Plan> base_plans;  // per environment, the teacher's plan the actions are a residual on
  std::vector<double> episode_cost;
  std::vector<double> recent_cost;  // mean cost per slot of finished episodes
  FeatureStatistics pool_stats, global_stats;
  ReplaySample sample;
  TransitionBatch batch;
  double critic_loss = 0, actor_loss = 0, mean_q = 0;  // running means over the last updates
  bool have_losses = false;
};

DrlTrainer::DrlTrainer(std::shared_ptr<const SystemModel> model, std::shared_ptr<const ArrivalSchedule> train,
                       DrlTrainSettings settings)
    : model_(std::move(model)), settings_(std::move(settings)), all_(std::move(train)) {
  const DrlTrainSettings& s = settings_;
  if (!model_ || !all_) throw std::invalid_argument("DRL training: no system or no training rows");
  if (s.envs == 0 || s.batch == 0 || s.horizon == 0)
    throw std::invalid_argument("DRL training: --envs, --batch and --horizon must be > 0");
  if (s.imitation && s.scale.base == ActionBase::online)
    throw std::invalid_argument("DRL training: --imitation with --base online (the zero action is online's plan already)");
  const std::size_t rows = all_->slots();
  const std::size_t day = daily_period_slots(all_->mapping.step_seconds);
  const std::size_t validation = s.validation_slots > 0 ? s.validation_slots : std::min(2 * day, rows / 4);
  episode_slots_ = s.episode_slots > 0 ? s.episode_slots : day;
  if (episode_slots_ < 2)
    throw std::invalid_argument("DRL training: --episode must be at least 2 slots (the first runs the starting plan)");
  if (validation == 0 || validation + episode_slots_ + 1 > rows)
    throw std::invalid_argument("DRL training: " + std::to_string(rows) + " training rows cannot hold " +
                                std::to_string(validation) + " validation slots and an episode of " +
                                std::to_string(episode_slots_) + " (need at least " +
                                std::to_string(validation + episode_slots_ + 1) + ")");
  learn_rows_ = std::make_shared<const ArrivalSchedule>(slot_range(*all_, 0, rows - validation));
  validation_ = std::make_shared<const ArrivalSchedule>(slot_range(*all_, rows - validation, rows));

  // Each chain's rewards in units of its own size (1 + its mean rate in
  // instances' worth): one critic then fits chains a thousand times apart,
  // and a chain's best actions do not change, its reward being only scaled.
  chain_scale_.assign(model_->chains(), 1.0);
  for (std::size_t c = 0; c < model_->chains(); ++c) {
    double mean = 0;
    for (std::size_t t = 0; t < learn_rows_->slots(); ++t) mean += learn_rows_->slot(t)[c];
    mean /= static_cast<double>(learn_rows_->slots());
    const std::size_t first_hop = model_->pool_index().hop_number(c, 0);
    chain_scale_[c] = 1.0 + mean / model_->service_rate_pps(first_hop);
  }
  serving_ = make_serving();
  state_ = std::make_unique<State>(model_, *learn_rows_, s);
  State& st = *state_;
  agent_ = std::make_shared<Td3Agent>(agent_shape(st.layout), s.agent, s.seed);
  st.pool_stats = FeatureStatistics(st.layout.pool_features());
  st.global_stats = FeatureStatistics(st.layout.global_features());

  EnvironmentSettings env;
  env.forecast = s.forecast;
  env.horizon = s.horizon;
  env.arrival_noise = s.arrival_noise;
  const ScalerEnvironment prototype(model_, learn_rows_, place_chains(model_->topology(), 1, Placement::ingress), env);
  st.envs = std::make_unique<VectorEnvironment>(copies(s.envs, prototype), s.threads);
  for (std::size_t k = 0; k < s.envs; ++k)
    st.teachers.push_back(make_policy("online", s.teacher, PolicyContext(model_, learn_rows_->mapping)));

  const std::size_t K = s.envs, P = st.featurizer.pools(), F = st.layout.pool_features(), G = st.layout.global_features();
  st.all_rows.resize(K * P * F);
  st.rows.resize(K * st.layout.pools() * F);
  st.next_rows.resize(st.rows.size());
  st.global.resize(K * G);
  st.next_global.resize(K * G);
  st.actions.resize(K * st.layout.actions());
  // Noise per action; exploring per chain uses the first 2C of each environment's A (2C <= A: every chain has a pool).
  st.noise.assign(K * st.layout.actions(), 0.0F);
  st.instances.resize(K * P);
  st.logits.resize(K * P);
  st.reward.resize(K * model_->chains());
  st.record.resize(st.transitions.floats());
  st.plans.resize(K);
  st.base_plans.resize(K);
  st.episode_cost.assign(K, 0.0);
}

DrlTrainer::~DrlTrainer() = default;

DrlServing DrlTrainer::make_serving() const {
  DrlServing serving;
  serving.horizon = settings_.horizon;
  serving.scale = settings_.scale;
  serving.max_instances_per_pool = settings_.max_instances_per_pool;
  // Rewards are in instance-slots at the mean operating price.
  double price = 0;
  for (const Site& site : model_->topology().sites) price += site.operating_price;
  serving.reward_scale = price > 0 ? price / static_cast<double>(model_->sites()) : 1.0;
  serving.forecast = forecast_spec_text(settings_.forecast);
  if (settings_.scale.base == ActionBase::online) serving.base_params = settings_.teacher;
  return serving;
}

void DrlTrainer::featurize_all() {
  State& st = *state_;
  const std::size_t P = st.featurizer.pools(), F = st.layout.pool_features(), G = st.layout.global_features();
  const std::size_t rows = st.layout.pools() * F;
  st.envs->for_each([&](std::size_t k) {
    const ScalerEnvironment& env = (*st.envs)[k];
    const std::span<float> all(st.all_rows.data() + k * P * F, P * F);
    st.featurizer.featurize(env.observation(), env.forecast(), all, std::span(st.next_global).subspan(k * G, G));
    st.layout.gather(all, std::span(st.next_rows).subspan(k * rows, rows));
  });
}

void DrlTrainer::start_episodes() {
  State& st = *state_;
  std::vector<EpisodeSpec> episodes;
  for (std::size_t k = 0; k < settings_.envs; ++k)
    episodes.push_back({stream(settings_.seed, kEpisode, episodes_++), std::nullopt, episode_slots_});
  st.envs->reset(episodes);
  // The first slot runs the starting plan, as the slot loop's first slot
  // does when serving: the agent's first decision then sees what a served
  // one does, a measured slot (often with drops, the starting plan being
  // small), and learns to recover from it.
  std::vector<Plan> starting;
  for (std::size_t k = 0; k < settings_.envs; ++k) starting.push_back((*st.envs)[k].initial_plan());
  st.envs->step(starting);
  for (auto& teacher : st.teachers) teacher->reset();
  std::fill(st.episode_cost.begin(), st.episode_cost.end(), 0.0);
  featurize_all();
  st.rows.swap(st.next_rows);
  st.global.swap(st.next_global);
}

void DrlTrainer::collect(bool teacher, bool explore) {
  State& st = *state_;
  const std::size_t K = settings_.envs, A = st.layout.actions(), P = st.featurizer.pools(), C = model_->chains();
  const std::size_t rows = st.layout.pools() * st.layout.pool_features(), G = st.layout.global_features();
  const Clock::time_point began = Clock::now();
  if (teacher) {
    // Serially: each teacher is its own online policy, but the solver's thread safety is not promised.
    for (std::size_t k = 0; k < K; ++k) {
      const ScalerEnvironment& env = (*st.envs)[k];
      const Plan plan = st.teachers[k]->decide(env.observation(), env.forecast());
      st.layout.from_plan(plan, env.observation(), env.forecast(), std::span(st.actions).subspan(k * A, A));
    }
  } else {
    agent_->act(st.rows, st.global, K, st.actions);
    if (explore && settings_.explore_noise > 0) {
      // Ornstein-Uhlenbeck noise, slowly varying: a pool explores other
      // levels for several slots in a row instead of flickering, which
      // would mostly buy deployments.
      std::mt19937_64 rng(stream(settings_.seed, kExplore, step_));
      const double theta = settings_.explore_theta;
      std::normal_distribution<float> normal(0.0F, static_cast<float>(settings_.explore_noise * std::sqrt(theta * (2 - theta))));
      for (float& n : st.noise) n = static_cast<float>((1 - theta) * n) + normal(rng);
      // One noise per chain and output, shared by its pools: a chain's hops
      // move together, else nearly every explored action starves one hop
      // (its bottleneck) and the critic sees drops whatever the others do.
      const std::vector<std::int64_t>& chain = st.layout.chain_of_pool();
      const std::size_t pools = st.layout.pools(), C2 = 2 * model_->chains();
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t p = 0; p < pools; ++p)
          for (std::size_t j = 0; j < 2; ++j) {
            const std::size_t from = settings_.explore_per_chain ? k * C2 + 2 * static_cast<std::size_t>(chain[p]) + j
                                                                 : k * A + 2 * p + j;
            float& a = st.actions[k * A + 2 * p + j];
            a = std::clamp(a + st.noise[from], -1.0F, 1.0F);
          }
    }
  }
  const bool residual = settings_.scale.base == ActionBase::online;
  if (residual)  // serially, as above
    for (std::size_t k = 0; k < K; ++k)
      st.base_plans[k] = st.teachers[k]->decide((*st.envs)[k].observation(), (*st.envs)[k].forecast());
  st.envs->for_each([&](std::size_t k) {
    const ScalerEnvironment& env = (*st.envs)[k];
    if (residual) {
      st.plans[k] = st.residual.plan(std::span(st.actions).subspan(k * A, A), st.base_plans[k], &env.observation().plan);
      return;
    }
    const std::span<float> instances(st.instances.data() + k * P, P), logits(st.logits.data() + k * P, P);
    st.layout.to_decoder(std::span(st.actions).subspan(k * A, A), env.observation(), env.forecast(), instances, logits);
    st.plans[k] = st.decoder.decode(instances, st.layout.decoder_logits(logits), &env.observation().plan);
  });
  const std::vector<StepResult> results = st.envs->step(st.plans);
  const double scale = serving_.reward_scale;
  for (std::size_t k = 0; k < K; ++k) {
    const std::vector<CostBreakdown>& chain_cost = (*st.envs)[k].last_slot().chain_cost;
    for (std::size_t c = 0; c < C; ++c)
      st.reward[k * C + c] = static_cast<float>(-chain_cost[c].total() / (scale * chain_scale_[c]));
    st.episode_cost[k] += results[k].cost.total();
  }
  featurize_all();
  for (std::size_t k = 0; k < K; ++k) {
    st.transitions.write(st.record, std::span(st.rows).subspan(k * rows, rows), std::span(st.global).subspan(k * G, G),
                         std::span(st.actions).subspan(k * A, A), std::span(st.reward).subspan(k * C, C),
                         std::span(st.next_rows).subspan(k * rows, rows), std::span(st.next_global).subspan(k * G, G));
    st.replay.add(st.record);
  }
  if (agent_->pool_statistics().rows() == 0) {
    st.pool_stats.add(st.rows);
    st.global_stats.add(st.global);
  } else {
    agent_->widen_ranges(st.rows, st.global);
  }
  env_steps_ += K;
  env_seconds_ += seconds_since(began);
  ++step_;
  if (results[0].done) {
    double mean = 0;
    // Per slot the agent decided: the first ran the starting plan.
    for (double cost : st.episode_cost) mean += cost / static_cast<double>(episode_slots_ - 1);
    st.recent_cost.push_back(mean / static_cast<double>(K));
    if (st.recent_cost.size() > 8) st.recent_cost.erase(st.recent_cost.begin());
    start_episodes();
  } else {
    st.rows.swap(st.next_rows);
    st.global.swap(st.next_global);
  }
}

void DrlTrainer::learn() {
  State& st = *state_;
  const Clock::time_point began = Clock::now();
  const double progress = settings_.steps > 0 ? std::min(1.0, static_cast<double>(step_) / settings_.steps) : 1.0;
  const double beta = settings_.beta_start + (1.0 - settings_.beta_start) * progress;
  for (std::size_t u = 0; u < settings_.updates_per_step; ++u) {
    std::mt19937_64 rng(stream(settings_.seed, kSample, agent_->updates()));
    st.replay.sample(settings_.batch, beta, rng, st.sample);
    st.transitions.gather(st.replay, st.sample, st.batch);
    if (settings_.size_weighted_actor) {
      st.batch.actor_weight.resize(st.batch.samples);
      for (std::size_t b = 0; b < st.batch.samples; ++b)
        st.batch.actor_weight[b] = static_cast<float>(chain_scale_[st.batch.chain[b]]);
    }
    const UpdateStats stats = agent_->update(st.batch);
    st.replay.update_priorities(st.sample.index, stats.td_error);
    constexpr double kKeep = 0.98;
    st.critic_loss = st.have_losses ? kKeep * st.critic_loss + (1 - kKeep) * stats.critic_loss : stats.critic_loss;
    st.mean_q = st.have_losses ? kKeep * st.mean_q + (1 - kKeep) * stats.mean_q : stats.mean_q;
    if (stats.actor_updated)
      st.actor_loss = st.have_losses ? kKeep * st.actor_loss + (1 - kKeep) * stats.actor_loss : stats.actor_loss;
    st.have_losses = true;
    ++updates_;
  }
  update_seconds_ += seconds_since(began);
}

double DrlTrainer::validation_cost() {
  GuardSettings none;
  none.policy = "none";
  auto policy = std::make_unique<DrlPolicy>(PolicyContext(model_, validation_->mapping), agent_, serving(), none);
  const EpisodeSummary summary =
      simulate(model_, validation_, std::move(policy), place_chains(model_->topology(), 1, Placement::ingress),
               settings_.forecast, settings_.horizon, {}, learn_rows_,
               default_warm_up_slots(all_->mapping.step_seconds));
  return summary.cost.total();
}

double DrlTrainer::online_validation_cost() {
  if (online_cost_ < 0) {
    const EpisodeSummary summary = simulate(
        model_, validation_, make_policy("online", settings_.teacher, PolicyContext(model_, validation_->mapping)),
        place_chains(model_->topology(), 1, Placement::ingress), settings_.forecast, settings_.horizon, {}, learn_rows_,
        default_warm_up_slots(all_->mapping.step_seconds));
    online_cost_ = summary.cost.total();
  }
  return online_cost_;
}

DrlCurvePoint DrlTrainer::validate_point() {
  const State& st = *state_;
  DrlCurvePoint point;
  point.step = step_;
  point.updates = static_cast<double>(agent_->updates());
  point.train_cost = st.recent_cost.empty()
                         ? NAN
                         : std::accumulate(st.recent_cost.begin(), st.recent_cost.end(), 0.0) / st.recent_cost.size();
  point.critic_loss = st.critic_loss;
  point.actor_loss = st.actor_loss;
  point.mean_q = st.mean_q;
  point.validation_cost = validation_cost();
  point.online_cost = online_validation_cost();
  return point;
}

ReplaySummary DrlTrainer::replay_summary() const { return state_->replay.summary(); }

double DrlTrainer::env_steps_per_second() const { return env_seconds_ > 0 ? env_steps_ / env_seconds_ : 0.0; }
double DrlTrainer::updates_per_second() const { return update_seconds_ > 0 ? updates_ / update_seconds_ : 0.0; }

void DrlTrainer::run(const std::function<void(const DrlProgress&)>& progress) {
  const DrlTrainSettings& s = settings_;
  State& st = *state_;
  const Clock::time_point began = Clock::now();
  auto report = [&](const std::string& phase) {
    if (!progress) return;
    DrlProgress p;
    p.phase = phase;
    p.step = step_;
    p.steps = s.steps;
    p.train_cost = st.recent_cost.empty() ? NAN : st.recent_cost.back();
    p.critic_loss = st.critic_loss;
    p.imitation_loss = imitation_loss_;
    p.validation_cost = curve_.empty() ? NAN : curve_.back().validation_cost;
    p.online_cost = curve_.empty() ? NAN : curve_.back().online_cost;
    progress(p);
  };
  auto record_point = [&] {
    DrlCurvePoint point = validate_point();
    point.seconds = seconds_before_ + seconds_since(began);
    curve_.push_back(point);
    if (!s.out.empty() && (best_validation_ < 0 || point.validation_cost < best_validation_)) {
      best_validation_ = point.validation_cost;
      save(s.out + ".best");
    }
  };

  start_episodes();
  const bool resumed = agent_->pool_statistics().rows() > 0;
  // Fill the replay buffer: the teacher (or random actions) on a fresh run, the restored actor on a resumed one.
  // A resumed run's refill is extra: its slots do not count towards --steps.
  const std::size_t resumed_at = step_;
  for (std::size_t i = 0; i < s.start_steps && (resumed || step_ < s.steps); ++i) {
    collect(!resumed && s.imitation, /*explore=*/true);
    report("start");
  }
  if (resumed) step_ = resumed_at;
  // Critic-only updates, sample streams from `first` on: the critics learn the actor's values before it moves.
  const auto fit_critics = [&](std::size_t updates, std::uint64_t first, const std::string& phase) {
    for (std::size_t u = 0; u < updates; ++u) {
      std::mt19937_64 rng(stream(s.seed, kSample, first + u));
      st.replay.sample(s.batch, s.beta_start, rng, st.sample);
      st.transitions.gather(st.replay, st.sample, st.batch);
      const UpdateStats stats = agent_->update(st.batch, /*actor=*/false);
      st.replay.update_priorities(st.sample.index, stats.td_error);
      st.critic_loss = stats.critic_loss;
      if (u % 50 == 0) report(phase);
    }
  };
  if (!resumed) {
    agent_->set_statistics(st.pool_stats, st.global_stats);
    if (s.imitation) {
      // Clone the teacher, then fit the critics to the cloned actor before it learns from them.
      for (std::size_t u = 0; u < s.imitation_updates; ++u) {
        std::mt19937_64 rng(stream(s.seed, kSample, u));
        st.replay.sample(s.batch, 1.0, rng, st.sample);
        st.transitions.gather(st.replay, st.sample, st.batch);
        imitation_loss_ = agent_->imitate(st.batch);
        if (u % 50 == 0) report("imitate");
      }
      fit_critics(s.imitation_updates, s.imitation_updates, "imitate");
    }
    fit_critics(s.critic_warmup, std::uint64_t{1} << 30, "critic");
  }
  // Where learning starts from: the untrained (or cloned, restored, fine-tuned) actor.
  if (curve_.empty() || curve_.back().step != step_) record_point();
  report("learn");
  while (step_ < s.steps) {
    collect(false, true);
    learn();
    const bool validate_now = (s.validate_every > 0 && step_ % s.validate_every == 0) || step_ == s.steps;
    if (validate_now) record_point();
    if (!s.out.empty() && s.checkpoint_every > 0 && step_ % s.checkpoint_every == 0 && step_ < s.steps) {
      seconds_before_ += seconds_since(began);
      save(s.out);
      seconds_before_ -= seconds_since(began);
    }
    report("learn");
  }
  if (curve_.empty() || curve_.back().step != step_) record_point();
  seconds_before_ += seconds_since(began);
  if (!s.out.empty()) save(s.out);
}

void DrlTrainer::save(const std::string& path) const {
  CheckpointExtras extras;
  const DrlServing serving = this->serving();
  extras.text = {{"forecast", serving.forecast}, {"config", settings_.config_text}, {"replay", replay_summary().describe()}};
  if (serving.scale.base == ActionBase::online) extras.text.emplace_back("base_params", base_params_text(serving.base_params));
  const ReplaySummary replay = replay_summary();
  std::vector<double> curve;
  for (const DrlCurvePoint& p : curve_)
    curve.insert(curve.end(), {static_cast<double>(p.step), p.updates, p.train_cost, p.critic_loss, p.actor_loss,
                               p.mean_q, p.validation_cost, p.online_cost, p.seconds});
  extras.numbers = {
      {"serving", serving_numbers(serving)},
      {"counters", {static_cast<double>(step_), static_cast<double>(episodes_), seconds_before_,
                    static_cast<double>(best_validation_), online_cost_}},
      {"curve", curve},
      {"replay_summary", {static_cast<double>(replay.size), static_cast<double>(replay.capacity),
                          static_cast<double>(replay.added), replay.mean_priority, replay.max_priority}},
  };
  agent_->save(path, extras);
}

void DrlTrainer::resume(const std::string& checkpoint) {
  CheckpointExtras wanted;
  wanted.numbers = {{"serving", {}}, {"counters", {}}, {"curve", {}}};
  wanted.text = {{"forecast", {}}};
  // A residual run goes on only on the same online policy beneath it.
  const bool residual = settings_.scale.base == ActionBase::online;
  if (residual) wanted.text.emplace_back("base_params", std::string{});
  auto agent = Td3Agent::load(checkpoint, agent_shape(state_->layout), wanted, /*optimizer=*/true, settings_.agent.device);
  if (residual && wanted.text[1].second != base_params_text(serving().base_params))
    throw std::runtime_error(checkpoint + ": its residual sits on an online policy with other parameters than --teacher "
                             "gives: give the same");
  // Read back first: a checkpoint made before the action base existed holds one number less.
  if (serving_numbers(serving_from_numbers(wanted.numbers[0].second, wanted.text[0].second)) != serving_numbers(serving()) ||
      wanted.text[0].second != serving().forecast)
    throw std::runtime_error(checkpoint + ": trained with another horizon, forecast or action layout than this "
                             "command line gives (--horizon, --forecast, --base, --residual-range, --headroom, --sites-per-hop, "
                             "--learn-split): "
                             "give the same");
  const std::vector<double>& counters = wanted.numbers[1].second;
  const std::vector<double>& curve = wanted.numbers[2].second;
  if (counters.size() != 5 || curve.size() % kCurveFields != 0)
    throw std::runtime_error(checkpoint + ": counters or curve of the wrong size");
  step_ = static_cast<std::size_t>(counters[0]);
  episodes_ = static_cast<std::uint64_t>(counters[1]);
  seconds_before_ = counters[2];
  best_validation_ = counters[3];
  online_cost_ = counters[4];
  curve_.clear();
  for (std::size_t i = 0; i < curve.size(); i += kCurveFields)
    curve_.push_back({static_cast<std::size_t>(curve[i]), curve[i + 1], curve[i + 2], curve[i + 3], curve[i + 4],
                      curve[i + 5], curve[i + 6], curve[i + 7], curve[i + 8]});
  agent_ = std::move(agent);
}

void DrlTrainer::fine_tune(const std::string& checkpoint) {
  if (settings_.imitation) throw std::invalid_argument("--fine-tune: not with --imitation (the actor starts trained)");
  // The actions mean what they meant in training: the same base.
  CheckpointExtras trained;
  trained.numbers = {{"serving", {}}};
  trained.text = {{"forecast", {}}};
  agent_ = Td3Agent::load(checkpoint, agent_shape(state_->layout), trained, /*optimizer=*/true, settings_.agent.device);
  if (serving_from_numbers(trained.numbers[0].second, trained.text[0].second).scale.base != settings_.scale.base)
    throw std::invalid_argument("--fine-tune: " + checkpoint + " was trained with another --base: give the same");
}

}  // namespace nfv
