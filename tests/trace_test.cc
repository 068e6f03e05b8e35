// Rate traces: our CSV format, the real Abilene and NASA traces, the
// generators, and the mapping of trace time and volume onto the emulation.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "rate_trace.h"

namespace nfv {
namespace {

std::string shared(const std::string& relative) {
  const char* root = std::getenv("NFV_SHARED_DATA");
  if (!root) throw std::runtime_error("NFV_SHARED_DATA is not set (meson test sets it)");
  return std::string(root) + "/" + relative;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

bool all_finite(const RateTrace& t) {
  return std::all_of(t.values.begin(), t.values.end(), [](double v) { return std::isfinite(v); });
}

// --- Abilene ---------------------------------------------------------------
// Expected sums computed independently with python3's csv module over
// traffic/abilene/abilene_tm_5min_mbps.csv (rows 0..4031 March, 4032.. April):
// tests/tools/trace_golden_sums.py prints them all.

class AbileneTraffic : public testing::Test {
 protected:
  static void SetUpTestSuite() { file_ = new RateTraceFile(load_abilene_traffic(shared("traffic/abilene/abilene_tm_5min_mbps.csv"))); }
  static void TearDownTestSuite() { delete file_; }
  static const RateTrace& march() { return file_->blocks.at(0); }
  static const RateTrace& april() { return file_->blocks.at(1); }
  static RateTraceFile* file_;
};
RateTraceFile* AbileneTraffic::file_ = nullptr;

TEST_F(AbileneTraffic, TwoContiguousBlocksSplitAtTheGapNeverJoined) {
  ASSERT_EQ(file_->blocks.size(), 2u);
  EXPECT_EQ(march().rows(), 4032u);
  EXPECT_EQ(april().rows(), 864u);
  EXPECT_EQ(march().label, "2004-03-01T00:00:00..2004-03-14T23:55:00");
  EXPECT_EQ(april().label, "2004-04-02T00:00:00..2004-04-04T23:55:00");
  EXPECT_EQ(march().step_seconds, 300.0);
  EXPECT_EQ(march().unit, RateUnit::mbit_per_s);
  EXPECT_EQ(march().columns.size(), 132u);
  ASSERT_EQ(file_->gaps.time_gaps.size(), 1u);
  EXPECT_EQ(file_->gaps.time_gaps[0].after, "2004-03-14T23:55:00");
  EXPECT_EQ(file_->gaps.time_gaps[0].before, "2004-04-02T00:00:00");
  EXPECT_EQ(file_->gaps.time_gaps[0].missing_steps, 18 * 288);  // all of Mar 15 .. Apr 1
  EXPECT_EQ(file_->gaps.missing_values, 0u);
  EXPECT_TRUE(all_finite(march()) && all_finite(april()));
}

TEST_F(AbileneTraffic, ColumnSumsMatchAnIndependentReading) {
  const auto m = march().column_sums();
  const auto a = april().column_sums();
  EXPECT_NEAR(m[march().column_index("ATLAM5->CHINng")], 4919.784079, 1e-6);
  EXPECT_NEAR(m[march().column_index("NYCMng->LOSAng")], 256560.075612, 1e-6);
  EXPECT_NEAR(m[march().column_index("WASHng->STTLng")], 149123.494478, 1e-6);
  EXPECT_NEAR(a[april().column_index("ATLAM5->CHINng")], 808.717077, 1e-6);
  EXPECT_NEAR(a[april().column_index("NYCMng->LOSAng")], 387.755592, 1e-6);
  EXPECT_NEAR(std::accumulate(m.begin(), m.end(), 0.0), 12182705.168531, 1e-3);
  EXPECT_NEAR(std::accumulate(a.begin(), a.end(), 0.0), 2828300.490910, 1e-3);
  EXPECT_NEAR(march().slot_totals().front(), 2541.720094, 1e-6);
  EXPECT_NEAR(april().slot_totals().front(), 4100.771179, 1e-6);
}

TEST_F(AbileneTraffic, OdPairsBecomeChainsFromIngressToEgressSite) {
  const Topology abilene = load_topology_yaml(std::string(NFV_SOURCE_ROOT) + "/topologies/data/abilene.yaml");
  const auto chains = chains_for_od_pairs(april(), abilene, {"counter", "forward"}, 60);
  ASSERT_EQ(chains.size(), 132u);
  const std::size_t c = april().column_index("ATLAM5->CHINng");
  EXPECT_EQ(chains[c].name, "ATLAM5->CHINng");
  EXPECT_EQ(abilene.sites[chains[c].ingress].name, "ATLAM5");
  EXPECT_EQ(abilene.sites[chains[c].egress].name, "CHINng");
  EXPECT_EQ(chains[c].vnfs.size(), 2u);
  // The demo's 3-site cut lacks most routers: named in the error.
  const Topology demo3 = load_topology_yaml(std::string(NFV_SOURCE_ROOT) + "/topologies/data/demo3.yaml");
  try {
    chains_for_od_pairs(april(), demo3, {"counter"}, 60);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no site 'ATLAM5'"), std::string::npos) << e.what();
  }
}

TEST_F(AbileneTraffic, IngressPerSiteSumsTheSitesOutgoingPairs) {
  const RateTrace m = ingress_per_site(march());
  const RateTrace a = ingress_per_site(april());
  ASSERT_EQ(m.columns.size(), 12u);
  EXPECT_EQ(m.rows(), 4032u);
  EXPECT_EQ(m.columns.front(), "ATLAM5");
  EXPECT_NEAR(m.column_sums()[m.column_index("ATLAM5")], 32223.963556, 1e-6);
  EXPECT_NEAR(m.column_sums()[m.column_index("NYCMng")], 1915617.089554, 1e-5);
  EXPECT_NEAR(a.column_sums()[a.column_index("NYCMng")], 359900.570296, 1e-5);
  // Same traffic, only regrouped.
  EXPECT_NEAR(m.slot_totals()[100], march().slot_totals()[100], 1e-9);
}

TEST_F(AbileneTraffic, SliceSelectsRowsAndMovesTheStartTime) {
  const RateTrace day2 = march().slice(288, 288);
  EXPECT_EQ(day2.rows(), 288u);
  EXPECT_EQ(*day2.start_unix_s - *march().start_unix_s, 86400);
  EXPECT_EQ(day2.at(0, 5), march().at(288, 5));
  EXPECT_THROW(april().slice(800, 100), std::out_of_range);
}

// --- NASA --------------------------------------------------------------------
// Independently (python3 csv, tests/tools/trace_golden_sums.py): jul 7939 rows, sum of requests/bin_seconds
// 6306.461111; aug 8929 rows, 5234.133333; the longest zero run of aug
// starts at row 179 and lasts 452 bins (Aug 1 14:55 .. Aug 3 04:35);
// July's longest zero run is 4 bins.

TEST(NasaRequests, JulyAndAugustAreSeparateSegmentsWithTrueRates) {
  const auto segments = load_nasa_requests(shared("traffic/nasa/nasa_http_requests_5min.csv"));
  ASSERT_EQ(segments.size(), 2u);
  const RateTrace& jul = segments[0].requests;
  const RateTrace& aug = segments[1].requests;
  EXPECT_EQ(jul.label, "jul");
  EXPECT_EQ(aug.label, "aug");
  EXPECT_EQ(jul.rows(), 7939u);
  EXPECT_EQ(aug.rows(), 8929u);
  EXPECT_EQ(jul.unit, RateUnit::requests_per_s);
  EXPECT_EQ(jul.step_seconds, 300.0);
  EXPECT_NEAR(jul.column_sums()[0], 6306.461111, 1e-5);
  EXPECT_NEAR(aug.column_sums()[0], 5234.133333, 1e-5);
  EXPECT_NEAR(jul.values.back(), 208.0 / 144.0, 1e-12);  // the short last bin is a rate too
  EXPECT_NEAR(jul.values.front(), 301.0 / 300.0, 1e-12);
  EXPECT_TRUE(all_finite(jul) && all_finite(aug));
}

TEST(NasaRequests, TheHurricaneOutageIsFoundAndNothingElse) {
  const auto segments = load_nasa_requests(shared("traffic/nasa/nasa_http_requests_5min.csv"));
  EXPECT_TRUE(segments[0].outages.empty());
  ASSERT_EQ(segments[1].outages.size(), 1u);
  EXPECT_EQ(segments[1].outages[0].first_row, 179u);
  EXPECT_EQ(segments[1].outages[0].rows, 452u);
}

// --- Our CSV format ----------------------------------------------------------

TEST(TraceCsv, SlotsUnitsCommentAndStep) {
  const auto file = read_rate_trace_csv(write_temp("slots.csv",
                                                   "# a comment\n# units: kbit/s\n# step_seconds: 60\n"
                                                   "slot,video,calls\n0,1000,2000\n1,1500,2500\n2,500,0\n"));
  ASSERT_EQ(file.blocks.size(), 1u);
  const RateTrace& t = file.blocks[0];
  EXPECT_EQ(t.unit, RateUnit::mbit_per_s);
  EXPECT_EQ(t.step_seconds, 60.0);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"video", "calls"}));
  EXPECT_EQ(t.column_sums(), (std::vector<double>{3.0, 4.5}));  // kbit/s -> Mbit/s
  EXPECT_EQ(t.slot_totals(), (std::vector<double>{3.0, 4.0, 0.5}));
}

