// The scaler's foundations: the one cost model, plan validation, the fluid
// simulator (conservation on a real trace, drops, late traffic, per-slot
// p99), the threshold policy and calibration files.
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

// --- Cost model ----------------------------------------------------------------

TEST(CostModel, AddsTheFourTermsAtTheTopologysPrices) {
  // Prices: A operating 2, deploying 7; B operating 3, deploying 11; link 0.05/GB;
  // SLA 10 per GB at 1000-B packets.
  // operating  = 2 x 2 (A) + 3 x 1 (B)        = 7
  // deployment = 7 x 1 (A) + 11 x 0 (B)       = 7
  // wan        = 0.05 x 4e9 B / 1e9           = 0.2
  // sla        = 10 x (1e6 + 5e5) x 1000 B / 1e9 = 15
  // total      = 29.2
  const Topology t = two_sites(1000);
  const CostModel model(t, SlaPenalty{SlaPenalty::Basis::per_gb, 10}, 1000);
  SlotUsage usage{{2, 1}, {1, 0}, {4e9}, 1e6, 5e5};
  const CostBreakdown cost = model.slot_cost(usage);
  EXPECT_DOUBLE_EQ(cost.operating, 7);
  EXPECT_DOUBLE_EQ(cost.deployment, 7);
  EXPECT_DOUBLE_EQ(cost.wan, 0.2);
  EXPECT_DOUBLE_EQ(cost.sla_penalty, 15);
  EXPECT_DOUBLE_EQ(cost.total(), 29.2);
  // Per packet: 1e-5 x 1.5e6 packets = 15, the same.
  const CostModel per_packet(t, SlaPenalty{SlaPenalty::Basis::per_packet, 1e-5}, 1000);
  EXPECT_DOUBLE_EQ(per_packet.slot_cost(usage).sla_penalty, 15);
}

TEST(CostModel, RejectsUsageOfAnotherTopology) {
  const CostModel model(two_sites(1000), SlaPenalty{}, 1000);
  EXPECT_THROW(model.slot_cost(SlotUsage{{1}, {0}, {0}, 0, 0}), std::invalid_argument);
}

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

// --- Fluid simulator ---------------------------------------------------------

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

// --- Plan validation -------------------------------------------------------------

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& problem : problems)
    if (problem.find(text) != std::string::npos) return true;
  return false;
}

TEST(PlanValidation, AValidPlanHasNoProblems) {
  EXPECT_TRUE(plan_problems(one_pool(0, 3), two_sites(1000)).empty());
}

TEST(PlanValidation, NamesEveryMistake) {
  const Topology t = two_sites(1000);
  const Plan plan{{
      PoolPlan{0, 0, 0, -2, 0.5},   // negative instances
      PoolPlan{0, 0, 1, 1, 0.25},   // with the above: splits sum to 0.75
      PoolPlan{3, 0, 0, 1, 1.0},    // unknown chain
      PoolPlan{0, 4, 0, 1, 1.0},    // unknown hop
      PoolPlan{0, 0, 9, 1, 1.0},    // unknown site
      PoolPlan{0, 0, 1, 1, 0.0},    // listed twice
  }};
  const auto problems = plan_problems(plan, t);
  EXPECT_TRUE(mentions(problems, "chain 'web' hop 1 at site 'A': negative instances (-2)"));
  EXPECT_TRUE(mentions(problems, "chain 'web' hop 1: splits sum to 0.75"));
  EXPECT_TRUE(mentions(problems, "pools[2]: unknown chain 3 (the system has 1 chains)"));
  EXPECT_TRUE(mentions(problems, "pools[3]: chain 'web' has no hop 5 (it has 1)"));
  EXPECT_TRUE(mentions(problems, "pools[4]: unknown site 9 (the system has 2 sites)"));
  EXPECT_TRUE(mentions(problems, "pools[5]: chain 'web' hop 1 at site 'B' is listed twice"));
}

TEST(PlanValidation, RejectsMoreInstancesThanASiteHostsAndSplitsOutsideZeroToOne) {
  const auto problems = plan_problems(Plan{{PoolPlan{0, 0, 0, 17, 1.5}, PoolPlan{0, 0, 1, 0, -0.5}}}, two_sites(1000));
  EXPECT_TRUE(mentions(problems, "site 'A': 17 instances planned, capacity 16"));
  EXPECT_TRUE(mentions(problems, "split 1.5"));
  EXPECT_TRUE(mentions(problems, "split -0.5"));
}

TEST(PlanValidation, TheSimulatorRefusesAnInvalidPlanNamingTheProblem) {
  auto model = std::make_shared<const SystemModel>(two_sites(1000), settings(1000, 64));
  FluidSimulator sim(model);
  sim.reset(one_pool(0, 1));
  const double arrivals[] = {1};
  try {
    sim.step(one_pool(0, -1), arrivals);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("slot 0: invalid plan"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("negative instances"), std::string::npos) << error.what();
  }
}

