// Traces of any step and topologies of any size, through the same paths the
// tools take: real traces resampled to 15 minutes and an hour train the
// RNN on a few days and feed the online policy; GEANT and B4 run with
// gravity matrices; too short a history names the rows it needs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <unistd.h>

#include "episode.h"
#include "gravity_trace.h"
#include "policy.h"
#include "rnn_predictor.h"
#include "scaler_cases.h"
#include "topology.h"

namespace nfv {
namespace {

using test::source_path;

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("any_trace_" + std::to_string(::getpid()) + "_" + name)).string();
}

// What reached the egress of what arrived, from the first slot the policy
// decided on (the first runs the starting plan: nothing was measured yet).
struct Served {
  ChainTraffic traffic;
  void add(const SlotRecord& record) {
    if (!record.decided) return;
    for (const ChainTraffic& chain : record.report.observation.chains) traffic += chain;
  }
  double share() const { return traffic.arrived > 0 ? traffic.delivered / traffic.arrived : 1.0; }
};

// A small RNN, a few epochs: these tests are about the windows following
// the step, not about the best network.
RnnConfig small_rnn(std::size_t horizon) {
  RnnConfig config;
  config.hidden = 16;
  config.horizon = horizon;
  return config;
}

RnnTrainSettings few_epochs() {
  RnnTrainSettings settings;
  settings.max_epochs = 4;
  settings.patience = 2;
  return settings;
}

// Abilene's March matrices averaged into 15-minute rows: the RNN learns on
// the last three days of them (288 rows; its daily period becomes 96
// slots), then forecasts, two slots ahead, for the online policy on April's
// first 15-minute slots, through the scenario loader every tool uses.
TEST(AnyTrace, AbileneAtFifteenMinutesTrainsTheRnnOnThreeDaysAndFeedsTheOnlinePolicy) {
  set_torch_threads(1);
  ScenarioOptions options;
  options.topology = source_path("topologies/data/abilene.yaml");
  options.resample_seconds = 900;
  options.slots = 8;
  options.needs_training = true;
  const Scenario scenario = load_scenario(options);
  ASSERT_EQ(scenario.trace.train.step_seconds, 900);
  ASSERT_EQ(scenario.test->slots(), 8u);
  ASSERT_EQ(scenario.test->mapping.step_seconds, 900);

  const std::size_t day = daily_period_slots(900);
  ASSERT_EQ(day, 96u);
  const RateTrace& march = scenario.trace.train;
  ASSERT_GE(march.rows(), 3 * day);
  TrainReport report;
  auto rnn = RnnPredictor::train(march.slice(march.rows() - 3 * day, 3 * day), small_rnn(4), few_epochs(), &report);
  EXPECT_EQ(rnn->config().period_slots, day);
  ASSERT_EQ(report.validation.size(), 4u);
  for (std::size_t h = 0; h < 4; ++h) {
    EXPECT_TRUE(std::isfinite(report.validation[h])) << "step " << h + 1;
    EXPECT_LE(report.validation[h], report.base_validation[h] * (1 + 1e-9)) << "step " << h + 1 << ": worse than its EWMA base";
  }
  const std::string checkpoint = temp_file("abilene15.pt");
  rnn->save(checkpoint);

  std::size_t slots = 0;
  Served served;
  const EpisodeSummary summary =
      simulate(scenario.model, scenario.test, make_policy("online", {}, {scenario.model, scenario.test->mapping}),
               place_chains(scenario.model->topology(), 1, Placement::ingress),
               ForecastSpec{"rnn", {{"checkpoint", checkpoint}}}, 2,
               [&](const SlotRecord& record) {
                 ++slots;
                 served.add(record);
                 ASSERT_EQ(record.forecast.horizon, 2u) << "slot " << record.slot;
                 for (double pps : record.forecast.mean_pps) ASSERT_TRUE(std::isfinite(pps) && pps >= 0) << "slot " << record.slot;
               },
               scenario.train, 3 * day);
  std::filesystem::remove(checkpoint);
  EXPECT_EQ(slots, 8u);
  EXPECT_EQ(summary.slots, 8u);
  EXPECT_EQ(summary.kept_last_plan, 0u);
  EXPECT_NE(summary.forecast.find("rnn"), std::string::npos) << summary.forecast;
  EXPECT_GT(served.share(), 0.99);
}

