// The MARL placement: sites as agents of the decentralized actor-critic on
// the real simulator over Abilene's real traffic (scaler/marl/).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <numeric>

#include "agent_processes.h"
#include "episode.h"
#include "marl_policy.h"
#include "marl_trainer.h"
#include "placement_game.h"
#include "scaler_cases.h"
#include "site_layout.h"

namespace nfv {
namespace {

std::shared_ptr<const SiteLayout> abilene_layout(const Scenario& scenario, SiteLayoutSettings settings = {}) {
  const MixingMatrix graph = site_graph(settings.graph, scenario.model->topology());
  return std::make_shared<const SiteLayout>(scenario.model, scenario.test->mapping, settings, neighbour_lists(graph));
}

double site_instances(const Plan& plan, std::size_t site) {
  double n = 0;
  for (const PoolPlan& p : plan.pools)
    if (p.site == site) n += p.instances;
  return n;
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("nfv-marl-placement-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// A running system's observation: a few slots of online's plans.
struct Running {
  Observation observation;
  Forecast forecast;
};

Running run_a_while(const Scenario& scenario, const SiteLayout& layout) {
  FluidSimulator simulator(scenario.model);
  Plan plan = place_chains(scenario.model->topology(), 1, Placement::ingress);
  simulator.reset(plan, 0);
  Running out;
  const std::vector<std::int64_t> base(layout.sites(), layout.base_action());
  for (std::size_t slot = 0; slot < 6; ++slot) {
    out.observation = simulator.step(plan, scenario.test->slot(slot)).observation;
    out.forecast = persistence_forecast(out.observation, layout.settings().horizon);
    plan = layout.decode(base, out.observation, out.forecast, &out.observation.plan);
  }
  return out;
}

TEST(SiteLayout, EverySitesActionDecodesToAValidPlanAndMovesItsOwnPart) {
  const Scenario scenario = test::abilene_scenario(200);
  const auto layout = abilene_layout(scenario);
  const Running now = run_a_while(scenario, *layout);
  const std::vector<std::int64_t> base(layout->sites(), layout->base_action());
  const Plan base_plan = layout->decode(base, now.observation, now.forecast, &now.observation.plan);
  EXPECT_TRUE(plan_problems(base_plan, scenario.model->topology()).empty());
  EXPECT_GT(base_plan.total_instances(), 0);
  // The site that runs most in the base plan among those with room (every
  // site hosts 64 here) scales up with the largest scale level: its
  // instances grow.
  std::size_t busiest = layout->sites();
  for (std::size_t s = 0; s < layout->sites(); ++s)
    if (site_instances(base_plan, s) < 48 &&
        (busiest == layout->sites() || site_instances(base_plan, s) > site_instances(base_plan, busiest)))
      busiest = s;
  ASSERT_LT(busiest, layout->sites());
  ASSERT_GT(site_instances(base_plan, busiest), 0);
  std::vector<std::int64_t> up = base;
  const std::size_t takes = layout->settings().take_levels.size();
  up[busiest] = static_cast<std::int64_t>((layout->settings().scale_levels.size() - 1) * takes +
                                          static_cast<std::size_t>(layout->base_action()) % takes);
  ASSERT_GT(layout->scale_of(up[busiest]), 0);
  const Plan scaled = layout->decode(up, now.observation, now.forecast, &now.observation.plan);
  EXPECT_TRUE(plan_problems(scaled, scenario.model->topology()).empty());
  EXPECT_GT(site_instances(scaled, busiest), site_instances(base_plan, busiest));
  // Every action of every site, one site at a time: always a valid plan.
  for (std::size_t s = 0; s < layout->sites(); ++s)
    for (std::int64_t a = 0; a < static_cast<std::int64_t>(layout->actions()); ++a) {
      std::vector<std::int64_t> actions = base;
      actions[s] = a;
      const Plan plan = layout->decode(actions, now.observation, now.forecast, &now.observation.plan);
      ASSERT_TRUE(plan_problems(plan, scenario.model->topology()).empty()) << "site " << s << " action " << a;
    }
}

TEST(SiteLayout, ASiteThatTakesMoreTrafficRunsMoreOfItsHopsAndAnotherTakesLess) {
  const Scenario scenario = test::abilene_scenario(200);
  const auto layout = abilene_layout(scenario);
  const Running now = run_a_while(scenario, *layout);
  const std::vector<std::int64_t> base(layout->sites(), layout->base_action());
  const Plan base_plan = layout->decode(base, now.observation, now.forecast, &now.observation.plan);
  const std::size_t takes = layout->settings().take_levels.size();
  const std::int64_t scale0 = layout->base_action() / static_cast<std::int64_t>(takes);
  const std::int64_t take_most = scale0 * static_cast<std::int64_t>(takes) + static_cast<std::int64_t>(takes) - 1;
  ASSERT_GT(layout->take_of(take_most), 0);
  // Some site that runs little in the base plan takes more.
  bool moved = false;
  for (std::size_t s = 0; s < layout->sites() && !moved; ++s) {
    std::vector<std::int64_t> actions = base;
    actions[s] = take_most;
    const Plan plan = layout->decode(actions, now.observation, now.forecast, &now.observation.plan);
    moved = site_instances(plan, s) > site_instances(base_plan, s);
  }
  EXPECT_TRUE(moved);
}

TEST(SiteLayout, ObservationsAreTheSitesOwnFeaturesItsNeighboursMeanAndTheGlobalOnes) {
  const Scenario scenario = test::abilene_scenario(200);
  const auto layout = abilene_layout(scenario);
  const Running now = run_a_while(scenario, *layout);
  std::vector<float> state(layout->state_size()), obs(layout->sites() * layout->observation_size());
  layout->state(now.observation, now.forecast, state);
  layout->observe(state, obs);
  const std::size_t F = SiteLayout::kSiteFeatures, O = layout->observation_size();
  EXPECT_EQ(O, 2 * F + layout->global_features());  // the same size on any topology
  for (std::size_t i = 0; i < layout->sites(); ++i) {
    const auto& near = layout->neighbours()[i];
    ASSERT_FALSE(near.empty());  // Abilene's WAN graph is connected
    for (std::size_t f = 0; f < F; ++f) {
      EXPECT_EQ(obs[i * O + f], state[i * F + f]);
      double mean = 0;
      for (std::size_t j : near) mean += state[j * F + f];
      EXPECT_NEAR(obs[i * O + F + f], mean / static_cast<double>(near.size()), 1e-5);
    }
    EXPECT_EQ(obs[i * O + 2 * F], state[layout->sites() * F]);
  }
  // The base plan's instances (feature 0) are what the base plan runs.
  const Plan base_plan = layout->decode(std::vector<std::int64_t>(layout->sites(), layout->base_action()), now.observation,
                                        now.forecast, &now.observation.plan);
  double base_total = 0;
  for (std::size_t s = 0; s < layout->sites(); ++s) base_total += std::expm1(state[s * F]);
  EXPECT_NEAR(base_total, base_plan.total_instances(), 0.35 * base_plan.total_instances());
}

TEST(SiteLayout, SettingsRoundTripAndBadOnesNameTheField) {
  SiteLayoutSettings s;
  s.scale_levels = {-0.5, 0, 0.25};
  s.graph = "ring";
  s.headroom = 1.3;
  const SiteLayoutSettings back = parse_site_layout(to_text(s));
  EXPECT_EQ(back.scale_levels, s.scale_levels);
  EXPECT_EQ(back.take_levels, s.take_levels);
  EXPECT_EQ(back.graph, "ring");
  EXPECT_EQ(back.headroom, 1.3);
  try {
    parse_site_layout("scale_levels=0,2\n");
    FAIL() << "a level outside [-1, 1] was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("scale_levels"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_site_layout("headroomm=1\n"), std::invalid_argument);
}

// Local rewards are each site's share of the slot's cost: they add up to
// minus the team's cost, and the same seed replays the same episodes.
TEST(PlacementGame, LocalRewardsAddUpToTheTeamsCostAndTheSameSeedReplaysTheGame) {
  const Scenario scenario = test::abilene_scenario(200);
  const auto layout = abilene_layout(scenario);
  EnvironmentSettings environment;
  environment.forecast = parse_forecast_spec("ewma:alpha=0.5");
  environment.horizon = 3;
  environment.arrival_noise = 0.1;
  PlacementGameSettings settings;
  settings.copies = 3;
  settings.episode_slots = 6;
  settings.cost_unit = 7;
  auto play = [&](std::vector<float>& all_rewards) {
    PlacementGame game(layout, scenario.train, environment, place_chains(scenario.model->topology(), 1, Placement::ingress),
                       settings);
    std::vector<float> states(game.copies() * game.state_size()), rewards(game.copies() * game.agents());
    game.reset(states);
    std::vector<std::int64_t> actions(game.copies() * game.agents());
    double reward_sum = 0;
    for (std::size_t t = 0; t < game.episode_length(); ++t) {
      for (std::size_t k = 0; k < actions.size(); ++k) actions[k] = static_cast<std::int64_t>((k * 7 + t) % game.actions());
      game.step(actions, states, rewards);
      reward_sum += std::accumulate(rewards.begin(), rewards.end(), 0.0);
      all_rewards.insert(all_rewards.end(), rewards.begin(), rewards.end());
    }
    EXPECT_EQ(game.slots_stepped(), settings.copies * settings.episode_slots);
    EXPECT_NEAR(-reward_sum * settings.cost_unit, game.episode_cost().total(), 1e-4 * game.episode_cost().total());
  };
  std::vector<float> first, second;
  play(first);
  play(second);
  EXPECT_EQ(first, second);
}

MarlTrainSettings short_training(const std::string& out) {
  MarlTrainSettings s;
  s.agents.critic_width = 16;
  s.agents.critic_depth = 2;
  s.agents.actor_width = 8;
  s.agents.actor_depth = 1;
  s.agents.critic_steps = 3;
  s.game.copies = 2;
  s.game.episode_slots = 6;
  s.iterations = 4;
  s.validate_every = 2;
  s.validation_slots = 48;
  s.out = out;
  return s;
}

// Deterministic per seed; a run stopped and resumed ends where one that
// never stopped does; the directory serves as the `marl` policy.
TEST(MarlTrainer, IsDeterministicPerSeedResumesAsIfNeverStoppedAndServesAsThePolicy) {
  set_marl_threads(1);
  const Scenario scenario = test::abilene_scenario(200);
  const std::string whole_dir = scratch("whole"), split_dir = scratch("split");
  MarlTrainer whole(scenario.model, scenario.train, short_training(whole_dir));
  whole.run({});
  MarlTrainSettings half = short_training(split_dir);
  half.iterations = 2;
  {
    MarlTrainer first(scenario.model, scenario.train, half);
    first.run({});
  }
  MarlTrainer rest(scenario.model, scenario.train, short_training(split_dir));
  rest.resume();
  EXPECT_EQ(rest.iteration(), 2U);
  rest.run({});
  ASSERT_EQ(whole.curve().size(), rest.curve().size());
  for (std::size_t i = 0; i < whole.curve().size(); ++i) {
    EXPECT_EQ(whole.curve()[i].train_cost, rest.curve()[i].train_cost) << "iteration " << i;
    EXPECT_EQ(whole.curve()[i].gossip_bytes, rest.curve()[i].gossip_bytes) << "iteration " << i;
  }
  const double last = whole.curve().back().validation_cost;
  EXPECT_EQ(last, rest.curve().back().validation_cost);

  // The policy from the directory: the same validation cost on the same slots.
  PolicyParams params{{"checkpoints", whole_dir}};
  auto policy = make_policy("marl", params, PolicyContext(scenario.model, scenario.train->mapping));
  const std::size_t rows = scenario.train->slots();
  auto validation = std::make_shared<const ArrivalSchedule>(slot_range(*scenario.train, rows - 48, rows));
  auto history = std::make_shared<const ArrivalSchedule>(slot_range(*scenario.train, 0, rows - 48));
  const EpisodeSummary served =
      simulate(scenario.model, validation, std::move(policy), place_chains(scenario.model->topology(), 1, Placement::ingress),
               parse_forecast_spec("ewma:alpha=0.5"), 3, {}, history, default_warm_up_slots(scenario.train->mapping.step_seconds));
  EXPECT_NEAR(served.cost.total(), last, 1e-9 * last);

  EXPECT_THROW(make_policy("marl", {}, PolicyContext(scenario.model, scenario.train->mapping)), std::invalid_argument);
  EXPECT_THROW(make_policy("marl", {{"checkpoints", scratch("none")}}, PolicyContext(scenario.model, scenario.train->mapping)),
               std::runtime_error);
  std::filesystem::remove_all(whole_dir);
  std::filesystem::remove_all(split_dir);
}

// The same training with one OS process per site (c10d Gloo) ends with the
// same agents as the stacked run, bit for bit, and serves from its
// directory the same way.
TEST(MarlTrainer, AgentsAsProcessesEndWithTheStackedRunsAgents) {
  if (!agent_processes_available()) GTEST_SKIP() << "built without Gloo (libgloo-dev)";
  set_marl_threads(1);
  const Scenario scenario = test::abilene_scenario(200);
  const std::string stacked_dir = scratch("stacked"), processes_dir = scratch("processes");
  MarlTrainSettings settings = short_training(stacked_dir);
  settings.iterations = 3;
  MarlTrainer stacked(scenario.model, scenario.train, settings);
  stacked.run({});
  settings.out = processes_dir;
  MarlTrainer processes(scenario.model, scenario.train, settings);
  const AgentProcessesRun run = processes.run_processes({});
  ASSERT_EQ(run.team_return.size(), 3U);
  for (std::size_t t = 0; t < 3; ++t)
    EXPECT_NEAR(processes.curve()[t + 1].train_cost, stacked.curve()[t + 1].train_cost,
                1e-6 * stacked.curve()[t + 1].train_cost);
  EXPECT_EQ(processes.curve().back().gossip_bytes, stacked.curve().back().gossip_bytes);
  EXPECT_EQ(processes.curve().back().validation_cost, stacked.curve().back().validation_cost);
  const MarlShape shape = MarlShape::of(stacked.game());
  const auto a = DecentralizedActorCritic::load(marl_checkpoint_files(stacked_dir).learner, stacked.graph(), shape);
  const auto b = DecentralizedActorCritic::load(marl_checkpoint_files(processes_dir).learner, processes.graph(), shape);
  for (std::size_t k = 0; k < shape.agents; ++k) {
    EXPECT_EQ(a->actor_parameters(k), b->actor_parameters(k)) << "site " << k;
    EXPECT_EQ(a->critic_parameters(k), b->critic_parameters(k)) << "site " << k;
  }
  // Each agent's process resumes on its own: the gathered team does not.
  MarlTrainer again(scenario.model, scenario.train, settings);
  EXPECT_THROW(again.resume(), std::runtime_error);
  // Served from the agents' own files alone, as from the gathered team.
  std::filesystem::remove(marl_checkpoint_files(processes_dir).learner);
  auto policy = load_marl_policy(processes_dir, PolicyContext(scenario.model, scenario.train->mapping));
  EXPECT_EQ(policy->layout()->sites(), shape.agents);
  std::filesystem::remove_all(stacked_dir);
  std::filesystem::remove_all(processes_dir);
}

}  // namespace
}  // namespace nfv