// --- Threshold policy ---------------------------------------------------------------

Observation observed(std::int32_t instances, double utilisation) {
  Observation obs;
  obs.plan = one_pool(0, instances);
  obs.pools.push_back(PoolLoad{0, 0, 0, instances, utilisation * instances * 100, 0, 0, utilisation, 0});
  return obs;
}

TEST(ThresholdPolicy, FollowsKubernetesHpaSemantics) {
  // 100 pkt/s per instance, target 0.5, tolerance 0.1, scale-down window 3
  // slots, at most +4 / -1 per slot, 1..10 instances.
  ThresholdSettings settings{0.5, 0.1, 3, 4, 1, 1, 10};
  auto policy = make_threshold_policy(two_sites(100), settings);
  const Forecast none;
  auto decide = [&](std::int32_t current, double utilisation) {
    return policy->decide(observed(current, utilisation), none).pools.at(0).instances;
  };
  EXPECT_EQ(decide(2, 0.9), 4);    // ceil(2 x 0.9 / 0.5) = ceil(3.6) = 4
  EXPECT_EQ(decide(4, 0.53), 4);   // 0.53 / 0.5 = 1.06: inside the 0.1 tolerance
  EXPECT_EQ(decide(4, 0.2), 4);    // wants ceil(1.6) = 2, but 4 was recommended in the window
  EXPECT_EQ(decide(4, 0.2), 4);    // window: 4 (tolerance slot), 2, 2
  EXPECT_EQ(decide(4, 0.2), 3);    // window: 2, 2, 2 -> down, at most 1 per slot
  EXPECT_EQ(decide(3, 0.8 / 3), 2);  // ceil(3 x 0.267 / 0.5) = ceil(1.6) = 2
  EXPECT_EQ(decide(2, 5.0), 6);    // wants 20: capped at max 10, then +4 per slot
  EXPECT_EQ(decide(10, 0.01), 10); // the recommendation of 10 two slots ago is still in the window
  policy->reset();
  EXPECT_EQ(decide(10, 0.01), 9);  // no history after reset: down 1
}

TEST(ThresholdPolicy, SizesAnEmptyPoolForItsLoadAndStaysWithinTheSite) {
  ThresholdSettings settings{0.5, 0.1, 1, 100, 1, 0, 100};
  auto policy = make_threshold_policy(two_sites(100), settings);
  Observation obs;
  obs.plan = one_pool(0, 0);
  obs.pools.push_back(PoolLoad{0, 0, 0, 0, 450, 0, 0, INFINITY, 0});
  EXPECT_EQ(policy->decide(obs, Forecast{}).pools[0].instances, 9);  // 450 / (100 x 0.5)
  obs.pools[0].offered_pps = 5000;                                   // would need 100
  EXPECT_EQ(policy->decide(obs, Forecast{}).pools[0].instances, 16);  // site A hosts 16
}

// --- Calibration -------------------------------------------------------------------

