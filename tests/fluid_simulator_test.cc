// The fluid simulator: a slot priced by hand, conservation on a real trace,
// drops, late traffic, latency and its p99, splits over the WAN, and each
// chain's and site's share of a slot's cost.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "calibration.h"
#include "cost_model.h"
#include "episode.h"
#include "scaler_cases.h"
#include "plan.h"
#include "plan_file.h"
#include "pod_calibration.h"
#include "policy.h"
#include "rate_trace.h"
#include "simulator.h"
#include "topology.h"

namespace nfv {
namespace {

using test::one_pool;
using test::two_sites;

std::string shared(const std::string& relative) { return shared_data_path(relative); }

SimSettings settings(double packet_bytes, double queue_packets) { return test::sim_settings(packet_bytes, queue_packets); }

TEST(FluidSimulator, PricesASlotAsComputedByHand) {
  // 1500 pkt/s for 1 s through 2 instances of 1000 pkt/s at A, 1 ran before:
  // operating  = 2 instances x 2              = 4
  // deployment = 1 new instance x 7           = 7
  // wan        = 1500 x 1000 B = 1.5e6 B A->B = 0.0015 GB x 0.05 = 7.5e-5
  // sla        = nothing dropped; 10 ms to B plus an M/M/1 sojourn of mean
  //              1 / (1000 x (1 - 0.75)) = 4 ms: e^-10 of it past 50 ms
  auto model = std::make_shared<const SystemModel>(two_sites(1000), settings(1000, 64));
  FluidSimulator sim(model);
  sim.reset(one_pool(0, 1));
  const double arrivals[] = {1500};
  const SlotOutcome& out = sim.step(one_pool(0, 2), arrivals);
  EXPECT_DOUBLE_EQ(out.cost.operating, 4);
  EXPECT_DOUBLE_EQ(out.cost.deployment, 7);
  EXPECT_NEAR(out.cost.wan, 7.5e-5, 1e-15);
  EXPECT_NEAR(out.cost.sla_penalty, model->cost_model().sla_penalty(1500 * std::exp(-10.0)), 1e-15);
  EXPECT_DOUBLE_EQ(out.total.delivered, 1500);
  EXPECT_DOUBLE_EQ(out.observation.links[0].mbps, 12);  // 1.5e6 B x 8 / 1 s
  // The same plan again starts nothing.
  EXPECT_DOUBLE_EQ(sim.step(one_pool(0, 2), arrivals).cost.deployment, 0);
}

TEST(FluidSimulator, ChainBelowItsLoadDropsExactlyTheExcessOnceTheQueueIsFull) {
  // 1 instance of 1000 pkt/s, 1500 pkt/s offered, 200 packets of queue:
  // slot 0: 1000 served, 200 queued, 300 dropped;
  // then every slot: 200 + 1500 offered, 1000 served, 200 queued, 500 = the excess dropped.
  auto model = std::make_shared<const SystemModel>(two_sites(1000), settings(1000, 200));
  FluidSimulator sim(model);
  sim.reset(one_pool(0, 1));
  const double arrivals[] = {1500};
  const SlotOutcome& first = sim.step(one_pool(0, 1), arrivals);
  EXPECT_DOUBLE_EQ(first.total.delivered, 1000);
  EXPECT_DOUBLE_EQ(first.total.backlog, 200);
  EXPECT_DOUBLE_EQ(first.total.dropped, 300);
  for (int slot = 1; slot < 5; ++slot) {
    const SlotOutcome& out = sim.step(one_pool(0, 1), arrivals);
    EXPECT_DOUBLE_EQ(out.total.delivered, 1000) << "slot " << slot;
    EXPECT_DOUBLE_EQ(out.total.dropped, 500) << "slot " << slot;
    EXPECT_DOUBLE_EQ(out.total.backlog_change, 0) << "slot " << slot;
    ASSERT_EQ(out.observation.pools.size(), 1u);
    EXPECT_DOUBLE_EQ(out.observation.pools[0].utilisation, 1.7);  // (200 + 1500) / 1000
  }
  // A second instance drains the queue and drops nothing.
  const SlotOutcome& scaled = sim.step(one_pool(0, 2), arrivals);
  EXPECT_DOUBLE_EQ(scaled.total.delivered, 1700);
  EXPECT_DOUBLE_EQ(scaled.total.dropped, 0);
  EXPECT_DOUBLE_EQ(scaled.total.backlog, 0);
}

TEST(FluidSimulator, TrafficOverTheSlaLatencyIsLateAndPenalised) {
  // The hop at A, egress B 10 ms away, SLA 5 ms: every delivered packet is late.
  auto model = std::make_shared<const SystemModel>(two_sites(1000, 5), settings(1000, 64));
  FluidSimulator sim(model);
  sim.reset(one_pool(0, 1));
  const double arrivals[] = {500};
  const SlotOutcome& out = sim.step(one_pool(0, 1), arrivals);
  EXPECT_DOUBLE_EQ(out.total.late, 500);
  EXPECT_GT(out.total.mean_latency_ms, 10);
  EXPECT_DOUBLE_EQ(out.cost.sla_penalty, model->cost_model().sla_penalty(500));
}

TEST(FluidSimulator, LatencyIsPropagationPlusAnMm1SojournWithoutABacklogAndP99IsItsTail) {
  // One instance of 1000 pkt/s at half load: 10 ms to B plus an exponential
  // sojourn of mean 1 / (1000 x (1 - 0.5)) = 2 ms. p99 = 10 + 2 ln 100 ms;
  // with an SLA of 12 ms the late share is P(sojourn > 2 ms) = 1/e.
  auto model = std::make_shared<const SystemModel>(two_sites(1000, 12), settings(1000, 64));
  FluidSimulator sim(model);
  sim.reset(one_pool(0, 1));
  const double arrivals[] = {500};
  const SlotOutcome& out = sim.step(one_pool(0, 1), arrivals);
  const ChainTraffic& web = out.observation.chains[0];
  EXPECT_NEAR(web.mean_latency_ms, 12, 1e-9);
  EXPECT_NEAR(web.p99_latency_ms, 10 + 2 * std::log(100.0), 1e-4);
  EXPECT_NEAR(web.late, 500 * std::exp(-1.0), 1e-6);
}

TEST(FluidSimulator, ABacklogDrainingOverTheSlotMakesPacketsWaitUniformlyBehindIt) {
  // Slot 0 fills a 200-packet queue at one instance; slot 1 has two
  // instances and 500 arrivals: the backlog drains at 1500 packets/s in
  // 133 ms. The 200 queued packets wait behind it (100 ms at 2000/s), the
  // 66.7 arrivals of those 133 ms behind a backlog between 100 and 0 ms,
  // the 433.3 after it behind none; one service time (1 ms) each; 10 ms to
  // B. Over a 50 ms SLA: the 200, and 61% of the 66.7.
  auto model = std::make_shared<const SystemModel>(two_sites(1000, 50), settings(1000, 200));
  FluidSimulator sim(model);
  sim.reset(one_pool(0, 1));
  const double busy[] = {1500}, light[] = {500};
  sim.step(one_pool(0, 1), busy);
  const SlotOutcome& out = sim.step(one_pool(0, 2), light);
  const ChainTraffic& web = out.observation.chains[0];
  ASSERT_DOUBLE_EQ(web.delivered, 700);
  const double ramp = 500 * (200.0 / 1500);  // arrivals while the backlog drained
  EXPECT_NEAR(web.late, 200 + ramp * 0.61, 1e-6);
  EXPECT_NEAR(web.mean_latency_ms, 10 + 1 + (200 * 100 + ramp * 50) / 700, 1e-9);
  // p99: the 200 queued packets are 28.6% of the slot's: 111 ms.
  EXPECT_NEAR(web.p99_latency_ms, 10 + 1 + 100, 1e-3);
}

TEST(FluidSimulator, SplitsSendSharesToSitesAndOnlyTheRemoteShareCrossesTheWan) {
  auto model = std::make_shared<const SystemModel>(two_sites(1000), settings(1000, 64));
  FluidSimulator sim(model);
  const Plan split{{PoolPlan{0, 0, 0, 1, 0.25}, PoolPlan{0, 0, 1, 1, 0.75}}};
  sim.reset(split);
  const double arrivals[] = {800};
  const SlotOutcome& out = sim.step(split, arrivals);
  // 200 served at A then sent to B; 600 sent to B then served there.
  EXPECT_DOUBLE_EQ(out.usage.bytes_per_link[0], 800 * 1000.0);
  double served_at_b = 0;
  for (const PoolLoad& pool : out.observation.pools)
    if (pool.site == 1) served_at_b = pool.served_pps;
  EXPECT_DOUBLE_EQ(served_at_b, 600);
}

// Abilene April, all 132 OD pairs as two-hop chains along their shortest
// path, at 10x the real volume so that pools overflow and queue.
TEST(FluidSimulator, ConservesTrafficOnEverySlotOfTheAbileneAprilTrace) {
  const RateTraceFile file = load_abilene_traffic(shared("traffic/abilene/abilene_tm_5min_mbps.csv"));
  const RateTrace& april = file.blocks.back();
  Topology topology = load_topology_yaml(std::string(NFV_SOURCE_ROOT) + "/topologies/data/abilene.yaml");
  topology.chains = chains_for_od_pairs(april, topology, {"counter", "forward"}, 60);
  for (Site& site : topology.sites) site.instance_capacity = 0;  // unlimited: the threshold policy may grow freely
  SimSettings s;
  s.scale.trace_step_seconds = april.step_seconds;
  s.scale.volume_scale = 10;
  auto model = std::make_shared<const SystemModel>(topology, s);
  auto arrivals = std::make_shared<const ArrivalSchedule>(arrivals_for_chains(april, topology, s.scale));
  const PolicyParams params{{"placement", "path"}};
  std::size_t slots = 0, chain_slots_checked = 0;
  double dropped = 0, max_backlog = 0;
  simulate(model, arrivals, make_policy("threshold", params, model), starting_plan(params, model->topology()),
           ForecastSpec{}, 1, [&](const SlotRecord& record) {
             ++slots;
             ChainTraffic total;
             for (std::size_t c = 0; c < record.report.observation.chains.size(); ++c) {
               const ChainTraffic& t = record.report.observation.chains[c];
               ASSERT_NEAR(t.arrived, t.delivered + t.dropped + t.backlog_change, 1e-9 * std::max(1.0, t.arrived))
                   << "slot " << record.slot << " chain " << topology.chains[c].name;
               ++chain_slots_checked;
               total += t;
             }
             ASSERT_NEAR(total.arrived, total.delivered + total.dropped + total.backlog_change, 1e-9 * total.arrived);
             dropped += total.dropped;
             max_backlog = std::max(max_backlog, total.backlog);
           });
  EXPECT_EQ(slots, 864u);
  EXPECT_EQ(chain_slots_checked, 864u * 132u);
  // Not a vacuous check: the run really overflowed and queued.
  EXPECT_GT(dropped, 0);
  EXPECT_GT(max_backlog, 0);
}

// Each chain's share of a slot's cost (what learning policies credit each
// chain with) adds up to the slot's cost, term by term, on Abilene's April
// traffic under online's plans, which use the WAN and drop some traffic; so
// do the sites' shares (what per-site agents learn from).
TEST(FluidSimulator, ChainAndSiteCostsAddUpToTheSlotCost) {
  if (!policy_names().contains("online")) GTEST_SKIP() << "built without Ipopt: no online policy to make the plans";
  const Scenario scenario = test::abilene_scenario(200);
  FluidSimulator simulator(scenario.model);
  auto online = make_policy("online", {}, PolicyContext(scenario.model, scenario.test->mapping));
  Plan plan = place_chains(scenario.model->topology(), 1, Placement::ingress);
  simulator.reset(plan, 0);
  CostBreakdown sum_of_slots;
  for (std::size_t slot = 0; slot < 40; ++slot) {
    const SlotOutcome& outcome = simulator.step(plan, scenario.test->slot(slot));
    CostBreakdown chains;
    for (const CostBreakdown& c : outcome.chain_cost) chains += c;
    EXPECT_NEAR(chains.operating, outcome.cost.operating, 1e-9 * (1 + outcome.cost.operating));
    EXPECT_NEAR(chains.deployment, outcome.cost.deployment, 1e-9 * (1 + outcome.cost.deployment));
    EXPECT_NEAR(chains.wan, outcome.cost.wan, 1e-9 * (1 + outcome.cost.wan));
    EXPECT_NEAR(chains.sla_penalty, outcome.cost.sla_penalty, 1e-9 * (1 + outcome.cost.sla_penalty));
    CostBreakdown sites;
    for (const CostBreakdown& c : outcome.site_cost) sites += c;
    EXPECT_NEAR(sites.operating, outcome.cost.operating, 1e-9 * (1 + outcome.cost.operating));
    EXPECT_NEAR(sites.deployment, outcome.cost.deployment, 1e-9 * (1 + outcome.cost.deployment));
    EXPECT_NEAR(sites.wan, outcome.cost.wan, 1e-9 * (1 + outcome.cost.wan));
    EXPECT_NEAR(sites.sla_penalty, outcome.cost.sla_penalty, 1e-9 * (1 + outcome.cost.sla_penalty));
    sum_of_slots += outcome.cost;
    plan = online->decide(outcome.observation, persistence_forecast(outcome.observation, 1));
  }
  EXPECT_GT(sum_of_slots.wan, 0);
  EXPECT_GT(sum_of_slots.deployment, 0);
  EXPECT_GT(sum_of_slots.sla_penalty, 0);
}

}  // namespace
}  // namespace nfv