TEST(TraceCsv, UnitsInColumnNamesAndMissingValuesCountedNotNaN) {
  const std::string path = write_temp("named.csv",
                                      "timestamp,A->B [req/s],B->A [req/s]\n2024-01-01T00:00:00Z,1,2\n"
                                      "2024-01-01T00:00:10Z,,NaN\n2024-01-01T00:00:20Z,3,4\n");
  const auto file = read_rate_trace_csv(path);
  const RateTrace& t = file.blocks.at(0);
  EXPECT_EQ(t.unit, RateUnit::requests_per_s);
  EXPECT_EQ(t.step_seconds, 10.0);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"A->B", "B->A"}));
  EXPECT_EQ(file.gaps.missing_values, 2u);
  ASSERT_EQ(file.gaps.first_missing.size(), 2u);
  EXPECT_EQ(file.gaps.first_missing[0], path + ":3: column 'A->B [req/s]'");
  EXPECT_TRUE(all_finite(t));
  EXPECT_EQ(t.column_sums(), (std::vector<double>{4.0, 6.0}));
}

TEST(TraceCsv, TimeGapsSplitTheTraceIntoBlocks) {
  const auto file = read_rate_trace_csv(write_temp("gap.csv", "# units: pkt/s\nslot,x\n0,1\n1,1\n5,2\n6,2\n7,2\n"));
  ASSERT_EQ(file.blocks.size(), 2u);
  EXPECT_EQ(file.blocks[0].rows(), 2u);
  EXPECT_EQ(file.blocks[1].rows(), 3u);
  ASSERT_EQ(file.gaps.time_gaps.size(), 1u);
  EXPECT_EQ(file.gaps.time_gaps[0].missing_steps, 3.0);
}