TEST(Calibration, OverridesServiceRatesAndLinkDelays) {
  Topology t = two_sites(1000);
  const auto applied = apply_calibration(parse_calibration(R"(measured: bench on this machine
vnf_rates:
  - {vnf: fw, service_rate_pps: 2500}
link_delays:
  - {from: B, to: A, delay_ms: 12.5}
)", "cal.yaml"), t);
  EXPECT_EQ(applied.size(), 2u);
  EXPECT_DOUBLE_EQ(t.vnf_types[0].service_rate_pps, 2500);
  EXPECT_DOUBLE_EQ(t.links[0].delay_ms, 12.5);
  EXPECT_TRUE(t.links[0].delay_given);
}

TEST(Calibration, ErrorsNameTheFileLineAndField) {
  Topology t = two_sites(1000);
  try {
    apply_calibration(parse_calibration("vnf_rates:\n  - {vnf: fw, service_rate_pps: 1}\n  - {vnf: nat, service_rate_pps: 5}\n",
                                        "cal.yaml"),
                      t);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cal.yaml:3: vnf_rates[1].vnf"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no 'nat'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_calibration("vnf_rate: []\n", "cal.yaml"), std::runtime_error);
}

// A pod's stats with one hop of `vnf` at site A: its configured limit, and
// packets and busy cycles (TSC at 1 GHz) measured on one instance.
stats::PodStats pod_with_hop(const std::string& vnf, double limit, std::uint64_t packets, std::uint64_t busy_cycles) {
  stats::PodStats pod;
  pod.set_pod("p");
  pod.set_tsc_hz(1'000'000'000);
  auto* hop = pod.add_hops();
  hop->set_chain("web");
  hop->set_hop(1);
  hop->set_site("A");
  hop->set_vnf(vnf);
  hop->set_service_rate_pps(limit);
  hop->set_queue_packets(512);
  auto* instance = hop->add_instances();
  instance->set_in_packets(packets);
  instance->set_busy_cycles(busy_cycles);
  auto* link = pod.add_links();
  link->set_from_site("A");
  link->set_to_site("B");
  link->set_delay_ms(12.25);
  return pod;
}

TEST(PodCalibration, TakesTheConfiguredLimitOrTheCoresRateWhicheverIsLower) {
  // 100,000 packets in 50 ms of busy cycles: the core alone does 2 Mpps.
  const auto limited = calibrate_from_pods({pod_with_hop("fw", 2500, 100000, 50'000'000)});
  ASSERT_EQ(limited.calibration.vnf_rates_size(), 1);
  EXPECT_DOUBLE_EQ(limited.calibration.vnf_rates(0).service_rate_pps(), 2500);
  EXPECT_NE(limited.calibration.vnf_rates(0).derived().find("configured limit"), std::string::npos);
  // A limit above what the core manages: the core's rate.
  const auto core_bound = calibrate_from_pods({pod_with_hop("fw", 5e6, 100000, 50'000'000)});
  EXPECT_DOUBLE_EQ(core_bound.calibration.vnf_rates(0).service_rate_pps(), 2e6);
  // No limit and too few packets to time: left out, with a warning.
  const auto unmeasured = calibrate_from_pods({pod_with_hop("fw", 0, 10, 5000)});
  EXPECT_EQ(unmeasured.calibration.vnf_rates_size(), 0);
  ASSERT_EQ(unmeasured.warnings.size(), 1u);
  EXPECT_NE(unmeasured.warnings[0].find("too few packets"), std::string::npos) << unmeasured.warnings[0];
  EXPECT_THROW(calibrate_from_pods({}), std::invalid_argument);
}

TEST(PodCalibration, ItsFileReadsBackAndCalibratesTheTopology) {
  const auto result = calibrate_from_pods({pod_with_hop("fw", 2500, 100000, 50'000'000)});
  EXPECT_EQ(result.calibration.queue_packets_per_instance(), 512);
  Topology t = two_sites(1000);
  const LoadedCalibration loaded = parse_calibration(calibration_to_yaml(result.calibration), "cal.yaml");
  EXPECT_EQ(loaded.message.queue_packets_per_instance(), 512);
  apply_calibration(loaded, t);
  EXPECT_DOUBLE_EQ(t.vnf_types[0].service_rate_pps, 2500);
  EXPECT_DOUBLE_EQ(t.links[0].delay_ms, 12.25);
}

// --- Plan files ------------------------------------------------------------------

TEST(PlanFile, ReadsNamesAndSplitsInProportionToInstancesByDefault) {
  Topology t = two_sites(1000);
  const Plan plan = parse_plan_file("pools:\n  - {chain: web, hop: 1, site: A, instances: 3}\n"
                                    "  - {chain: web, hop: 1, site: B, instances: 1}\n",
                                    "plan.yaml", t);
  ASSERT_EQ(plan.pools.size(), 2u);
  EXPECT_EQ(plan.pools[0].site, 0u);
  EXPECT_EQ(plan.pools[0].hop, 0u);
  EXPECT_EQ(plan.pools[0].instances, 3);
  EXPECT_DOUBLE_EQ(plan.pools[0].split, 0.75);
  EXPECT_DOUBLE_EQ(plan.pools[1].split, 0.25);
  const Plan given = parse_plan_file("pools:\n  - {chain: web, hop: 1, site: A, instances: 3, split: 0.5}\n"
                                     "  - {chain: web, hop: 1, site: B, instances: 1, split: 0.5}\n",
                                     "plan.yaml", t);
  EXPECT_DOUBLE_EQ(given.pools[0].split, 0.5);
}

TEST(PlanFile, ErrorsNameTheFileLineAndField) {
  Topology t = two_sites(1000);
  const auto error_of = [&](const std::string& text) {
    try {
      parse_plan_file(text, "plan.yaml", t);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 1, site: A, instances: 1}\n  - {chain: mail, hop: 1, site: A}\n")
                .find("plan.yaml:3: pools[1].chain"),
            std::string::npos);
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 2, site: A, instances: 1}\n").find("pools[0].hop: expected a hop of chain web, 1..1"),
            std::string::npos)
      << error_of("pools:\n  - {chain: web, hop: 2, site: A, instances: 1}\n");
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 1, site: Z, instances: 1}\n").find("pools[0].site"), std::string::npos);
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 1, site: A, instances: -1}\n").find("pools[0].instances"),
            std::string::npos);
  // Valid names, but the splits of the hop add up to 0.6.
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 1, site: A, instances: 1, split: 0.6}\n").find("plan.yaml: the plan is not valid"),
            std::string::npos);
  EXPECT_NE(error_of("pool: []\n").find("plan.yaml:1"), std::string::npos) << error_of("pool: []\n");
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
