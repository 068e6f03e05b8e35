// The one slot loop and what plugs into it: policies registered by name,
// forecasts by name (persistence, the true arrivals, any predictor through
// the trace mapping), the loop's guards (no decision before a measurement,
// limits, sites down, the last good plan), and that nfv-sim's run and the scaler
// service's run of the same policy are the same run.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "episode.h"
#include "forecaster.h"
#include "journal.h"
#include "policy.h"
#include "predictor.h"
#include "scaler_cases.h"
#include "option_values.h"
#include "scaler_service.h"
#include "site_limits.h"

namespace nfv {
namespace {

using test::abilene_scenario;
using test::source_path;

TEST(ParamReader, AKnownKeyEndingInADotTakesTheKeysItBeginsAndOnlyThose) {
  const std::set<std::string> known{"guard", "guard."};
  const NamedParams params{{"guard", "online"}, {"guard.utilisation", "0.75"}, {"guard.candidates", "plan"}};
  const ParamReader reader("policy drl", params, known);
  EXPECT_EQ(reader.prefixed("guard."), (NamedParams{{"utilisation", "0.75"}, {"candidates", "plan"}}));
  EXPECT_EQ(reader.text("guard", ""), "online");
  for (const char* bad : {"guard.", "guardx", "guar"}) {
    try {
      ParamReader("policy drl", NamedParams{{bad, "1"}}, known);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("unknown parameter '") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(PolicyRegistry, PoliciesRegisterThemselvesAndUnknownNamesListTheKnownOnes) {
  const auto names = policy_names();
  for (const char* name : {"static", "threshold", "online"}) EXPECT_TRUE(names.count(name)) << name;
  const auto model = std::make_shared<const SystemModel>(test::two_sites(100), test::sim_settings(1000, 100));
  EXPECT_EQ(make_policy("static", {{"instances", "3"}}, model)->decide(Observation{}, Forecast{}).total_instances(), 3);
  try {
    make_policy("threshold", {{"targett", "0.5"}}, model);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("policy threshold: unknown parameter 'targett' (known: instances, max, max_down"),
              std::string::npos)
        << e.what();
  }
  // This test links no learning library: a learning policy is simply unknown here.
  try {
    make_policy("drl", {}, model);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown policy 'drl' (known: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("online"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_policy("threshold", {{"target", "high"}}, model), std::invalid_argument);
  EXPECT_THROW(make_policy("online", {{"epsilon", "0"}}, model), std::invalid_argument);
  EXPECT_THROW(make_policy("static", {{"placement", "nowhere"}}, model), std::invalid_argument);
  EXPECT_EQ(make_policy("online", {{"epsilon", "0.5"}}, model)->name(), "online");
}

TEST(Linking, TheTorchFreeScalerDoesNotLoadLibTorch) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) EXPECT_EQ(line.find("libtorch"), std::string::npos) << line;
}

TEST(Forecaster, PersistenceOracleAndPredictorsByNameThroughTheTraceMapping) {
  const Scenario abilene = abilene_scenario(10);
  const auto& model = abilene.model;
  const auto& arrivals = abilene.test;
  Forecaster persistence(ForecastSpec{}, *model, arrivals->mapping);
  Forecaster oracle(ForecastSpec{"oracle", {}}, *model, arrivals->mapping, arrivals);
  Forecaster ewma(ForecastSpec{"ewma", {{"alpha", "1"}}}, *model, arrivals->mapping);
  // Nothing measured yet: nothing forecast (but the oracle knows).
  EXPECT_EQ(persistence.forecast(0, 2).mean(3, 0), 0.0);
  EXPECT_DOUBLE_EQ(oracle.forecast(0, 2).mean(3, 1), arrivals->slot(1)[3]);
  for (std::size_t slot = 0; slot < 5; ++slot) {
    for (Forecaster* f : {&persistence, &oracle, &ewma}) f->observe(arrivals->slot(slot), slot);
    const Forecast p = persistence.forecast(slot + 1, 3), o = oracle.forecast(slot + 1, 3), e = ewma.forecast(slot + 1, 3);
    for (std::size_t c = 0; c < model->chains(); c += 13) {
      EXPECT_DOUBLE_EQ(p.mean(c, 2), arrivals->slot(slot)[c]);
      EXPECT_DOUBLE_EQ(o.mean(c, 2), arrivals->slot(slot + 3)[c]);
      // EWMA with alpha 1 is the last rate: in Mbit/s inside, packets/s out.
      EXPECT_NEAR(e.mean(c, 0), arrivals->slot(slot)[c], 1e-9 * (1 + arrivals->slot(slot)[c]));
    }
  }
  // Past the trace's end the oracle repeats the last slot.
  const std::size_t last = arrivals->slots() - 1;
  EXPECT_DOUBLE_EQ(oracle.forecast(last, 4).mean(0, 3), arrivals->slot(last)[0]);
  EXPECT_THROW(Forecaster(ForecastSpec{"oracle", {}}, *model, arrivals->mapping), std::invalid_argument);
  EXPECT_THROW(Forecaster(ForecastSpec{"crystal_ball", {}}, *model, arrivals->mapping), std::invalid_argument);
  EXPECT_THROW(Forecaster(ForecastSpec{"ewma", {{"alhpa", "0.5"}}}, *model, arrivals->mapping), std::invalid_argument);
  const ForecastSpec parsed = parse_forecast_spec("holt_winters:alpha=0.3,season=96");
  EXPECT_EQ(parsed.model, "holt_winters");
  EXPECT_EQ(parsed.params.at("season"), "96");
  EXPECT_EQ(forecast_spec_text(parsed), "holt_winters:alpha=0.3,season=96");
  // One alpha per chain: the pieces without '=' belong to the value before them.
  const ForecastSpec per_chain = parse_forecast_spec("ewma:alpha=0.3,0.5,0.7,season=4");
  EXPECT_EQ(per_chain.params.at("alpha"), "0.3,0.5,0.7");
  EXPECT_EQ(per_chain.params.at("season"), "4");
  EXPECT_THROW(parse_forecast_spec("ewma:0.3"), std::invalid_argument);
}

TEST(SlotLoop, KeepsThePlanInForceUntilASlotIsMeasuredThenLetsThePolicyDecide) {
  const Scenario abilene = abilene_scenario(10);
  const auto& model = abilene.model;
  const Plan start = place_chains(model->topology(), 2, Placement::ingress);
  std::vector<SlotRecord> records;
  simulate(model, abilene.test, make_policy("threshold", {}, model), start, ForecastSpec{}, 1,
           [&](const SlotRecord& r) { records.push_back(r); });
  ASSERT_EQ(records.size(), abilene.test->slots());
  EXPECT_FALSE(records[0].decided);
  EXPECT_NE(records[0].reason.find("no slot measured yet"), std::string::npos) << records[0].reason;
  EXPECT_EQ(records[0].plan.total_instances(), start.total_instances());
  for (std::size_t t = 1; t < records.size(); ++t) {
    ASSERT_TRUE(records[t].decided) << "slot " << t << ": " << records[t].error;
    ASSERT_EQ(records[t].slot, t);
    ASSERT_TRUE(records[t].error.empty());
  }
}

// A site down (its pod does not answer) has no capacity: its pools go to
// the hop's pools at sites up, which take its share and its instances, or,
// for a hop with none, to the site up nearest the hops around it within the
// chain's SLA. A hop that no site up can serve within its SLA stays.
TEST(SiteLimits, ASiteDownLeavesItsPoolsToTheSitesUpWithinTheSla) {
  const std::string path = ::testing::TempDir() + "/site_down_topology.yaml";
  std::ofstream(path) << R"(name: triangle
sites:
  - {name: NYCMng, lat: 40.7833, lon: -73.9667, instance_capacity: 16}
  - {name: CHINng, lat: 41.8333, lon: -87.6167, instance_capacity: 16}
  - {name: KSCYng, lat: 38.961694, lon: -96.596704, instance_capacity: 16}
links:
  - {from: NYCMng, to: CHINng, route_factor: 1.3}
  - {from: CHINng, to: KSCYng, route_factor: 1.3}
  - {from: NYCMng, to: KSCYng, route_factor: 1.3}
vnf_types:
  - {name: forward, service_rate_pps: 6000}
chains:
  - {name: video, ingress: NYCMng, egress: KSCYng, vnfs: [forward, forward], sla_latency_ms: 50}
  - {name: calls, ingress: NYCMng, egress: KSCYng, vnfs: [forward], sla_latency_ms: 50}
  - {name: tight, ingress: NYCMng, egress: KSCYng, vnfs: [forward], sla_latency_ms: 5}
)";
  const Topology topology = load_topology_yaml(path);
  const auto site = [&](const char* name) { return static_cast<std::uint32_t>(topology.site_index(name)); };
  Plan plan;
  plan.pools = {{0, 0, site("NYCMng"), 3, 1.0}, {0, 1, site("CHINng"), 4, 1.0},
                {1, 0, site("CHINng"), 2, 0.5}, {1, 0, site("KSCYng"), 2, 0.5}, {2, 0, site("CHINng"), 1, 1.0}};
  SiteLimits limits;
  limits.down = {0, 1, 0};
  const std::string reason = enforce_site_limits(plan, topology, limits);
  const auto pools_of = [&](std::uint32_t chain) {
    std::vector<PoolPlan> found;
    for (const PoolPlan& p : plan.pools)
      if (p.chain == chain) found.push_back(p);
    return found;
  };
  // calls: all at KSCYng, with CHINng's share and instances.
  ASSERT_EQ(pools_of(1).size(), 1u) << reason;
  EXPECT_EQ(pools_of(1)[0].site, site("KSCYng"));
  EXPECT_EQ(pools_of(1)[0].instances, 4);
  EXPECT_DOUBLE_EQ(pools_of(1)[0].split, 1.0);
  // video's second hop: a site up, its instances kept.
  const auto video = pools_of(0);
  ASSERT_EQ(video.size(), 2u) << reason;
  EXPECT_NE(video[1].site, site("CHINng")) << reason;
  EXPECT_EQ(video[1].hop, 1u);
  EXPECT_EQ(video[1].instances, 4);
  // tight: no site up within 5 ms of both ends, so it stays, and says so.
  ASSERT_EQ(pools_of(2).size(), 1u);
  EXPECT_EQ(pools_of(2)[0].site, site("CHINng"));
  EXPECT_NE(reason.find("tight hop 1 has no site up within its SLA"), std::string::npos) << reason;
  EXPECT_NE(reason.find("calls hop 1 moved to KSCYng"), std::string::npos) << reason;
  EXPECT_TRUE(plan_problems(plan, topology).empty());

  // Only where the system can run the hop (pods run their configs' placements).
  Plan placed;
  placed.pools = {{0, 0, site("NYCMng"), 3, 1.0}, {0, 1, site("CHINng"), 4, 1.0}};
  limits.runs_pool = [&](std::size_t, std::size_t hop, std::size_t at) { return hop == 0 || at != site("NYCMng"); };
  (void)enforce_site_limits(placed, topology, limits);
  ASSERT_EQ(placed.pools.size(), 2u);
  EXPECT_EQ(placed.pools[1].site, site("KSCYng"));
  limits.runs_pool = [&](std::size_t, std::size_t hop, std::size_t at) { return hop == 0 || at == site("CHINng"); };
  placed.pools = {{0, 0, site("NYCMng"), 3, 1.0}, {0, 1, site("CHINng"), 4, 1.0}};
  EXPECT_NE(enforce_site_limits(placed, topology, limits).find("video hop 2 has no site up"), std::string::npos);
}

// The scaler service (simulator backend) and nfv-sim's simulate() run the
// same loop: the same policy and forecast over the same trace give the same
// plans and costs, slot by slot; both warm the forecaster up on the rows
// before the first one run.
TEST(SlotLoop, TheScalerServiceAndTheSimulatorToolRunTheSameLoop) {
  char pattern[] = "/tmp/nfv-loop-test-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const Topology demo = load_topology_yaml(source_path("topologies/data/demo3.yaml"));
  std::string trace = "# units: pkt/s\n# step_seconds: 300\nslot,video,calls\n";
  for (int t = 0; t < 40; ++t)
    trace += std::to_string(t) + "," + std::to_string(static_cast<int>(1.2e6 + 0.9e6 * std::sin(t / 4.0))) + "," +
             std::to_string(static_cast<int>(6e5 + 4e5 * std::cos(t / 5.0))) + "\n";
  std::ofstream(dir + "/trace.csv") << trace;
  std::ofstream(dir + "/scaler.yaml") << "name: same\ntopology: " << source_path("topologies/data/demo3.yaml")
                                      << "\nbackend: sim\ntrace: {csv: " << dir << "/trace.csv, first_row: 10}\n"
                                      << "policy: {name: online, params: {window: '3'}}\nforecast: {model: ewma, ewma_alpha: 0.4}\n"
                                      << "journal: " << dir << "/journal.jsonl\n";
  {
    ScalerService service(load_scaler_setup(dir + "/scaler.yaml"));
    std::atomic<bool> stop{false};
    service.run(stop);
  }
  const auto journal = Journal::read(dir + "/journal.jsonl");
  ASSERT_EQ(journal.size(), 30u);

  const RateTraceFile file = read_rate_trace_csv(dir + "/trace.csv");
  SimSettings settings;
  settings.scale.trace_step_seconds = 300;
  auto model = std::make_shared<const SystemModel>(demo, settings);
  auto arrivals =
      std::make_shared<const ArrivalSchedule>(arrivals_for_chains(file.blocks[0].slice(10, 30), demo, settings.scale));
  auto history = std::make_shared<const ArrivalSchedule>(arrivals_for_chains(file.blocks[0].slice(0, 10), demo, settings.scale));
  std::vector<SlotRecord> records;
  simulate(model, arrivals, make_policy("online", {{"window", "3"}}, model), starting_plan({}, demo),
           ForecastSpec{"ewma", {{"alpha", "0.4"}}}, 1, [&](const SlotRecord& r) { records.push_back(r); }, history, 10);
  ASSERT_EQ(records.size(), 30u);
  // Warmed up: slot 0 already has a forecast, the EWMA of rows 0..9.
  EXPECT_GT(journal[0].chains(0).forecast_pps(), 1e5);
  for (std::size_t t = 0; t < 30; ++t) {
    EXPECT_NEAR(journal[t].cost().total(), records[t].report.cost.total(), 1e-9 * (1 + records[t].report.cost.total()))
        << "slot " << t;
    EXPECT_EQ(journal[t].instances(), static_cast<std::uint64_t>(records[t].plan.total_instances())) << "slot " << t;
    EXPECT_NEAR(journal[t].chains(0).forecast_pps(), records[t].forecast.mean(0, 0), 1e-6) << "slot " << t;
  }
}

}  // namespace
}  // namespace nfv
