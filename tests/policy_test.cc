// The scaler's optimisation policies on small cases one can check by hand:
// the online policy (Ipopt + online rounding) fills the cheaper site up to
// its capacity, never covers less than its fractional solution, never
// overfills a site, and its regularizer slows scale-down in proportion to
// the deployment price; the offline optimum (CBC) equals brute force over
// every integer schedule of a tiny instance, and its LP relaxation (CLP)
// bounds it from below.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "offline_optimum.h"
#include "online_policy.h"
#include "plan.h"
#include "policy.h"
#include "environment.h"
#include "scaler_cases.h"
#include "simulator.h"

namespace nfv {
namespace {

// Sites A (operating 2, deployment 7, capacity `capacity_a`) and B (3, 11,
// 16) 10 ms apart, one chain A -> B through one VNF of 100 packets/s per
// instance; 1-s slots of 1000-B packets; a dropped packet costs 0.05.
std::shared_ptr<const SystemModel> two_sites(std::uint32_t capacity_a, double deployment_a = 7) {
  Topology t;
  t.name = "two";
  t.sites.push_back(Site{"A", 40.0, -74.0, capacity_a, 2.0, deployment_a});
  t.sites.push_back(Site{"B", 41.8, -87.6, 16, 3.0, 11.0});
  t.add_link(0, 1, 10.0);
  t.links[0].price_per_gb = 0.05;
  t.vnf_types.push_back(VnfProfile{"fw", 100, 1, 256});
  t.chains.push_back(Chain{"web", 0, 1, {0}, 50});
  SimSettings s;
  s.scale.slot_wall_seconds = 1;
  s.scale.mean_packet_bytes = 1000;
  s.queue_packets_per_instance = 0;
  s.sla.basis = SlaPenalty::Basis::per_packet;
  s.sla.price = 0.05;
  return std::make_shared<const SystemModel>(t, s);
}

Observation observe(double arrival_pps, const Plan& plan) {
  Observation o;
  o.arrival_pps = {arrival_pps};
  o.plan = plan;
  return o;
}

Forecast forecast_of(const std::vector<double>& rates) {
  Forecast f;
  f.chains = rates.size();
  f.horizon = 1;
  f.mean_pps = rates;
  return f;
}

std::int32_t instances_at(const Plan& plan, std::uint32_t site) {
  for (const PoolPlan& p : plan.pools)
    if (p.site == site) return p.instances;
  return 0;
}

TEST(OnlinePolicy, FillsTheCheaperSiteToItsCapacityAndPutsTheRestAtTheOther) {
  auto model = two_sites(2);
  OnlineSettings settings;  // planned utilisation 0.9: 90 packets/s per instance
  OnlinePolicy online(model, settings);
  const Plan start{{PoolPlan{0, 0, 0, 1, 1.0}}};
  const Plan plan = online.decide(observe(450, start), forecast_of({450}));
  EXPECT_TRUE(plan_problems(plan, model->topology()).empty());
  // 450 / 90 = 5 instances: A (operating 2) holds 2, B (3) the other 3.
  EXPECT_EQ(instances_at(plan, 0), 2) << online.explain();
  EXPECT_EQ(instances_at(plan, 1), 3) << online.explain();
  EXPECT_NEAR(online.fractional()[0] + online.fractional()[1], 5.0, 1e-3);
  double split = 0;
  for (const PoolPlan& p : plan.pools) split += p.split;
  EXPECT_NEAR(split, 1.0, 1e-9);
}

TEST(OnlinePolicy, TheRegularizerSlowsScaleDownInProportionToTheDeploymentPrice) {
  // From 900 packets/s (10 instances) down to 90 (1 instance): with a
  // deployment price near zero the relaxation drops at once; at 7 per
  // instance the relative entropy holds capacity back for later.
  std::vector<double> after_drop;
  for (double deployment : {0.001, 7.0}) {
    auto model = two_sites(16, deployment);
    OnlineSettings settings;
    settings.keep = 1;          // plain rounding and
    settings.window_slots = 0;  // no peak window: only the regularizer hedges
    OnlinePolicy online(model, settings);
    Plan plan{{PoolPlan{0, 0, 0, 10, 1.0}}};
    plan = online.decide(observe(900, plan), forecast_of({900}));
    EXPECT_EQ(plan.total_instances(), 10);
    plan = online.decide(observe(90, plan), forecast_of({90}));
    after_drop.push_back(online.fractional()[0] + online.fractional()[1]);
    EXPECT_GE(plan.total_instances(), static_cast<std::int64_t>(std::ceil(after_drop.back() - 1e-6)));
  }
  EXPECT_NEAR(after_drop[0], 1.0, 0.05);
  EXPECT_GT(after_drop[1], 1.5) << "the regularizer held " << after_drop[1];
}

TEST(OnlinePolicy, NeverCoversLessThanTheFractionalSolutionNorOverfillsASite) {
  // Three sites of capacity 8, two chains of 3 and 2 hops, 40 slots of
  // random traffic that fits (at most 14 of the 24 instances): rounding must
  // keep every hop at or above its fractional total and the traffic's need
  // while every site stays within capacity.
  Topology t;
  t.name = "three";
  t.sites.push_back(Site{"N", 40.78, -73.97, 8, 1.0, 5.0});
  t.sites.push_back(Site{"C", 41.83, -87.62, 8, 1.0, 5.0});
  t.sites.push_back(Site{"K", 38.96, -96.60, 8, 1.0, 5.0});
  t.add_link(0, 1);
  t.add_link(1, 2);
  t.vnf_types.push_back(VnfProfile{"counter", 1000, 1, 256});
  t.vnf_types.push_back(VnfProfile{"forward", 2000, 1, 256});
  t.chains.push_back(Chain{"video", 0, 2, {0, 1, 0}, 50});
  t.chains.push_back(Chain{"calls", 0, 2, {0, 0}, 50});
  SimSettings s;
  s.scale.slot_wall_seconds = 1;
  auto model = std::make_shared<const SystemModel>(t, s);
  OnlineSettings settings;
  settings.candidates = CandidateSites::within_sla;
  OnlinePolicy online(model, settings);
  Plan plan = place_chains(t, 1, Placement::ingress);
  std::mt19937 random(7);
  std::uniform_real_distribution<double> rate(0, 2500);
  for (int slot = 0; slot < 40; ++slot) {
    const std::vector<double> rates{rate(random), rate(random)};
    Observation o;
    o.arrival_pps = rates;
    o.plan = plan;
    plan = online.decide(o, forecast_of(rates));
    ASSERT_TRUE(plan_problems(plan, t).empty()) << "slot " << slot;
    const PoolIndex& pools = model->pool_index();
    for (std::size_t c = 0; c < t.chains.size(); ++c)
      for (std::size_t h = 0; h < t.chains[c].vnfs.size(); ++h) {
        double fractional = 0, rounded = 0;
        for (std::size_t site = 0; site < 3; ++site) {
          fractional += online.fractional()[pools(c, h, site)];
          rounded += online.rounded()[pools(c, h, site)];
        }
        EXPECT_GE(rounded, fractional - 1e-6) << "slot " << slot << " chain " << c << " hop " << h;
        // Enough for the traffic at the planned utilisation (within the solver's tolerance).
        EXPECT_GE(rounded * 0.9 * model->service_rate_pps(pools.hop_number(c, h)), rates[c] * (1 - 1e-4))
            << "slot " << slot << " chain " << c << " hop " << h;
      }
    std::vector<std::int32_t> per_site(3, 0);
    for (const PoolPlan& p : plan.pools) per_site[p.site] += p.instances;
    for (std::size_t site = 0; site < 3; ++site) EXPECT_LE(per_site[site], 8) << "slot " << slot;
  }
}

// --- Offline optimum -------------------------------------------------------------

// Every integer schedule of up to 3 instances per site over the slots:
// operating + deployment + WAN + drops, the cheapest.
double brute_force(const SystemModel& model, const std::vector<double>& arrivals, std::int32_t start_a) {
  const Topology& t = model.topology();
  const double wan_per_packet = 0.05 * 1000 / 1e9;  // both sites' routes cross the one link once
  double best = INFINITY;
  const int choices = 16, slots = static_cast<int>(arrivals.size());
  for (int code = 0; code < static_cast<int>(std::pow(choices, slots)); ++code) {
    double cost = 0;
    int previous_a = start_a, previous_b = 0, rest = code;
    for (int slot = 0; slot < slots; ++slot) {
      const int a = rest % 4, b = (rest / 4) % 4;
      rest /= choices;
      const double served = std::min(arrivals[slot], 100.0 * (a + b));
      cost += t.sites[0].operating_price * a + t.sites[1].operating_price * b;
      cost += t.sites[0].deployment_price * std::max(0, a - previous_a) + t.sites[1].deployment_price * std::max(0, b - previous_b);
      cost += served * wan_per_packet + (arrivals[slot] - served) * 0.05;
      previous_a = a;
      previous_b = b;
    }
    best = std::min(best, cost);
  }
  return best;
}

// When every chain has one hop the online policy solves its slot chain by
// chain (one_hop_solver.h). On Abilene's April matrices (132 one-hop chains,
// 12 sites), with site capacity binding at the busy sites and the per-hop
// minimum at the small pairs, it reaches the optimum Ipopt reaches on the
// whole slot, slot after slot, from the same previous solution, within the
// sites' capacity.
TEST(OnlinePolicy, ChainByChainReachesIpoptsOptimumOnTheWholeSlot) {
  const Scenario abilene = test::abilene_scenario(100, 20);
  const auto& model = abilene.model;
  OnlineSettings settings;
  settings.max_capacity_resolves = 0;  // one slot problem per decision: the one compared
  OnlinePolicy fast(model, settings);
  settings.solver = OnlineSolver::ipopt;
  OnlinePolicy ipopt(model, settings);
  const Plan start = place_chains(model->topology(), 1, Placement::ingress);
  ScalerEnvironment env(model, abilene.test, start);
  env.reset(EpisodeSpec{0, 300, 4});
  int compared = 0, capacity_bound = 0, minimum_bound = 0;
  std::vector<double> per_site(model->sites());
  while (!env.done()) {
    const Observation& o = env.observation();
    const Forecast f = persistence_forecast(o, 1);
    fast.restore(ipopt.state());  // the same previous solution: the same problem
    fast.decide(o, f);
    const Plan plan = ipopt.decide(o, f);
    EXPECT_NE(fast.explain().find("chain by chain"), std::string::npos) << fast.explain();
    EXPECT_EQ(fast.explain().find("Ipopt"), std::string::npos) << "the prices settled: " << fast.explain();
    EXPECT_NE(ipopt.explain().find("Ipopt"), std::string::npos) << ipopt.explain();
    if (o.measured) {
      ++compared;
      EXPECT_NEAR(fast.slot_objective(), ipopt.slot_objective(), 5e-4 * std::abs(ipopt.slot_objective())) << "slot " << o.slot;
      EXPECT_LE(fast.slot_objective(), ipopt.slot_objective() * (1 + 5e-4)) << "slot " << o.slot;
    }
    std::fill(per_site.begin(), per_site.end(), 0.0);
    for (std::size_t pool = 0; pool < fast.fractional().size(); ++pool) per_site[pool % model->sites()] += fast.fractional()[pool];
    for (double used : per_site) {
      EXPECT_LE(used, 20 * (1 + 1e-6));
      capacity_bound += used > 20 - 1e-3;
    }
    for (std::size_t c = 0; c < model->chains(); ++c)
      minimum_bound += o.arrival_pps[c] < 0.9 * model->service_rate_pps(c) / 2 && o.measured;
    env.step(plan);
  }
  EXPECT_GE(compared, 3);
  EXPECT_GT(capacity_bound, 0) << "no site was full: the prices were not exercised";
  EXPECT_GT(minimum_bound, 0) << "no chain was small enough for its minimum to bind";
}

TEST(OfflineOptimum, EqualsBruteForceOnATinyInstanceAndTheLpBoundsItFromBelow) {
  auto model = two_sites(3);
  ArrivalSchedule arrivals;
  arrivals.chains = 1;
  arrivals.pps = {150, 320, 90, 260};
  const Plan start{{PoolPlan{0, 0, 0, 1, 1.0}}};
  OfflineSettings settings;
  settings.slot.site_capacity = {3, 3};
  settings.slot.candidates = CandidateSites::within_sla;
  const OfflineResult mip = solve_offline(*model, arrivals, start, settings);
  ASSERT_TRUE(mip.solved) << mip.status;
  EXPECT_TRUE(mip.optimal);
  const double expected = brute_force(*model, arrivals.pps, 1);
  EXPECT_NEAR(mip.cost, expected, 1e-6 * expected);
  for (const auto& slot : mip.instances)
    for (double n : slot) EXPECT_NEAR(n, std::round(n), 1e-6);
  settings.integer = false;
  const OfflineResult lp = solve_offline(*model, arrivals, start, settings);
  ASSERT_TRUE(lp.solved) << lp.status;
  EXPECT_LE(lp.cost, mip.cost + 1e-9);
  EXPECT_GT(lp.cost, 0.5 * mip.cost);
  // Chain by chain without the site rows: lower still (here: one chain, no site binds at 3 + 3... equal or lower).
  settings.by_chain = true;
  const OfflineResult relaxed = solve_offline(*model, arrivals, start, settings);
  ASSERT_TRUE(relaxed.solved);
  EXPECT_LE(relaxed.cost, lp.cost + 1e-9);
  // With whole instances chain by chain: a bound between that LP and the optimum.
  settings.integer = true;
  const OfflineResult integral = solve_offline(*model, arrivals, start, settings);
  ASSERT_TRUE(integral.bounded) << integral.status;
  EXPECT_GE(integral.bound, relaxed.bound - 1e-9);
  EXPECT_LE(integral.bound, mip.cost * (1 + 1e-6));
  EXPECT_TRUE(mip.bounded);
  EXPECT_NEAR(mip.bound, mip.cost, 1e-6 * mip.cost);
}

}  // namespace
}  // namespace nfv
