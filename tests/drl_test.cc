// The DRL policy's parts: the sum tree and the replay buffer (capacity,
// uniform and prioritized sampling, importance weights), the layout's
// actions (a teacher's plan survives the round trip; the residual mode's
// zero action is online's plan), the networks on
// topologies of different sizes, checkpoints (bit-identical round trip,
// another topology), and determinism per seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "drl_layout.h"
#include "drl_policy.h"
#include "drl_trainer.h"
#include "episode.h"
#include "environment.h"
#include "featurizer.h"
#include "replay_buffer.h"
#include "residual_plan.h"
#include "scaler_cases.h"
#include "sum_tree.h"
#include "td3_agent.h"
#include "transition.h"

namespace nfv {
namespace {

TEST(SumTree, FindsTheLeafAtAPrefixSum) {
  SumTree tree(5);
  const double p[] = {1, 0, 3, 2, 4};
  for (std::size_t i = 0; i < 5; ++i) tree.set(i, p[i]);
  EXPECT_DOUBLE_EQ(tree.total(), 10);
  EXPECT_DOUBLE_EQ(tree.max(), 4);
  EXPECT_EQ(tree.find(0.5), 0U);
  EXPECT_EQ(tree.find(1.0), 2U);  // leaf 1 has priority 0: never found
  EXPECT_EQ(tree.find(3.99), 2U);
  EXPECT_EQ(tree.find(4.0), 3U);
  EXPECT_EQ(tree.find(9.99), 4U);
  EXPECT_EQ(tree.find(100), 4U);
  EXPECT_THROW(tree.set(5, 1), std::invalid_argument);
  EXPECT_THROW(tree.set(0, -1), std::invalid_argument);
  EXPECT_THROW(tree.set(0, NAN), std::invalid_argument);
}

std::vector<float> record_of(float value, std::size_t floats) { return std::vector<float>(floats, value); }

TEST(ReplayBuffer, KeepsTheNewestRecordsUpToItsCapacity) {
  ReplaySettings settings;
  settings.capacity = 4;
  ReplayBuffer buffer(3, settings);
  for (int i = 0; i < 6; ++i) buffer.add(record_of(static_cast<float>(i), 3));
  EXPECT_EQ(buffer.size(), 4U);
  // Slots 0 and 1 were overwritten by records 4 and 5.
  EXPECT_EQ(buffer.record(0)[0], 4.0F);
  EXPECT_EQ(buffer.record(1)[2], 5.0F);
  EXPECT_EQ(buffer.record(3)[0], 3.0F);
  EXPECT_EQ(buffer.summary().added, 6U);
  EXPECT_THROW(buffer.add(record_of(0, 2)), std::invalid_argument);
  EXPECT_THROW(buffer.record(4), std::out_of_range);
}

TEST(ReplayBuffer, UniformSamplingDrawsEveryItemAlikeWithUnitWeights) {
  ReplaySettings settings;
  settings.capacity = 8;
  settings.prioritized = false;
  ReplayBuffer buffer(2, settings, /*items_per_record=*/2);
  for (int i = 0; i < 5; ++i) buffer.add(record_of(static_cast<float>(i), 2));
  std::mt19937_64 random(7);
  ReplaySample sample;
  std::map<std::size_t, int> seen;
  for (int round = 0; round < 1000; ++round) {
    buffer.sample(10, 0.4, random, sample);
    for (std::size_t i : sample.index) ++seen[i];
    for (float w : sample.weight) ASSERT_EQ(w, 1.0F);
  }
  ASSERT_EQ(seen.size(), 10U);  // 5 records x 2 items, nothing beyond
  for (const auto& [item, count] : seen) {
    EXPECT_LT(item, 10U);
    EXPECT_NEAR(count, 1000, 150) << "item " << item;
  }
}

TEST(ReplayBuffer, PrioritizedSamplingFollowsPrioritiesAndWeightsCorrectForThem) {
  ReplaySettings settings;
  settings.capacity = 4;
  settings.alpha = 1.0;
  settings.epsilon = 1e-6;
  ReplayBuffer buffer(1, settings);
  for (int i = 0; i < 4; ++i) buffer.add(record_of(0, 1));
  // A new record starts at the highest priority so far (1 for the first ones).
  EXPECT_DOUBLE_EQ(buffer.priority(3), 1.0);
  const std::vector<std::size_t> index{0, 1, 2, 3};
  const std::vector<float> error{1, 2, 3, 4};
  buffer.update_priorities(index, error);
  std::mt19937_64 random(3);
  ReplaySample sample;
  std::vector<int> count(4, 0);
  const int draws = 20000;
  for (int round = 0; round < draws / 20; ++round) {
    buffer.sample(20, 0.5, random, sample);
    for (std::size_t i : sample.index) ++count[i];
  }
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(count[i] / double(draws), (i + 1) / 10.0, 0.015) << "item " << i;
  // Weights: relative to the largest in the batch.
  buffer.sample(200, 0.5, random, sample);
  float top = 0;
  for (float w : sample.weight) top = std::max(top, w);
  EXPECT_FLOAT_EQ(top, 1.0F);
  std::map<std::size_t, float> weight_of;
  for (std::size_t b = 0; b < sample.index.size(); ++b) weight_of[sample.index[b]] = sample.weight[b];
  ASSERT_EQ(weight_of.size(), 4U);
  for (const auto& [i, w] : weight_of)
    EXPECT_NEAR(w, std::pow((i + 1) / 1.0, -0.5), 1e-5) << "item " << i;  // (p_i / p_min)^-beta
  // The next record takes the highest priority seen so far.
  buffer.add(record_of(0, 1));
  EXPECT_NEAR(buffer.priority(0), 4.0, 1e-5);
}

struct System {
  Scenario scenario;
  std::shared_ptr<const SystemModel> model;
  std::unique_ptr<Featurizer> featurizer;
  std::unique_ptr<DrlLayout> layout;
  explicit System(Scenario s, ActionScale scale = {}) : scenario(std::move(s)), model(scenario.model) {
    featurizer = std::make_unique<Featurizer>(model, scenario.test->mapping, 3);
    layout = std::make_unique<DrlLayout>(model, *featurizer, scale);
  }
};

TEST(DrlLayout, ATeachersPlanSurvivesTheRoundTripThroughActions) {
  ActionScale scale;
  scale.learn_split = true;
  scale.sites_per_hop = 0;  // every site online may pick
  System system(test::abilene_scenario(200), scale);
  const SystemModel& model = *system.model;
  auto online = make_policy("online", {}, PolicyContext(system.model, system.scenario.test->mapping));
  ScalerEnvironment env(system.model, system.scenario.test, place_chains(model.topology(), 1, Placement::ingress));
  env.reset(EpisodeSpec{0, 100, 30});
  ActionDecoder decoder(system.model, DecoderSettings{});
  const DrlLayout& layout = *system.layout;
  std::vector<float> actions(layout.actions()), instances(model.pool_index().pools()), logits(instances.size());
  std::size_t pools = 0, same = 0;
  while (!env.done()) {
    const Forecast forecast = persistence_forecast(env.observation(), 1);
    const Plan plan = online->decide(env.observation(), forecast);
    layout.from_plan(plan, env.observation(), forecast, actions);
    for (float a : actions) ASSERT_TRUE(a >= -1 && a <= 1);
    layout.to_decoder(actions, env.observation(), forecast, instances, logits);
    const Plan back = decoder.decode(instances, logits);
    std::map<std::size_t, std::int32_t> want, got;
    for (const PoolPlan& p : plan.pools)
      if (p.instances > 0) want[model.pool_index()(p.chain, p.hop, p.site)] = p.instances;
    for (const PoolPlan& p : back.pools)
      if (p.instances > 0) got[model.pool_index()(p.chain, p.hop, p.site)] = p.instances;
    for (const auto& [pool, n] : want) {
      ++pools;
      same += got.count(pool) && got[pool] == n;
    }
    env.step(plan);
  }
  // Online's plans express as actions: nearly every pool decodes to its instances
  // (a pool more than 8x its share of the forecast cannot).
  EXPECT_GT(same, pools * 99 / 100) << same << " of " << pools << " pools";
}

// Plans as (chain, hop, site) -> (instances, split), bit for bit.
std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::pair<std::int32_t, double>> pools_of(const Plan& plan) {
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::pair<std::int32_t, double>> out;
  for (const PoolPlan& p : plan.pools) out[{p.chain, p.hop, p.site}] = {p.instances, p.split};
  return out;
}

TEST(ResidualPlanner, TheZeroActionIsOnlinesPlanExactlyAndAChainsActionScalesThatChainAlone) {
  ActionScale scale;
  scale.base = ActionBase::online;
  scale.kappa = std::log(2.0);
  System system(test::abilene_scenario(200), scale);
  const SystemModel& model = *system.model;
  const DrlLayout& layout = *system.layout;
  ActionDecoder decoder(system.model, DecoderSettings{});
  const ResidualPlanner planner(layout, decoder);
  auto online = make_policy("online", {}, PolicyContext(system.model, system.scenario.test->mapping));
  ScalerEnvironment env(system.model, system.scenario.test, place_chains(model.topology(), 1, Placement::ingress));
  env.reset(EpisodeSpec{0, 200, 24});
  std::vector<float> zero(layout.actions(), 0.0F), up(layout.actions(), 0.0F);
  // The largest chain by its mean rate over the slots: doubled, it grows.
  std::size_t big = 0;
  for (std::size_t c = 0; c < model.chains(); ++c)
    if (system.scenario.test->slot(200)[c] > system.scenario.test->slot(200)[big]) big = c;
  for (std::size_t k = layout.chain_begin()[big]; k < layout.chain_begin()[big + 1]; ++k) up[2 * k] = 1.0F;
  std::size_t slots = 0;
  while (!env.done()) {
    const Forecast forecast = persistence_forecast(env.observation(), 3);
    const Plan base = online->decide(env.observation(), forecast);
    const Plan same = planner.plan(zero, base, &env.observation().plan);
    ASSERT_EQ(pools_of(same), pools_of(base)) << "slot " << slots;
    const Plan doubled = planner.plan(up, base, &env.observation().plan);
    std::int64_t before = 0, after = 0;
    for (const PoolPlan& p : base.pools) before += p.chain == big ? p.instances : 0;
    for (const PoolPlan& p : doubled.pools) after += p.chain == big ? p.instances : 0;
    EXPECT_EQ(after, 2 * before) << "slot " << slots;
    auto others = [&](const Plan& plan) {
      auto pools = pools_of(plan);
      std::erase_if(pools, [&](const auto& entry) { return std::get<0>(entry.first) == big; });
      return pools;
    };
    EXPECT_EQ(others(doubled), others(base)) << "slot " << slots;
    env.step(same);
    ++slots;
  }
  EXPECT_GT(slots, 10U);
}

// A batch of random chain samples for `shape`, as the replay would give.
TransitionBatch random_batch(const DrlLayout& layout, std::size_t samples, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform(-1, 1);
  const TransitionLayout transitions(layout.chain_begin(), layout.pool_features(), layout.global_features());
  ReplaySettings settings;
  settings.capacity = 8;
  ReplayBuffer buffer(transitions.floats(), settings, layout.chains());
  std::vector<float> record(transitions.floats());
  for (int r = 0; r < 8; ++r) {
    for (float& x : record) x = normal(random);
    for (std::size_t a = 0; a < layout.actions(); ++a)  // the actions part starts after the rows and globals
      record[layout.pools() * layout.pool_features() + layout.global_features() + a] = uniform(random);
    buffer.add(record);
  }
  ReplaySample sample;
  buffer.sample(samples, 0.4, random, sample);
  TransitionBatch batch;
  transitions.gather(buffer, sample, batch);
  return batch;
}

TEST(Td3Agent, OneNetworkActsOnTopologiesOfAnySizeAndChainCount) {
  const std::vector<std::shared_ptr<const SystemModel>> models{
      test::abilene_scenario(200).model, test::ring_chains_model("topologies/data/b4.yaml", 3),
      test::ring_chains_model("topologies/data/geant2009.yaml", 5)};
  const std::string path = testing::TempDir() + "drl_shapes.pt";
  std::set<std::size_t> pools;
  for (std::size_t m = 0; m < models.size(); ++m) {
    const Featurizer featurizer(models[m], TraceMapping{}, 3);
    const DrlLayout layout(models[m], featurizer);
    pools.insert(layout.pools());
    std::unique_ptr<Td3Agent> agent;
    if (m == 0) {
      agent = std::make_unique<Td3Agent>(agent_shape(layout), AgentSettings{}, 1);
      agent->save(path, {});
    } else {
      CheckpointExtras none;
      agent = Td3Agent::load(path, agent_shape(layout), none);  // Abilene's weights, another system
    }
    const std::size_t states = 2;
    std::vector<float> rows(states * layout.pools() * layout.pool_features(), 0.5F), global(states * layout.global_features(), 0.1F);
    std::vector<float> actions(states * layout.actions()), values(states * layout.chains());
    agent->act(rows, global, states, actions, values);
    for (float a : actions) ASSERT_TRUE(a >= -1 && a <= 1);
    for (float v : values) ASSERT_TRUE(std::isfinite(v));
    const UpdateStats stats = agent->update(random_batch(layout, 16, m));
    EXPECT_EQ(stats.td_error.size(), 16U);
    EXPECT_TRUE(std::isfinite(stats.critic_loss));
    EXPECT_THROW(agent->act(rows, global, states + 1, actions), std::invalid_argument);
  }
  EXPECT_EQ(pools.size(), 3U) << "three systems of different sizes";
  // Another horizon means other features: a clear error, not garbage.
  const Featurizer other(models[1], TraceMapping{}, 5);
  const DrlLayout layout(models[1], other);
  CheckpointExtras none;
  EXPECT_THROW(Td3Agent::load(path, agent_shape(layout), none), std::runtime_error);
  EXPECT_THROW(Td3Agent::load(testing::TempDir() + "no_such.pt", agent_shape(layout), none), std::runtime_error);
}

TEST(Td3Agent, CheckpointRoundTripIsBitIdentical) {
  System system(test::abilene_scenario(200));
  const DrlLayout& layout = *system.layout;
  Td3Agent agent(agent_shape(layout), AgentSettings{}, 5);
  FeatureStatistics pool_stats(layout.pool_features()), global_stats(layout.global_features());
  const TransitionBatch batch = random_batch(layout, 32, 9);
  pool_stats.add(batch.pool);
  global_stats.add(batch.global);
  agent.set_statistics(pool_stats, global_stats);
  for (int u = 0; u < 4; ++u) agent.update(batch);  // optimiser state and targets that differ from the networks
  const std::string path = testing::TempDir() + "drl_round_trip.pt";
  agent.save(path, {{{"note", "kept"}}, {{"numbers", {1.5, 2.5}}}});
  CheckpointExtras wanted{{{"note", ""}}, {{"numbers", {}}}};
  const auto loaded = Td3Agent::load(path, agent_shape(layout), wanted);
  EXPECT_EQ(wanted.text[0].second, "kept");
  EXPECT_EQ(wanted.numbers[0].second, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(loaded->updates(), agent.updates());
  EXPECT_EQ(loaded->parameters(), agent.parameters());  // bit for bit: networks and targets
  EXPECT_EQ(loaded->pool_statistics().to_numbers(), agent.pool_statistics().to_numbers());
  std::vector<float> rows(layout.pools() * layout.pool_features()), global(layout.global_features());
  std::mt19937_64 random(2);
  std::normal_distribution<float> normal;
  for (float& x : rows) x = normal(random);
  for (float& x : global) x = normal(random);
  std::vector<float> a1(layout.actions()), a2(layout.actions());
  agent.act(rows, global, 1, a1);
  loaded->act(rows, global, 1, a2);
  EXPECT_EQ(a1, a2);
  // The optimiser came back too: one more identical update keeps them identical.
  const TransitionBatch next = random_batch(layout, 32, 10);
  Td3Agent& original = agent;
  original.update(next);
  loaded->update(next);
  EXPECT_EQ(loaded->parameters(), original.parameters());
}

DrlTrainSettings tiny_training(std::uint64_t seed) {
  DrlTrainSettings s;
  s.envs = 2;
  s.steps = 24;
  s.episode_slots = 12;
  s.validation_slots = 24;
  s.validate_every = 0;
  s.start_steps = 8;
  s.imitation = true;
  s.imitation_updates = 20;
  s.batch = 16;
  s.replay.capacity = 64;
  s.agent.hidden = 16;
  s.seed = seed;
  return s;
}

TEST(DrlTrainer, TheSameSeedGivesTheSameRun) {
  const Scenario scenario = test::abilene_scenario(200);
  auto train = [&](std::uint64_t seed) {
    DrlTrainer trainer(scenario.model, scenario.train, tiny_training(seed));
    trainer.run();
    return std::make_pair(trainer.agent().parameters(), trainer.curve().back().validation_cost);
  };
  const auto first = train(3), again = train(3), other = train(4);
  EXPECT_EQ(first.first, again.first);
  EXPECT_EQ(first.second, again.second);
  EXPECT_NE(first.first, other.first);
}

TEST(DrlTrainer, AResidualRunsCheckpointServesTheSameModeWithItsOnlineParameters) {
  const Scenario scenario = test::abilene_scenario(200);
  DrlTrainSettings s = tiny_training(2);
  s.imitation = false;
  s.scale.base = ActionBase::online;
  s.scale.kappa = std::log(2.0);
  s.agent.bc_to_zero = true;
  s.teacher = {{"window", "3"}};
  s.out = testing::TempDir() + "drl_residual.pt";
  DrlTrainer trainer(scenario.model, scenario.train, s);
  trainer.run();
  const PolicyContext context(scenario.model, scenario.test->mapping);
  GuardSettings none;
  none.policy = "none";
  const auto policy = load_drl_policy(s.out, context, none);
  EXPECT_EQ(policy->serving().scale.base, ActionBase::online);
  EXPECT_DOUBLE_EQ(policy->serving().scale.kappa, std::log(2.0));
  EXPECT_EQ(policy->serving().base_params, (PolicyParams{{"window", "3"}}));
  EXPECT_EQ(serving_numbers(policy->serving()), serving_numbers(trainer.serving()));
  CheckpointExtras none_wanted;
  const auto agent = Td3Agent::load(s.out, trainer.agent().shape(), none_wanted);
  EXPECT_TRUE(agent->settings().bc_to_zero);
  // It serves: the plan runs online's (with its parameters) and names the mode.
  ScalerEnvironment env(scenario.model, scenario.test, place_chains(scenario.model->topology(), 1, Placement::ingress));
  env.reset(EpisodeSpec{0, 50, 2});
  const Plan plan = policy->decide(env.observation(), persistence_forecast(env.observation(), 3));
  EXPECT_GT(plan.total_instances(), 0);
  EXPECT_NE(policy->explain().find("residual on online"), std::string::npos) << policy->explain();
  // Going on from it needs the same online policy beneath (--resume) and the same base (--fine-tune).
  DrlTrainSettings other_teacher = s;
  other_teacher.teacher = {{"window", "5"}};
  EXPECT_THROW(DrlTrainer(scenario.model, scenario.train, other_teacher).resume(s.out), std::runtime_error);
  DrlTrainSettings forecast_based = s;
  forecast_based.scale = DrlTrainSettings{}.scale;
  EXPECT_THROW(DrlTrainer(scenario.model, scenario.train, forecast_based).fine_tune(s.out), std::invalid_argument);
  EXPECT_NO_THROW(DrlTrainer(scenario.model, scenario.train, s).resume(s.out));
  // A forecast-based checkpoint keeps its mode, and one made before the mode existed (9 numbers) reads as it.
  DrlServing old;
  std::vector<double> numbers = serving_numbers(old);
  EXPECT_EQ(serving_from_numbers(numbers, "ewma").scale.base, ActionBase::forecast);
  numbers.pop_back();
  EXPECT_EQ(serving_from_numbers(numbers, "ewma").scale.base, ActionBase::forecast);
  std::filesystem::remove(s.out);
  std::filesystem::remove(s.out + ".best");
}

// A system with a known answer: one chain on two sites whose traffic jumps
// from 1.5 to 6 instances' worth every day at 12:00 for three hours (hourly
// slots), with a per-packet SLA penalty that makes the traffic a peak's
// first slot drops under-provisioned (about 270) cost four times scaling
// up for it, deployment included (about 65). A persistence forecast sees the
// jump a slot late, so threshold (HPA) fed by it drops traffic at every
// peak's start and keeps instances after it. The agent sees the time of
// day: it must learn to scale up for the 12:00 slot and down after 15:00.
struct DailyPeak {
  std::shared_ptr<const SystemModel> model;
  std::shared_ptr<const ArrivalSchedule> train, test;
  DailyPeak() {
    SimSettings settings = test::sim_settings(1024, 200);
    settings.sla.basis = SlaPenalty::Basis::per_packet;
    settings.sla.price = 0.05;
    model = std::make_shared<const SystemModel>(test::two_sites(1000), settings);
    auto days = [](std::size_t first_day, std::size_t count) {
      auto schedule = std::make_shared<ArrivalSchedule>();
      schedule->chains = 1;
      schedule->mapping.step_seconds = 3600;
      schedule->mapping.start_unix_s = static_cast<double>(first_day) * 86400;
      schedule->mapping.unit = RateUnit::packets_per_s;
      for (std::size_t h = 0; h < 24 * count; ++h) schedule->pps.push_back(h % 24 >= 12 && h % 24 < 15 ? 6000 : 1500);
      return schedule;
    };
    train = days(0, 10);
    test = days(10, 3);
  }
};

TEST(DrlTrainer, LearnsToScaleUpBeforeADailyPeakAndBeatsThreshold) {
  const DailyPeak system;
  DrlTrainSettings s;
  s.envs = 4;
  s.steps = 1000;
  s.validate_every = 0;
  s.start_steps = 48;
  s.forecast = ForecastSpec{"persistence", {}};
  s.horizon = 1;
  s.batch = 64;
  s.agent.hidden = 32;
  s.agent.gamma = 0.5;
  s.seed = 1;
  DrlTrainer trainer(system.model, system.train, s);
  trainer.run();
  GuardSettings none;
  none.policy = "none";
  const Plan start = place_chains(system.model->topology(), 1, Placement::ingress);
  auto cost_of = [&](std::unique_ptr<Policy> policy) {
    return simulate(system.model, system.test, std::move(policy), start, ForecastSpec{"persistence", {}}, 1, {},
                    system.train, 24);
  };
  const EpisodeSummary drl = cost_of(std::make_unique<DrlPolicy>(PolicyContext(system.model, system.test->mapping),
                                                                 trainer.shared_agent(), trainer.serving(), none));
  const EpisodeSummary threshold =
      cost_of(make_policy("threshold", {}, PolicyContext(system.model, system.test->mapping)));
  const EpisodeSummary untrained = [&] {
    DrlTrainSettings fresh = s;
    fresh.steps = s.start_steps;  // the start slots only: no update
    DrlTrainer base(system.model, system.train, fresh);
    base.run();
    return cost_of(std::make_unique<DrlPolicy>(PolicyContext(system.model, system.test->mapping),
                                               base.shared_agent(), base.serving(), none));
  }();
  std::printf("held-back days: drl %.1f (dropped %.0f), untrained %.1f, threshold %.1f (dropped %.0f)\n",
              drl.cost.total(), drl.traffic.dropped, untrained.cost.total(), threshold.cost.total(),
              threshold.traffic.dropped);
  EXPECT_LT(drl.cost.total(), threshold.cost.total());
  EXPECT_LT(drl.cost.total(), untrained.cost.total()) << "learning did something";
  EXPECT_LT(drl.traffic.dropped, threshold.traffic.dropped) << "it scaled up for the peak, not after it";
}

// The guard: inputs far outside what the agent saw hand every slot to
// online, counted and explained; inside them the agent's plan runs.
// candidates=plan keeps the agent's plans (and its online guard's) to the
// starting plan's pools; guard.KEY reaches the guard; a guard parameter with
// guard=none, or a bad candidates value, is an error naming it.
TEST(DrlPolicy, ItsParametersKeepTheAgentAndItsGuardToTheStartingPlansPools) {
  System system(test::abilene_scenario(200));
  const DrlLayout& layout = *system.layout;
  const std::string checkpoint = testing::TempDir() + "drl_params.pt";
  DrlServing serving;
  serving.horizon = 3;
  serving.forecast = "persistence";
  CheckpointExtras extras;
  extras.numbers = {{"serving", serving_numbers(serving)}};
  extras.text = {{"forecast", serving.forecast}};
  Td3Agent agent(agent_shape(layout), AgentSettings{}, 1);
  // Statistics of constant rows: every real input is outside their range, so a guard fires every slot.
  FeatureStatistics pool(layout.pool_features()), global(layout.global_features());
  pool.add(std::vector<float>(layout.pool_features() * 4, 0.0F));
  global.add(std::vector<float>(layout.global_features() * 4, 0.0F));
  agent.set_statistics(pool, global);
  agent.save(checkpoint, extras);
  const PolicyContext context(system.model, system.scenario.test->mapping);
  // The starting plan: every hop at its chain's ingress.
  const PolicyParams params{{"checkpoint", checkpoint}, {"placement", "ingress"}, {"candidates", "plan"}, {"hold", "0"}};
  ScalerEnvironment env(system.model, system.scenario.test, place_chains(system.model->topology(), 1, Placement::ingress));
  env.reset(EpisodeSpec{0, 50, 3});
  const auto at_ingress = [&](const Plan& plan) {
    for (const PoolPlan& p : plan.pools)
      if (p.site != system.model->topology().chains[p.chain].ingress) return false;
    return true;
  };
  // The agent deciding (no guard), then the online guard deciding every slot.
  PolicyParams agent_alone = params, guarded = params;
  agent_alone["guard"] = "none";
  guarded["guard.utilisation"] = "0.75";
  auto alone = make_policy("drl", agent_alone, context);
  auto with_guard = make_policy("drl", guarded, context);
  while (!env.done()) {
    const Forecast forecast = persistence_forecast(env.observation(), 3);
    const Plan plan = alone->decide(env.observation(), forecast);
    EXPECT_TRUE(at_ingress(plan)) << "the agent left the starting plan's pools";
    const Plan guard_plan = with_guard->decide(env.observation(), forecast);
    EXPECT_EQ(with_guard->details().guard, "online");
    EXPECT_TRUE(at_ingress(guard_plan)) << "the online guard left the starting plan's pools";
    env.step(plan);
  }
  PolicyParams wrong = agent_alone;
  wrong["guard.utilisation"] = "0.75";
  EXPECT_THROW(make_policy("drl", wrong, context), std::invalid_argument);
  wrong = params;
  wrong["candidates"] = "path";
  try {
    make_policy("drl", wrong, context);
    ADD_FAILURE() << "candidates=path accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'candidates'"), std::string::npos) << e.what();
  }
}

TEST(DrlPolicy, TheGuardHandsUnfamiliarSlotsToOnline) {
  System system(test::abilene_scenario(200));
  const DrlLayout& layout = *system.layout;
  auto agent = std::make_shared<Td3Agent>(agent_shape(layout), AgentSettings{}, 1);
  // Statistics of constant rows: every real input is outside their range.
  FeatureStatistics pool(layout.pool_features()), global(layout.global_features());
  pool.add(std::vector<float>(layout.pool_features() * 4, 0.0F));
  global.add(std::vector<float>(layout.global_features() * 4, 0.0F));
  agent->set_statistics(pool, global);
  DrlServing serving;
  const PolicyContext context(system.model, system.scenario.test->mapping);
  GuardSettings guard;
  guard.hold = 0;
  guard.margin = 1.0;  // the range test alone
  DrlPolicy guarded(context, agent, serving, guard);
  auto online = make_policy("online", {}, context);
  ScalerEnvironment env(system.model, system.scenario.test, place_chains(system.model->topology(), 1, Placement::ingress));
  env.reset(EpisodeSpec{0, 50, 4});
  while (!env.done()) {
    const Forecast forecast = persistence_forecast(env.observation(), 3);
    const Plan plan = guarded.decide(env.observation(), forecast);
    const Plan expected = online->decide(env.observation(), forecast);
    EXPECT_EQ(plan.total_instances(), expected.total_instances());
    EXPECT_EQ(guarded.details().guard, "online");
    EXPECT_NE(guarded.details().guard_reason.find("outside the training range"), std::string::npos);
    EXPECT_NE(guarded.explain().find("online decides"), std::string::npos);
    env.step(plan);
  }
  EXPECT_EQ(guarded.guard_fallbacks(), 4U);
  // With statistics of the inputs themselves and a margin nothing exceeds, the agent decides.
  GuardSettings lenient;
  lenient.margin = 1.0;
  auto familiar = std::make_shared<Td3Agent>(agent_shape(layout), AgentSettings{}, 1);
  env.reset(EpisodeSpec{0, 50, 2});
  std::vector<float> all(system.featurizer->pools() * layout.pool_features()), rows(layout.pools() * layout.pool_features()),
      g(layout.global_features());
  system.featurizer->featurize(env.observation(), persistence_forecast(env.observation(), 3), all, g);
  layout.gather(all, rows);
  FeatureStatistics pool2(layout.pool_features()), global2(layout.global_features());
  pool2.add(rows);
  global2.add(g);
  familiar->set_statistics(pool2, global2);
  DrlPolicy trusted(context, familiar, serving, lenient);
  trusted.decide(env.observation(), persistence_forecast(env.observation(), 3));
  EXPECT_EQ(trusted.details().guard, "agent");
  EXPECT_EQ(trusted.guard_fallbacks(), 0U);
  EXPECT_EQ(trusted.details().actions.size(), layout.pools());
}

}  // namespace
}  // namespace nfv
