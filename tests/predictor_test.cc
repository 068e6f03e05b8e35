// The traffic predictor (predictor/): baselines on hand-computed cases, the
// metrics' definitions, the RNN's output shapes, checkpoint round trip,
// learning on a seasonal series, the EWMA baseline it starts from and never
// does worse than on validation, no clamp to the training range,
// determinism, robustness to the NASA
// outage and to non-finite or negative input, and online fine-tuning that
// never stalls the slot loop.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rnn_predictor.h"
#include "rate_trace.h"
#include "svg_chart.h"

namespace nfv {
namespace {

std::string shared(const std::string& relative) {
  const char* root = std::getenv("NFV_SHARED_DATA");
  if (!root) throw std::runtime_error("NFV_SHARED_DATA is not set (meson test sets it)");
  return std::string(root) + "/" + relative;
}

std::vector<double> observe_rows(Predictor& p, const std::vector<std::vector<double>>& rows) {
  double t = 0;
  for (const auto& row : rows) p.observe(row, t += 300);
  return {};
}

// --- Baselines ---------------------------------------------------------------

TEST(Baselines, LastValueRepeatsTheLastRateOfEachChain) {
  auto p = make_last_value(2);
  EXPECT_THROW(p->forecast(1), std::logic_error);
  observe_rows(*p, {{1, 5}, {2, 7}});
  const RateForecast f = p->forecast(3);
  EXPECT_EQ(f.mean, (std::vector<double>{2, 2, 2, 7, 7, 7}));
}

TEST(Baselines, EwmaBlendsEachRateIntoTheLevel) {
  auto p = make_ewma({0.5}, 1);
  observe_rows(*p, {{2}, {4}, {8}});  // level 2, then 3, then 5.5
  EXPECT_EQ(p->forecast(2).mean, (std::vector<double>{5.5, 5.5}));
}

TEST(Baselines, SeasonalNaiveRepeatsThePeriodBefore) {
  auto p = make_seasonal_naive(1, 3);
  observe_rows(*p, {{1}, {2}});
  EXPECT_EQ(p->forecast(2).mean, (std::vector<double>{2, 2})) << "the last value until a period has been seen";
  observe_rows(*p, {{3}, {4}});  // slots 0..3 = 1, 2, 3, 4
  // Slots 4, 5, 6, 7: one period earlier slots 1, 2, 3, and for slot 7 slot 1 again.
  EXPECT_EQ(p->forecast(4).mean, (std::vector<double>{2, 3, 4, 2}));
}

TEST(Baselines, HoltWintersFollowsTheHandComputedRecursion) {
  auto p = make_holt_winters({{0.5, 0.5, 0.5}}, 1, 2);
  observe_rows(*p, {{1}, {3}, {3}, {5}});
  // Periods [1 3] and [3 5]: means 2 and 4, trend (4 - 2) / 2 = 1, level at
  // the last slot 4 + 1 x (2 - 1) / 2 = 4.5, season (-1 + -1) / 2 = -1 and (1 + 1) / 2 = 1.
  RateForecast f = p->forecast(2);
  EXPECT_DOUBLE_EQ(f.mean[0], 4.5 + 1 - 1);
  EXPECT_DOUBLE_EQ(f.mean[1], 4.5 + 2 + 1);
  observe_rows(*p, {{6}});
  // level 0.5 (6 + 1) + 0.5 (4.5 + 1) = 6.25; trend 0.5 (6.25 - 4.5) + 0.5 = 1.375;
  // season of even slots 0.5 (6 - 6.25) + 0.5 (-1) = -0.625.
  f = p->forecast(2);
  EXPECT_DOUBLE_EQ(f.mean[0], 6.25 + 1.375 + 1);
  EXPECT_DOUBLE_EQ(f.mean[1], 6.25 + 2 * 1.375 - 0.625);
}

TEST(Baselines, FittedParametersFollowTheSeries) {
  // Noise around a constant wants a slow EWMA; a random walk a fast one.
  RateTrace t;
  t.label = "fit";
  t.step_seconds = 300;
  t.columns = {"flat", "walk"};
  double walk = 100;
  std::uint64_t x = 12345;
  auto uniform = [&] { return double((x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 11) / 9007199254740992.0; };
  for (int r = 0; r < 2000; ++r) {
    walk += 10 * (uniform() - 0.5);
    t.values.push_back(50 + 10 * (uniform() - 0.5));
    t.values.push_back(walk);
  }
  const std::vector<double> alpha = fit_ewma(t);
  EXPECT_LE(alpha[0], 0.1);
  EXPECT_GE(alpha[1], 0.9);
}

TEST(Baselines, NegativeAndNonFiniteRatesNeverReachAForecast) {
  for (auto& p : {make_last_value(1), make_ewma({0.3}, 1), make_seasonal_naive(1, 2), make_holt_winters({{}}, 1, 2)}) {
    observe_rows(*p, {{4}, {NAN}, {-3}, {INFINITY}, {5}, {-INFINITY}, {0}});
    for (double v : p->forecast(4).mean) {
      EXPECT_TRUE(std::isfinite(v)) << p->name();
      EXPECT_GE(v, 0) << p->name();
    }
  }
}

// --- Metrics -------------------------------------------------------------------

TEST(Metrics, MaseDividesByTheInSampleSeasonalNaiveError) {
  RateTrace train;
  train.label = "train";
  train.step_seconds = 300;
  train.columns = {"a"};
  train.values = {1, 2, 4, 3};  // period 2: |4 - 1| and |3 - 2| -> scale 2
  EXPECT_EQ(seasonal_naive_scale(train, 2), (std::vector<double>{2}));

  RateTrace test = train;
  test.values = {5, 9, 6};
  auto p = make_last_value(1);
  observe_all(*p, train);  // last value 3
  EvaluationSettings settings;
  settings.horizons = {1, 2};
  settings.mape_floor = 0;
  const auto errors = evaluate_forecasts(*p, test, {2}, {2.5}, settings);
  // h = 1: forecasts 3, 5, 9 for 5, 9, 6 -> errors 2, 4, 3.
  EXPECT_EQ(errors[0].points, 3u);
  EXPECT_DOUBLE_EQ(errors[0].mae, 3);
  EXPECT_DOUBLE_EQ(errors[0].rmse, std::sqrt((4.0 + 16 + 9) / 3));
  EXPECT_DOUBLE_EQ(errors[0].mase, 1.5);
  EXPECT_NEAR(errors[0].mape, 100 * (2.0 / 5 + 4.0 / 9 + 3.0 / 6) / 3, 1e-9);
  // h = 2: forecasts made at rows 0 and 1 (3 and 5) for rows 1 and 2 (9 and 6).
  EXPECT_EQ(errors[1].points, 2u);
  EXPECT_DOUBLE_EQ(errors[1].mae, (6.0 + 1) / 2);
}

TEST(Charts, SvgHasOneLinePerUnbrokenRunAndALegend) {
  LineChart chart;
  chart.title = "a < b";
  chart.series = {{"s", {0, 1, 2, 3}, {1, 2, NAN, 4}, "", false}};
  const std::string svg = render_svg(chart);
  EXPECT_NE(svg.find("a &lt; b"), std::string::npos);
  std::size_t lines = 0;
  for (std::size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++lines;
  EXPECT_EQ(lines, 2u);  // the NaN breaks the line
}

// --- RNN -----------------------------------------------------------------------

// Days of 48 half-hour slots keep the RNN tests small: chain c has a
// diurnal profile of mean 10 (c + 1) and some noise.
RateTrace seasonal(std::size_t chains, std::size_t days, std::uint64_t seed) {
  RateTrace t;
  t.label = "seasonal";
  t.step_seconds = 1800;
  t.start_unix_s = 1080000000;
  for (std::size_t c = 0; c < chains; ++c) {
    DiurnalShape shape;
    shape.rows = days * 48;
    shape.step_seconds = 1800;
    shape.mean = 10.0 * double(c + 1);
    shape.amplitude = 0.6 * shape.mean;
    shape.noise_stddev = 0.05 * shape.mean;
    shape.seed = seed + c;
    std::string name = "c";  // appended, not "c" + ...: GCC 12 warns falsely (-Wrestrict) on operator+
    name += std::to_string(c);
    const RateTrace one = diurnal_trace(name, shape, RateUnit::mbit_per_s);
    t.columns.push_back(one.columns[0]);
    if (t.values.empty()) t.values.assign(shape.rows * chains, 0);
    for (std::size_t r = 0; r < shape.rows; ++r) t.values[r * chains + c] = one.values[r];
  }
  return t;
}

RnnConfig small_config(RnnCell cell) {
  RnnConfig c;
  c.cell = cell;
  c.hidden = 16;
  c.horizon = 6;
  c.period_slots = 48;
  c.quantiles = {0.1, 0.9};
  return c;
}

RnnTrainSettings quick_settings(std::size_t epochs) {
  RnnTrainSettings s;
  s.max_epochs = epochs;
  s.patience = epochs;
  s.validation_slots = 96;
  s.sequence_slots = 96;
  s.burn_in_slots = 24;
  s.batch = 32;
  s.learning_rate = 0.01;
  s.seed = 7;
  return s;
}

class RnnTest : public ::testing::TestWithParam<RnnCell> {
 protected:
  void SetUp() override { set_torch_threads(1); }
};

TEST_P(RnnTest, ForecastsEveryChainAndStepWithOrderedQuantiles) {
  const RateTrace trace = seasonal(3, 8, 1);
  auto p = RnnPredictor::train(trace, small_config(GetParam()), quick_settings(2));
  EXPECT_EQ(p->chains(), 3u);
  EXPECT_EQ(p->name(), rnn_cell_name(GetParam()));
  EXPECT_THROW(p->forecast(1), std::logic_error);
  observe_all(*p, trace);
  const RateForecast f = p->forecast(6);
  EXPECT_EQ(f.chains, 3u);
  EXPECT_EQ(f.horizon, 6u);
  EXPECT_EQ(f.mean.size(), 18u);
  EXPECT_EQ(f.quantile_levels, (std::vector<double>{0.1, 0.9}));
  ASSERT_EQ(f.quantiles.size(), 36u);
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t h = 0; h < 6; ++h) {
      EXPECT_GE(f.at(c, h), 0);
      EXPECT_LE(f.quantile(c, h, 0), f.quantile(c, h, 1));
    }
  EXPECT_EQ(p->forecast(2).mean.size(), 6u);
  EXPECT_THROW(p->forecast(7), std::invalid_argument);
}

TEST_P(RnnTest, ACheckpointPredictsExactlyLikeTheModelItSaved) {
  const RateTrace trace = seasonal(3, 8, 2);
  auto trained = RnnPredictor::train(trace, small_config(GetParam()), quick_settings(2));
  const std::string path = (std::filesystem::temp_directory_path() / ("predictor_test_" + rnn_cell_name(GetParam()) + ".pt")).string();
  trained->save(path);
  auto loaded = RnnPredictor::load(path);
  std::filesystem::remove(path);
  EXPECT_EQ(loaded->chain_names(), trained->chain_names());
  EXPECT_EQ(loaded->config().hidden, 16u);
  EXPECT_EQ(loaded->config().quantiles, (std::vector<double>{0.1, 0.9}));
  const std::size_t width = trace.columns.size();
  for (std::size_t r = 0; r < trace.rows(); ++r) {
    const std::span<const double> row(trace.values.data() + r * width, width);
    trained->observe(row, row_start_unix_s(trace, r));
    loaded->observe(row, row_start_unix_s(trace, r));
    const RateForecast a = trained->forecast(6), b = loaded->forecast(6);
    ASSERT_EQ(a.mean, b.mean) << "row " << r;
    ASSERT_EQ(a.quantiles, b.quantiles) << "row " << r;
  }
  EXPECT_THROW(RnnPredictor::load(path), std::runtime_error);
}

INSTANTIATE_TEST_SUITE_P(Cells, RnnTest, ::testing::Values(RnnCell::gru, RnnCell::lstm),
                         [](const auto& info) { return rnn_cell_name(info.param); });

TEST(Rnn, TrainingLowersTheLossAndBeatsLastValueOnASeasonalSeries) {
  set_torch_threads(1);
  const RateTrace trace = seasonal(4, 12, 3);
  RnnConfig config = small_config(RnnCell::gru);
  config.quantiles.clear();
  TrainReport report;
  auto p = RnnPredictor::train(trace.slice(0, 10 * 48), config, quick_settings(12), &report);
  ASSERT_EQ(report.epochs.size(), 12u);
  EXPECT_LT(report.epochs.back().train_loss, 0.6 * report.epochs.front().train_loss);
  EXPECT_LT(report.epochs[report.best_epoch - 1].validation_loss, report.epochs.front().validation_loss);
  // On the two days it never saw, six slots (3 h) ahead, it knows the daily shape.
  const RateTrace test = trace.slice(10 * 48, 2 * 48);
  const std::vector<double> scale = seasonal_naive_scale(trace.slice(0, 10 * 48), 48);
  const std::vector<double> mean(4, 1);
  EvaluationSettings settings;
  settings.horizons = {1, 6};
  observe_all(*p, trace.slice(0, 10 * 48));
  const auto rnn = evaluate_forecasts(*p, test, scale, mean, settings);
  auto last = make_last_value(4);
  observe_all(*last, trace.slice(0, 10 * 48));
  const auto base = evaluate_forecasts(*last, test, scale, mean, settings);
  EXPECT_LT(rnn[1].mase, 0.8 * base[1].mase) << "rnn " << rnn[1].mase << ", last value " << base[1].mase;
}

// The network forecasts a correction of each chain's EWMA level, and its
// head starts at zero: untrained (no epoch), it is the EWMA baseline, fitted
// on the same training rows, up to float rounding.
TEST(Rnn, UntrainedItIsExactlyTheEwmaBaseline) {
  set_torch_threads(1);
  const RateTrace trace = seasonal(3, 8, 5);
  RnnConfig config = small_config(RnnCell::gru);
  RnnTrainSettings settings = quick_settings(0);
  TrainReport report;
  auto rnn = RnnPredictor::train(trace, config, settings, &report);
  EXPECT_EQ(report.best_epoch, 0u);
  ASSERT_EQ(report.blend.size(), config.horizon);
  for (double g : report.blend) EXPECT_EQ(g, 0.0);
  auto ewma = make_ewma(fit_ewma(trace.slice(0, trace.rows() - *settings.validation_slots)), 3);
  for (std::size_t r = 0; r < trace.rows(); ++r) {
    const std::span<const double> row(&trace.values[r * 3], 3);
    rnn->observe(row, row_start_unix_s(trace, r));
    ewma->observe(row, row_start_unix_s(trace, r));
    const RateForecast a = rnn->forecast(config.horizon), b = ewma->forecast(config.horizon);
    for (std::size_t i = 0; i < a.mean.size(); ++i) ASSERT_NEAR(a.mean[i], b.mean[i], 1e-5 * b.mean[i] + 1e-9) << r;
  }
}

// Trained, the kept network (best epoch, then the per-step blend) is never
// worse than the EWMA on the validation rows, and the blend is a share.
TEST(Rnn, TheKeptNetworkIsNoWorseThanTheEwmaOnValidation) {
  set_torch_threads(1);
  const RateTrace trace = seasonal(3, 10, 9);
  TrainReport report;
  RnnConfig config = small_config(RnnCell::gru);
  config.quantiles.clear();
  auto rnn = RnnPredictor::train(trace, config, quick_settings(6), &report);
  ASSERT_EQ(report.validation.size(), config.horizon);
  ASSERT_EQ(report.base_validation.size(), config.horizon);
  for (std::size_t h = 0; h < config.horizon; ++h) {
    EXPECT_LE(report.validation[h], report.base_validation[h]) << h;
    EXPECT_GE(report.blend[h], 0.0);
    EXPECT_LE(report.blend[h], 1.0);
  }
  // On this seasonal series the network does learn something the EWMA misses.
  EXPECT_LT(report.validation.back(), 0.9 * report.base_validation.back());
}

// Forecasts are not clamped to the training range: April's rates on some
// Abilene OD pairs are far above March's, and a clamped forecast lost more
// than the EWMA's whole error there. After a jump to 20x the training
// level, the forecast follows.
TEST(Rnn, ForecastsFollowRatesFarAboveTheTrainingRange) {
  set_torch_threads(1);
  const RateTrace trace = seasonal(2, 8, 3);
  auto rnn = RnnPredictor::train(trace, small_config(RnnCell::lstm), quick_settings(2));
  observe_all(*rnn, trace);
  double train_max = 0;
  for (double v : trace.values) train_max = std::max(train_max, v);
  const std::vector<double> high(2, 20 * train_max);
  double t = row_start_unix_s(trace, trace.rows());
  for (int i = 0; i < 24; ++i) rnn->observe(high, t += trace.step_seconds);
  const RateForecast f = rnn->forecast(6);
  for (double v : f.mean) EXPECT_GT(v, 5 * train_max);
}

TEST(Rnn, TrainingIsDeterministicForASeed) {
  set_torch_threads(1);
  const RateTrace trace = seasonal(2, 8, 4);
  TrainReport a, b;
  auto pa = RnnPredictor::train(trace, small_config(RnnCell::lstm), quick_settings(2), &a);
  auto pb = RnnPredictor::train(trace, small_config(RnnCell::lstm), quick_settings(2), &b);
  ASSERT_EQ(a.epochs.size(), b.epochs.size());
  for (std::size_t e = 0; e < a.epochs.size(); ++e) {
    EXPECT_EQ(a.epochs[e].train_loss, b.epochs[e].train_loss);
    EXPECT_EQ(a.epochs[e].validation_loss, b.epochs[e].validation_loss);
  }
  observe_all(*pa, trace);
  observe_all(*pb, trace);
  EXPECT_EQ(pa->forecast(6).mean, pb->forecast(6).mean);
}

// The NASA August log has a day-long outage (zeros); on top, NaN, infinite,
// negative and absurdly large rates: every forecast stays finite and >= 0.
TEST(Rnn, NeverNanNorNegativeThroughTheNasaOutageAndBadInput) {
  set_torch_threads(1);
  const std::vector<NasaSegment> nasa = load_nasa_requests(shared("traffic/nasa/nasa_http_requests_5min.csv"));
  ASSERT_EQ(nasa.size(), 2u);
  ASSERT_FALSE(nasa[1].outages.empty());
  RnnConfig config;
  config.hidden = 16;
  config.quantiles = {0.9};
  RnnTrainSettings settings;
  settings.max_epochs = 2;
  auto rnn = RnnPredictor::train(nasa[0].requests, config, settings);
  RateTrace august = nasa[1].requests;
  const double bad[] = {NAN, INFINITY, -INFINITY, -5, 1e12, 0};
  for (std::size_t i = 0; i < std::size(bad); ++i) august.values[1000 + 7 * i] = bad[i];
  std::vector<std::unique_ptr<Predictor>> predictors;
  predictors.push_back(std::move(rnn));
  predictors.push_back(make_ewma({0.3}, 1));
  predictors.push_back(make_holt_winters(fit_holt_winters(nasa[0].requests, 288), 1, 288));
  for (auto& p : predictors) {
    observe_all(*p, nasa[0].requests);
    for (std::size_t r = 0; r < august.rows(); ++r) {
      p->observe(std::span<const double>(&august.values[r], 1), row_start_unix_s(august, r));
      const RateForecast f = p->forecast(12);
      for (double v : f.mean) ASSERT_TRUE(std::isfinite(v) && v >= 0) << p->name() << " row " << r << ": " << v;
      for (double v : f.quantiles) ASSERT_TRUE(std::isfinite(v) && v >= 0) << p->name() << " row " << r << ": " << v;
    }
  }
}

// 132 chains, fine-tuned every 48 slots on a background thread: slots go
// on while it trains (observe and forecast return with the training still
// running), and the fine-tuned network does get swapped in. (How long a slot
// takes meanwhile is a figure for a bench, not a test.)
TEST(Rnn, FineTuningNeverStallsTheSlotLoop) {
  set_torch_threads(1);
  constexpr std::size_t kChains = 132;
  const RateTrace trace = seasonal(kChains, 6, 5);
  RnnConfig config = small_config(RnnCell::gru);
  config.hidden = 48;
  RnnTrainSettings settings = quick_settings(1);
  auto tuned = RnnPredictor::train(trace, config, settings);
  const std::string path = (std::filesystem::temp_directory_path() / "predictor_test_fine_tuning.pt").string();
  tuned->save(path);
  auto fixed = RnnPredictor::load(path);
  std::filesystem::remove(path);
  FineTuneSettings tuning;
  tuning.every_slots = 48;
  tuning.window_slots = 192;
  tuning.epochs = 1;
  tuned->enable_fine_tuning(tuning);

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  bool differs = false;
  std::vector<double> row(kChains);
  std::size_t during_training = 0;  // slots that returned while the training ran
  std::size_t after_swap = 0;       // slots run with the fine-tuned network
  for (std::size_t slot = 0; after_swap < 100 && Clock::now() - start < std::chrono::seconds(40); ++slot) {
    const std::size_t r = slot % trace.rows();
    for (std::size_t c = 0; c < kChains; ++c) row[c] = trace.at(r, c);
    const double t = 1080000000.0 + 1800.0 * double(slot);
    const bool was_training = tuned->fine_tuning_running();
    tuned->observe(row, t);
    const RateForecast f = tuned->forecast(6);
    if (was_training && tuned->fine_tuning_running()) ++during_training;
    fixed->observe(row, t);
    if (tuned->fine_tunings_applied() > 0) {
      differs = differs || f.mean != fixed->forecast(6).mean;
      ++after_swap;
    }
  }
  tuned->wait_for_fine_tuning();
  ASSERT_GE(tuned->fine_tunings_applied(), 1u) << "no fine-tuning finished in 40 s: " << tuned->fine_tuning_error();
  EXPECT_TRUE(differs) << "the fine-tuned network was never used";
  EXPECT_GT(during_training, 0u) << "no slot ran while the network trained: the slot loop waited for it";
}

}  // namespace
}  // namespace nfv