// NASA's July requests averaged into hourly rows: a week trains the RNN
// (its daily period 24 slots), which then forecasts the next day for the
// online policy serving the requests as one chain.
TEST(AnyTrace, NasaAtOneHourTrainsTheRnnOnAWeekAndFeedsTheOnlinePolicy) {
  set_torch_threads(1);
  const auto segments = load_nasa_requests(shared_data_path("traffic/nasa/nasa_http_requests_5min.csv"));
  ASSERT_FALSE(segments.empty());
  RateTrace hourly = segments.front().requests.resampled(3600);
  ASSERT_EQ(hourly.step_seconds, 3600);
  const std::size_t day = daily_period_slots(3600);
  ASSERT_EQ(day, 24u);
  ASSERT_GE(hourly.rows(), 8 * day);
  hourly.columns = {"web"};  // the chain it feeds
  const RateTrace week = hourly.slice(0, 7 * day), next_day = hourly.slice(7 * day, day);

  TrainReport report;
  auto rnn = RnnPredictor::train(week, small_rnn(3), few_epochs(), &report);
  EXPECT_EQ(rnn->config().period_slots, day);
  ASSERT_EQ(report.validation.size(), 3u);
  for (std::size_t h = 0; h < 3; ++h)
    EXPECT_LE(report.validation[h], report.base_validation[h] * (1 + 1e-9)) << "step " << h + 1;
  const std::string checkpoint = temp_file("nasa1h.pt");
  rnn->save(checkpoint);

  // Requests of 10 KiB in 1 KiB packets, x400: some hundreds of packets/s
  // to some thousands, for a VNF of 1000 packets/s.
  SimSettings settings = test::sim_settings(1024, 256);
  settings.scale.trace_step_seconds = 3600;
  settings.scale.volume_scale = 400;
  const Topology topology = test::two_sites(1000, 80);
  auto model = std::make_shared<const SystemModel>(topology, settings);
  auto history = std::make_shared<const ArrivalSchedule>(arrivals_for_chains(week, topology, settings.scale));
  auto arrivals = std::make_shared<const ArrivalSchedule>(arrivals_for_chains(next_day, topology, settings.scale));
  double peak = 0;
  for (double pps : arrivals->pps) peak = std::max(peak, pps);
  ASSERT_GT(peak, 2 * 0.9 * 1000) << "the day asks for more than one instance at its peak";

  double most_instances = 0;
  Served served;
  const EpisodeSummary summary =
      simulate(model, arrivals, make_policy("online", {}, {model, arrivals->mapping}), test::one_pool(0, 1),
               ForecastSpec{"rnn", {{"checkpoint", checkpoint}}}, 3,
               [&](const SlotRecord& record) {
                 for (double pps : record.forecast.mean_pps) ASSERT_TRUE(std::isfinite(pps) && pps >= 0);
                 served.add(record);
               },
               history, week.rows());
  most_instances = summary.max_instances;
  std::filesystem::remove(checkpoint);
  EXPECT_EQ(summary.slots, day);
  EXPECT_EQ(summary.kept_last_plan, 0u);
  EXPECT_GE(most_instances, 2) << "it scaled out for the busy hours";
  EXPECT_GT(served.share(), 0.99);
}

// GEANT (22 sites) and B4 (12 sites), which have no measured matrices:
// gravity matrices written as a CSV and averaged into hourly rows on load,
// one chain per pair, through the online policy (chain by chain: every
// chain has one hop) as nfv-sim runs them.
TEST(AnyTrace, GeantAndB4RunHourlyGravityMatricesThroughTheOnlinePolicy) {
  for (const std::string name : {"geant2009", "b4"}) {
    SCOPED_TRACE(name);
    const std::string topology_path = source_path("topologies/data/" + name + ".yaml");
    GravityTraceShape shape;
    shape.rows = 2 * 288;
    shape.pairs = 150;
    shape.total_mbps = 20000;
    const RateTrace trace = gravity_od_trace(load_topology_yaml(topology_path), shape);
    const std::string csv = temp_file(name + ".csv");
    std::ofstream(csv) << rate_trace_to_csv(trace);
    ScenarioOptions options;
    options.topology = topology_path;
    options.trace = csv;
    options.resample_seconds = 3600;
    options.slots = 6;
    options.sim.scale.volume_scale = 20;
    options.site_capacity = 64;
    const Scenario scenario = load_scenario(options);
    std::filesystem::remove(csv);
    ASSERT_EQ(scenario.model->chains(), 150u);
    ASSERT_EQ(scenario.test->mapping.step_seconds, 3600);
    Served served;
    const EpisodeSummary summary =
        simulate(scenario.model, scenario.test, make_policy("online", {}, {scenario.model, scenario.test->mapping}),
                 place_chains(scenario.model->topology(), 1, Placement::ingress), ForecastSpec{}, 1,
                 [&](const SlotRecord& record) {
                   if (record.decided) {
                     EXPECT_NE(record.reason.find("solved chain by chain"), std::string::npos) << record.reason;
                   }
                   served.add(record);
                 });
    EXPECT_EQ(summary.slots, 6u);
    EXPECT_EQ(summary.kept_last_plan, 0u);
    EXPECT_GT(summary.max_instances, 150) << "some chains needed more than one instance";
    EXPECT_GT(served.share(), 0.99);
  }
}

// Too short a history: the error names the rows training needs, and that
// many rows do train (one fewer does not), at 15 minutes and at an hour.
TEST(AnyTrace, TooShortAHistoryNamesTheRowsItNeedsAndThatManyTrain) {
  set_torch_threads(1);
  for (const double step : {900.0, 3600.0}) {
    SCOPED_TRACE(step);
    DiurnalShape shape;
    shape.rows = 40 * daily_period_slots(step);
    shape.step_seconds = step;
    shape.mean = 100;
    shape.noise_stddev = 5;
    const RateTrace trace = diurnal_trace("a", shape, RateUnit::packets_per_s);
    RnnTrainSettings settings = few_epochs();
    settings.max_epochs = 1;
    std::size_t needed = 0;
    try {
      RnnPredictor::train(trace.slice(0, daily_period_slots(step)), small_rnn(4), settings);
      FAIL() << "a day of rows trained";
    } catch (const std::invalid_argument& e) {
      std::smatch m;
      const std::string what = e.what();
      ASSERT_TRUE(std::regex_search(what, m, std::regex("training needs at least ([0-9]+)"))) << what;
      needed = std::stoul(m[1]);
    }
    ASSERT_GT(needed, daily_period_slots(step));
    EXPECT_THROW(RnnPredictor::train(trace.slice(0, needed - 1), small_rnn(4), settings), std::invalid_argument);
    EXPECT_NO_THROW(RnnPredictor::train(trace.slice(0, needed), small_rnn(4), settings));
  }
}

}  // namespace
}  // namespace nfv