TEST(TraceCsv, WrittenTraceReadsBackTheSame) {
  const RateTrace t = flash_crowd_trace("crowd", {}, RateUnit::packets_per_s);
  const auto back = read_rate_trace_csv(write_temp("back.csv", rate_trace_to_csv(t)));
  ASSERT_EQ(back.blocks.size(), 1u);
  EXPECT_EQ(back.blocks[0].columns, t.columns);
  EXPECT_EQ(back.blocks[0].unit, t.unit);
  ASSERT_EQ(back.blocks[0].values.size(), t.values.size());
  for (std::size_t i = 0; i < t.values.size(); ++i) EXPECT_NEAR(back.blocks[0].values[i], t.values[i], 1e-8 * t.values[i]);
}

void expect_csv_error(const std::string& name, const std::string& text, const std::string& expected) {
  const std::string path = write_temp(name, text);
  try {
    read_rate_trace_csv(path);
    FAIL() << "read without error, expected " << expected;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(TraceCsv, ErrorsNameTheFileLineAndColumn) {
  expect_csv_error("nounit.csv", "slot,x\n0,1\n", "column 'x': expected units");
  expect_csv_error("badunit.csv", "# units: furlongs\nslot,x\n0,1\n", "'# units:' expected one of");
  expect_csv_error("text.csv", "# units: Mbit/s\nslot,x\n0,1\n1,lots\n", ":4: column 'x': expected a number, got 'lots'");
  expect_csv_error("negative.csv", "# units: Mbit/s\nslot,x\n0,-1\n", ":3: column 'x': expected a rate >= 0");
  expect_csv_error("order.csv", "# units: Mbit/s\nslot,x\n1,1\n0,1\n", ":4: column 'slot': expected a time after");
  expect_csv_error("mixed.csv", "slot,x [Mbit/s],y [req/s]\n0,1,1\n", "column 'y': expected the same kind of unit");
  expect_csv_error("firstcol.csv", "# units: Mbit/s\ntime,x\n0,1\n", "expected 'slot' or 'timestamp'");
  expect_csv_error("fields.csv", "# units: Mbit/s\nslot,x\n0,1,2\n", ":3: expected 2 fields");
  expect_csv_error("badtime.csv", "# units: Mbit/s\ntimestamp,x\n2004-13-01T00:00:00,1\n", "expected an ISO-8601 time");
  try {
    read_rate_trace_csv("/nonexistent/trace.csv");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/trace.csv"), std::string::npos);
  }
}

// --- Generators ----------------------------------------------------------------

TEST(Generators, DiurnalHasTheRequestedMeanAndPeakOverWholeDays) {
  DiurnalShape shape;
  shape.rows = 2 * 288;  // two days of 5-min steps
  shape.mean = 100;
  shape.amplitude = 40;
  const RateTrace t = diurnal_trace("web", shape, RateUnit::mbit_per_s);
  ASSERT_EQ(t.rows(), 576u);
  EXPECT_NEAR(t.column_sums()[0] / 576.0, 100.0, 1e-9);
  EXPECT_NEAR(*std::max_element(t.values.begin(), t.values.end()), 140.0, 1e-9);  // at 6 h: a step lands there
  EXPECT_NEAR(*std::min_element(t.values.begin(), t.values.end()), 60.0, 1e-9);
}

TEST(Generators, DiurnalNoiseIsDeterministicForASeedAndNeverNegative) {
  DiurnalShape shape;
  shape.rows = 3 * 288;  // whole days, so the cycle itself averages to the mean
  shape.mean = 10;
  shape.amplitude = 4;
  shape.noise_stddev = 2;
  shape.seed = 42;
  const RateTrace a = diurnal_trace("x", shape, RateUnit::packets_per_s);
  const RateTrace b = diurnal_trace("x", shape, RateUnit::packets_per_s);
  EXPECT_EQ(a.values, b.values);
  shape.seed = 43;
  EXPECT_NE(diurnal_trace("x", shape, RateUnit::packets_per_s).values, a.values);
  EXPECT_GE(*std::min_element(a.values.begin(), a.values.end()), 0.0);
  EXPECT_NEAR(a.column_sums()[0] / 864.0, 10.0, 0.3);  // noise averages out: sigma of the mean ~0.07
}

TEST(Generators, StepChangesAtTheRequestedRow) {
  const RateTrace t = step_trace("x", StepShape{10, 1, 2, 7, 4}, RateUnit::packets_per_s);
  EXPECT_EQ(t.values, (std::vector<double>{2, 2, 2, 2, 7, 7, 7, 7, 7, 7}));
}

TEST(Generators, FlashCrowdRampsHoldsThePeakThenDecaysToBase) {
  FlashCrowdShape shape{40, 1, 5, 50, 10, 4, 5, 3};
  const RateTrace t = flash_crowd_trace("x", shape, RateUnit::packets_per_s);
  EXPECT_EQ(t.values[9], 5.0);
  EXPECT_NEAR(t.values[10], 5 + 45 * 0.25, 1e-12);
  EXPECT_EQ(t.values[13], 50.0);  // ramp ends at the peak
  EXPECT_EQ(t.values[18], 50.0);  // held 5 rows: 14..18
  EXPECT_EQ(*std::max_element(t.values.begin(), t.values.end()), 50.0);
  EXPECT_NEAR(t.values[19], 5 + 45 * std::exp(-1.0 / 3), 1e-12);
  EXPECT_NEAR(t.values[39], 5 + 45 * std::exp(-21.0 / 3), 1e-12);  // 21 rows into the decay
  EXPECT_TRUE(std::is_sorted(t.values.begin() + 19, t.values.end(), std::greater<>()));
}

// --- Emulation mapping ---------------------------------------------------------

TEST(EmulationScale, HandComputedTimeAndVolume) {
  EmulationScale s;
  s.trace_step_seconds = 300;
  s.slot_wall_seconds = 2;
  s.mean_packet_bytes = 1024;
  s.volume_scale = 0.01;
  // 1 Mbit/s = 1e6 / 8 / 1024 = 122.0703125 pkt/s; x 0.01 = 1.220703125.
  EXPECT_DOUBLE_EQ(s.real_packets_per_s_per_unit(RateUnit::mbit_per_s), 122.0703125);
  EXPECT_DOUBLE_EQ(s.emulated_packets_per_s(1.0, RateUnit::mbit_per_s), 1.220703125);
  EXPECT_DOUBLE_EQ(s.emulated_packets_per_s(3000, RateUnit::mbit_per_s), 3662.109375);
  EXPECT_DOUBLE_EQ(s.wall_seconds_of_slot(10), 20.0);
  EXPECT_DOUBLE_EQ(s.trace_seconds_of_slot(10), 3000.0);
  EXPECT_EQ(s.slot_of_wall_seconds(5.9), 2u);
  EXPECT_EQ(s.describe(RateUnit::mbit_per_s),
            "1 trace step (300 s) = 1 slot = 2.0 s wall; 1 Mbit/s = 122.07 pkt/s at 1024 B x scale 0.01 = 1.221 pkt/s emulated");
  // Requests: 10240 B responses in 1024 B packets = 10 packets each.
  s.bytes_per_request = 10240;
  s.volume_scale = 0.5;
  EXPECT_DOUBLE_EQ(s.emulated_packets_per_s(20, RateUnit::requests_per_s), 100.0);
  EXPECT_DOUBLE_EQ(s.emulated_packets_per_s(20, RateUnit::packets_per_s), 10.0);
}

}  // namespace
}  // namespace nfv
