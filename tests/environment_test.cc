// The reinforcement-learning environment on the simulator: episodes from
// any slot, seeded and reproducible; K environments stepped at once give
// what one after another gives; the featurizer's layout is the same for any
// topology and chain count; the action decoder turns any output into a
// valid plan. Real inputs: Abilene with its April OD matrices, B4, GEANT.
#include <gtest/gtest.h>

#include <map>

#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "action_decoder.h"
#include "environment.h"
#include "featurizer.h"
#include "predictor.h"
#include "scaler_cases.h"
#include "vector_environment.h"

namespace nfv {
namespace {

using test::abilene_scenario;
using test::source_path;

// Random network outputs: mostly plausible instance counts, sometimes
// negative, huge, NaN or infinite.
std::vector<float> random_outputs(std::size_t n, std::mt19937_64& random) {
  std::vector<float> out(n);
  std::uniform_real_distribution<float> uniform(-3, 8);
  std::uniform_int_distribution<int> kind(0, 19);
  for (float& x : out) switch (kind(random)) {
      case 0: x = std::numeric_limits<float>::quiet_NaN(); break;
      case 1: x = std::numeric_limits<float>::infinity(); break;
      case 2: x = -std::numeric_limits<float>::infinity(); break;
      case 3: x = 1e30f; break;
      case 4: x = -1e30f; break;
      default: x = uniform(random);
    }
  return out;
}

TEST(ScalerEnvironment, StepRewardsMinusTheCostWithEveryTermAndIsDoneAfterTheLastSlot) {
  const Topology demo = load_topology_yaml(source_path("topologies/data/demo3.yaml"));
  RateTrace trace;
  trace.label = "test";
  trace.unit = RateUnit::packets_per_s;
  trace.columns = {"video", "calls"};
  trace.values = {1e5, 2e5, 6e5, 1e5, 9e5, 0};  // 3 slots; video overloads a 500 kpps counter
  SimSettings s;
  s.scale.trace_step_seconds = 1;
  auto model = std::make_shared<const SystemModel>(demo, s);
  auto arrivals = std::make_shared<const ArrivalSchedule>(arrivals_for_chains(trace, demo, s.scale));
  const Plan plan = place_chains(demo, 1, Placement::along_path);
  ScalerEnvironment env(model, arrivals, plan);
  const Observation& first = env.reset();
  EXPECT_EQ(first.slot, 0u);
  EXPECT_FALSE(first.measured);
  for (std::size_t slot = 0; slot < 3; ++slot) {
    const StepResult result = env.step(plan);
    const SlotOutcome& out = env.last_slot();
    EXPECT_DOUBLE_EQ(result.reward, -out.cost.total());
    EXPECT_DOUBLE_EQ(result.reward, -(result.cost.operating + result.cost.deployment + result.cost.wan + result.cost.sla_penalty));
    EXPECT_DOUBLE_EQ(result.reward, -model->cost_model().slot_cost(out.usage).total());
    EXPECT_EQ(result.done, slot == 2);
    EXPECT_EQ(env.observation().slot, slot + 1);
    EXPECT_TRUE(env.observation().measured);
    EXPECT_DOUBLE_EQ(env.observation().arrival_pps[0], trace.at(slot, 0));
  }
  EXPECT_GT(env.last_slot().total.dropped, 0);  // 900 kpps into 500 kpps
  EXPECT_GT(env.last_slot().cost.sla_penalty, 0);
  EXPECT_THROW(env.step(plan), std::logic_error);
}

TEST(ScalerEnvironment, AnEpisodeStartsAtAnySlotRunsItsLengthAndItsSeedFixesIt) {
  const Scenario abilene = abilene_scenario(10);
  const Plan start = place_chains(abilene.model->topology(), 1, Placement::ingress);
  ScalerEnvironment env(abilene.model, abilene.test, start);
  const Observation& first = env.reset(EpisodeSpec{7, 100, 24});
  EXPECT_EQ(first.slot, 100u);
  EXPECT_TRUE(first.measured);  // the slot before the start was measured
  for (std::size_t c = 0; c < abilene.model->chains(); ++c) EXPECT_DOUBLE_EQ(first.arrival_pps[c], abilene.test->slot(99)[c]);
  std::size_t steps = 0;
  while (!env.done()) {
    env.step(start);
    ++steps;
  }
  EXPECT_EQ(steps, 24u);
  EXPECT_EQ(env.slot(), 124u);
  EXPECT_THROW(env.reset(EpisodeSpec{1, abilene.test->slots() - 10, 24}), std::invalid_argument);

  // Drawn starts: the same seed gives the same start, seeds differ.
  std::set<std::size_t> starts;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    const std::size_t at = env.reset(EpisodeSpec{seed, std::nullopt, 48}).slot;
    EXPECT_LE(at + 48, abilene.test->slots());
    EXPECT_EQ(env.reset(EpisodeSpec{seed, std::nullopt, 48}).slot, at);
    starts.insert(at);
  }
  EXPECT_GE(starts.size(), 5u);
}

TEST(ScalerEnvironment, ArrivalNoiseIsSeededAndKeepsTheMean) {
  const Scenario abilene = abilene_scenario(10);
  const Plan start = place_chains(abilene.model->topology(), 4, Placement::ingress);
  EnvironmentSettings noisy;
  noisy.arrival_noise = 0.2;
  ScalerEnvironment a(abilene.model, abilene.test, start, noisy), b(abilene.model, abilene.test, start, noisy);
  a.reset(EpisodeSpec{42, 0, 200});
  b.reset(EpisodeSpec{42, 0, 200});
  double noisy_total = 0, trace_total = 0;
  bool differs_from_trace = false;
  for (std::size_t t = 0; t < 200; ++t) {
    a.step(start);
    b.step(start);
    for (std::size_t c = 0; c < abilene.model->chains(); ++c) {
      ASSERT_EQ(a.observation().arrival_pps[c], b.observation().arrival_pps[c]);
      noisy_total += a.observation().arrival_pps[c];
      trace_total += abilene.test->slot(t)[c];
      differs_from_trace = differs_from_trace || a.observation().arrival_pps[c] != abilene.test->slot(t)[c];
    }
  }
  EXPECT_TRUE(differs_from_trace);
  EXPECT_NEAR(noisy_total / trace_total, 1.0, 0.02);
  b.reset(EpisodeSpec{43, 0, 200});
  b.step(start);
  a.reset(EpisodeSpec{42, 0, 200});
  a.step(start);
  EXPECT_NE(a.observation().arrival_pps[0], b.observation().arrival_pps[0]);
}

TEST(ScalerEnvironment, TheForecastIsWarmedUpOnTheSlotsBeforTheStartAndFollowsTheEpisode) {
  const Scenario abilene = abilene_scenario(10);
  const Plan start = place_chains(abilene.model->topology(), 2, Placement::ingress);
  EnvironmentSettings with_forecast;
  with_forecast.forecast = ForecastSpec{"ewma", {{"alpha", "0.3"}}};
  with_forecast.horizon = 3;
  with_forecast.warmup_slots = 50;
  ScalerEnvironment env(abilene.model, abilene.test, start, with_forecast);
  env.reset(EpisodeSpec{1, 300, 10});
  // The same predictor fed by hand, in the trace's unit.
  PredictorContext context;
  for (const Chain& chain : abilene.model->topology().chains) context.chain_names.push_back(chain.name);
  context.step_seconds = abilene.test->mapping.step_seconds;
  auto ewma = make_predictor("ewma", {{"alpha", "0.3"}}, context);
  const double per_unit = abilene.test->mapping.pps_per_unit;
  const auto feed = [&](std::span<const double> pps, std::size_t slot) {
    std::vector<double> rates;
    for (double r : pps) rates.push_back(r / per_unit);
    ewma->observe(rates, abilene.test->mapping.unix_s(slot));
  };
  for (std::size_t s = 250; s < 300; ++s) feed(abilene.test->slot(s), s);
  for (int step = 0; step < 3; ++step) {
    const Forecast& f = env.forecast();
    const RateForecast expected = ewma->forecast(3);
    ASSERT_EQ(f.horizon, 3u);
    for (std::size_t c = 0; c < abilene.model->chains(); c += 11)
      EXPECT_NEAR(f.mean(c, 2), expected.at(c, 2) * per_unit, 1e-6 * (1 + expected.at(c, 2) * per_unit));
    env.step(start);
    feed(env.observation().arrival_pps, 300 + step);
  }
}

TEST(VectorEnvironment, SteppingInParallelGivesExactlyWhatSteppingOneAfterAnotherGives) {
  const Scenario abilene = abilene_scenario(10, 16);
  const auto& model = abilene.model;
  const Plan start = place_chains(model->topology(), 1, Placement::ingress);
  EnvironmentSettings settings;
  settings.arrival_noise = 0.1;
  settings.forecast = ForecastSpec{"ewma", {}};
  const ScalerEnvironment prototype(model, abilene.test, start, settings);
  const std::size_t k = 6;
  VectorEnvironment sequential(copies(k, prototype), 0), parallel(copies(k, prototype), 3);
  std::vector<EpisodeSpec> episodes;
  for (std::size_t i = 0; i < k; ++i) episodes.push_back(EpisodeSpec{100 + i, std::nullopt, 40});
  sequential.reset(episodes);
  parallel.reset(episodes);
  const ActionDecoder decoder(model, DecoderSettings{});
  std::mt19937_64 random(5);
  for (int step = 0; step < 40; ++step) {
    std::vector<Plan> plans;
    for (std::size_t i = 0; i < k; ++i) plans.push_back(decoder.decode(random_outputs(decoder.pools(), random)));
    const auto a = sequential.step(plans), b = parallel.step(plans);
    for (std::size_t i = 0; i < k; ++i) {
      ASSERT_EQ(a[i].reward, b[i].reward) << "step " << step << " environment " << i;
      ASSERT_EQ(a[i].done, b[i].done);
      ASSERT_EQ(sequential[i].observation().arrival_pps, parallel[i].observation().arrival_pps);
      ASSERT_EQ(sequential[i].forecast().mean_pps, parallel[i].forecast().mean_pps);
      ASSERT_EQ(sequential[i].last_slot().total.backlog, parallel[i].last_slot().total.backlog);
    }
  }
  EXPECT_TRUE(parallel[0].done());
  // An environment's error reaches the caller.
  std::vector<Plan> plans(k, start);
  EXPECT_THROW(parallel.step(plans), std::logic_error);
}

TEST(Featurizer, OneLayoutPerPoolForAnyTopologyAndAnyNumberOfChains) {
  const Scenario abilene = abilene_scenario(10);
  std::set<std::size_t> widths;
  for (const auto& model : {abilene.model, test::ring_chains_model("topologies/data/b4.yaml", 3), test::ring_chains_model("topologies/data/geant2009.yaml", 5)}) {
    const Featurizer featurizer(model, TraceMapping{}, 4);
    widths.insert(featurizer.pool_features());
    EXPECT_EQ(featurizer.pools(), model->pool_index().pools());
    EXPECT_EQ(featurizer.global_features(), 7u);
    // Candidates are the SLA-feasible sites.
    const PoolIndex& index = model->pool_index();
    for (std::size_t c = 0; c < model->chains(); ++c) {
      const auto sites = model->sla_sites(c);
      for (std::size_t s = 0; s < model->sites(); ++s)
        EXPECT_EQ(featurizer.candidate()[index(c, 0, s)], std::count(sites.begin(), sites.end(), s)) << c << " " << s;
    }
    ScalerEnvironment env(model, std::make_shared<ArrivalSchedule>([&] {
                            ArrivalSchedule a;
                            a.chains = model->chains();
                            a.pps.assign(3 * a.chains, 2e5);
                            return a;
                          }()),
                          place_chains(model->topology(), 1, Placement::ingress));
    env.step(place_chains(model->topology(), 1, Placement::ingress));
    std::vector<float> pools(featurizer.pools() * featurizer.pool_features()), global(featurizer.global_features());
    featurizer.featurize(env.observation(), persistence_forecast(env.observation(), 4), pools, global);
    for (float x : pools) ASSERT_TRUE(std::isfinite(x));
    for (float x : global) ASSERT_TRUE(std::isfinite(x));
  }
  EXPECT_EQ(widths.size(), 1u);  // the same features per pool everywhere
}

TEST(Featurizer, FeaturesSayWhatTheObservationAndForecastSay) {
  const Scenario abilene = abilene_scenario(10);
  const auto& model = abilene.model;
  const Plan start = place_chains(model->topology(), 3, Placement::ingress);
  ScalerEnvironment env(model, abilene.test, start);
  env.reset(EpisodeSpec{0, 10, 5});
  env.step(start);
  const Featurizer featurizer(model, abilene.test->mapping, 2);
  Forecast forecast = persistence_forecast(env.observation(), 2);
  for (std::size_t c = 0; c < model->chains(); ++c) forecast.mean_pps[c * 2 + 1] = 2 * forecast.mean(c, 0);
  std::vector<float> pools(featurizer.pools() * featurizer.pool_features()), global(featurizer.global_features());
  featurizer.featurize(env.observation(), forecast, pools, global);
  const auto& names = featurizer.pool_feature_names();
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  const PoolIndex& index = model->pool_index();
  const std::size_t width = featurizer.pool_features();
  for (const PoolPlan& p : start.pools) {
    const float* row = &pools[index(p.chain, p.hop, p.site) * width];
    const double service = model->service_rate_pps(index.hop_number(p.chain, p.hop));
    EXPECT_NEAR(row[column("instances")], std::log1p(3.0), 1e-6);
    EXPECT_NEAR(row[column("arrival")], std::log1p(env.observation().arrival_pps[p.chain] / service), 1e-5);
    EXPECT_NEAR(row[column("forecast_2")], std::log1p(2 * env.observation().arrival_pps[p.chain] / service), 1e-5);
    EXPECT_EQ(row[column("candidate")], 1.0f);  // the ingress always is
    EXPECT_NEAR(row[column("split")], 1.0, 1e-6);
  }
  // Slot 11 of April 2004-04-02 (5-minute steps): 00:55, a Friday.
  const double day = (55 * 60) / 86400.0;
  EXPECT_NEAR(global[0], std::sin(2 * M_PI * day), 1e-5);
  EXPECT_NEAR(global[1], std::cos(2 * M_PI * day), 1e-5);
}

TEST(ActionDecoder, AnyOutputDecodesToAValidPlanWithinEveryLimit) {
  std::mt19937_64 random(11);
  std::size_t decoded = 0;
  const Scenario abilene = abilene_scenario(10, 40);
  for (const auto& model : {abilene.model, test::ring_chains_model("topologies/data/b4.yaml", 4)}) {
    const std::size_t sites = model->sites();
    for (int variant = 0; variant < 3; ++variant) {
      DecoderSettings settings;
      settings.min_instances_per_hop = 1 + variant % 2;
      settings.max_instances_per_pool = 4 + 6 * variant;
      settings.limits.min.assign(sites, 0.0);
      settings.limits.max.assign(sites, 0.0);
      settings.limits.min[1] = 3;  // a site that must run 3 instances
      // One held low: a little above what the hops that can only run there need.
      double needed = 0;
      const ActionDecoder unheld(model, settings);
      for (const PoolPlan& p : unheld.minimal_plan().pools)
        if (p.site == 2) needed += p.instances;
      const double held = needed + variant + 1;  // (0 would mean no limit)
      settings.limits.max[2] = held;
      const ActionDecoder decoder(model, settings);
      PlanValidator validator(model->topology());
      const PoolIndex& index = model->pool_index();
      for (int trial = 0; trial < 300; ++trial) {
        const auto instances = random_outputs(decoder.pools(), random);
        const auto logits = trial % 2 ? random_outputs(decoder.pools(), random) : std::vector<float>{};
        const Plan plan = decoder.decode(instances, logits);
        ++decoded;
        const auto problems = validator.problems(plan);
        ASSERT_TRUE(problems.empty()) << problems.front();
        std::vector<double> per_site(sites, 0.0), per_hop(index.hops(), 0.0);
        for (const PoolPlan& p : plan.pools) {
          ASSERT_TRUE(decoder.candidate()[index(p.chain, p.hop, p.site)]) << "a pool outside the chain's SLA sites";
          ASSERT_LE(p.instances, static_cast<std::int32_t>(settings.max_instances_per_pool));
          per_site[p.site] += p.instances;
          per_hop[index.hop_number(p.chain, p.hop)] += p.instances;
        }
        ASSERT_GE(per_site[1], 3);
        ASSERT_LE(per_site[2], held);
        for (double n : per_hop) ASSERT_GE(n, settings.min_instances_per_hop);
      }
    }
  }
  EXPECT_EQ(decoded, 2u * 3u * 300u);
}

TEST(ActionDecoder, FollowsTheOutputWhereItFitsAndSplitsBySoftmax) {
  const auto model = std::make_shared<const SystemModel>(test::two_sites(1000, 50), test::sim_settings(1000, 64));
  const ActionDecoder decoder(model, DecoderSettings{});
  // Pools: (web, hop 0, A) = 0, (web, hop 0, B) = 1.
  const std::vector<float> want{3.4f, 1.6f}, logits{0.0f, std::log(3.0f)};
  const Plan plan = decoder.decode(want, logits);
  ASSERT_EQ(plan.pools.size(), 2u);
  EXPECT_EQ(plan.pools[0].instances, 3);
  EXPECT_EQ(plan.pools[1].instances, 2);
  EXPECT_NEAR(plan.pools[0].split, 0.25, 1e-6);
  EXPECT_NEAR(plan.pools[1].split, 0.75, 1e-6);
  // Without logits the traffic follows the instances.
  const Plan by_instances = decoder.decode(want);
  EXPECT_NEAR(by_instances.pools[0].split, 0.6, 1e-9);
  // Nothing wanted: the hop keeps its minimum where the output leans most.
  const Plan least = decoder.decode(std::vector<float>{-1.0f, -0.5f});
  ASSERT_EQ(least.pools.size(), 1u);
  EXPECT_EQ(least.pools[0].site, 1u);
  EXPECT_EQ(least.pools[0].instances, 1);
  // More than site A hosts (16): cut to its capacity, and what A cannot
  // hold moves to B, the hop's other site within the SLA, up to its 16.
  const Plan spilled = decoder.decode(std::vector<float>{20.0f, 0.0f});
  ASSERT_EQ(spilled.pools.size(), 2u);
  EXPECT_EQ(spilled.pools[0].instances, 16);
  EXPECT_EQ(spilled.pools[1].instances, 4);
  EXPECT_NEAR(spilled.pools[1].split, 0.2, 1e-9);  // the traffic follows the capacity
  const Plan full = decoder.decode(std::vector<float>{40.0f, 0.0f});
  EXPECT_EQ(full.pools[0].instances, 16);
  EXPECT_EQ(full.pools[1].instances, 16);
  EXPECT_EQ(decoder.fallbacks(), 0u);
}

TEST(ActionDecoder, WhatAFullSiteCannotHoldNeverTakesTheRoomAnotherHopNeedsForItsMinimum) {
  // Two hops, sites A (16) and B (4): hop 0 asks 20 at A and spills to B,
  // but only after hop 1 has its one instance (at B, A being full).
  Topology t = test::two_sites(1000, 50);
  t.sites[1].instance_capacity = 4;
  t.chains[0].vnfs = {0, 0};
  const auto model = std::make_shared<const SystemModel>(t, test::sim_settings(1000, 64));
  const ActionDecoder decoder(model, DecoderSettings{});
  const PoolIndex& index = model->pool_index();
  std::vector<float> want(decoder.pools(), 0.0f);
  want[index(0, 0, 0)] = 20.0f;
  const Plan plan = decoder.decode(want);
  EXPECT_EQ(decoder.fallbacks(), 0u) << "the minimal plan instead of the output's";
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::int32_t> n;
  for (const PoolPlan& p : plan.pools) n[{p.hop, p.site}] = p.instances;
  EXPECT_EQ((n[{0, 0}]), 16);
  EXPECT_EQ((n[{1, 1}]), 1);
  EXPECT_EQ((n[{0, 1}]), 3);
}

TEST(ActionDecoder, KeepsToTheGivenPools) {
  // Only site B's pool may run (the pods have no other): an output that
  // wants A gets B, and a mask that leaves the hop nowhere is refused.
  const auto model = std::make_shared<const SystemModel>(test::two_sites(1000, 50), test::sim_settings(1000, 64));
  DecoderSettings settings;
  settings.pools = plan_pools(*model, test::one_pool(1, 2));
  EXPECT_EQ(settings.pools, (std::vector<std::uint8_t>{0, 1}));
  const ActionDecoder decoder(model, settings);
  const Plan plan = decoder.decode(std::vector<float>{5.0f, 0.0f});
  ASSERT_EQ(plan.pools.size(), 1u);
  EXPECT_EQ(plan.pools[0].site, 1u);
  EXPECT_EQ(plan.pools[0].instances, 1);
  settings.pools = {0, 0};
  EXPECT_THROW(ActionDecoder(model, settings), std::invalid_argument);
  settings.pools = {1};
  EXPECT_THROW(ActionDecoder(model, settings), std::invalid_argument);
}

TEST(ActionDecoder, WhatAFullSiteCannotHoldGoesFirstWhereTheRunningPlanHasInstancesToSpare) {
  // Three sites within the SLA, A full: the overflow goes to C, where the
  // running plan has instances (no deployment), though the output leans to B.
  Topology t = test::two_sites(1000, 50);
  t.sites.push_back(Site{"C", 41.0, -80.0, 16, 3.0, 11.0});
  t.add_link(0, 2, 10.0);
  t.add_link(1, 2, 10.0);
  const auto model = std::make_shared<const SystemModel>(t, test::sim_settings(1000, 64));
  const ActionDecoder decoder(model, DecoderSettings{});
  const PoolIndex& index = model->pool_index();
  std::vector<float> want(decoder.pools(), 0.0f);
  want[index(0, 0, 0)] = 19.0f;
  want[index(0, 0, 1)] = 0.4f;  // rounds to nothing, but B is the output's next choice
  const Plan running{{PoolPlan{0, 0, 0, 16, 0.8}, PoolPlan{0, 0, 2, 4, 0.2}}};
  auto at = [&](const Plan& plan, std::uint32_t site) {
    for (const PoolPlan& p : plan.pools)
      if (p.site == site) return p.instances;
    return 0;
  };
  const Plan plan = decoder.decode(want, {}, &running);
  EXPECT_EQ(at(plan, 0), 16);
  EXPECT_EQ(at(plan, 2), 3);
  EXPECT_EQ(at(plan, 1), 0);
  const Plan without = decoder.decode(want);
  EXPECT_EQ(at(without, 1), 3);
  EXPECT_EQ(at(without, 2), 0);
}

TEST(ActionDecoder, LimitsNoPlanCanMeetAreRefusedWhenItIsMade) {
  const auto model = std::make_shared<const SystemModel>(test::two_sites(1000, 50), test::sim_settings(1000, 64));
  DecoderSettings above;
  above.limits.min = {20, 0};  // site A hosts 16
  EXPECT_THROW(ActionDecoder(model, above), std::invalid_argument);
  DecoderSettings no_room;
  no_room.min_instances_per_hop = 40;  // two sites of 16
  EXPECT_THROW(ActionDecoder(model, no_room), std::invalid_argument);
}

}  // namespace
}  // namespace nfv
