// Forecast accuracy of the traffic predictor (predictor/, docs/predictor.md)
// on real traces: trained on one block and tested on the next, GRU and LSTM
// next to every baseline behind the same Predictor interface.
//   Abilene: 132 OD pairs, train on March (4032 slots of 5 min), test on April.
//   NASA:    one request series, train on July, test on August (the
//            outage's targets left out, and also reported with them).
// Prints MAE, RMSE, MAPE and MASE at horizons 1, 3 and 12, training time
// and the latency of one slot (observe + forecast, all chains), and checks
// the targets: the RNN's MASE <= 0.8 at horizon 1 and below every baseline
// at every horizon. Writes a CSV of the table and SVG plots (training
// curves, forecast vs actual) to the output folder (default
// predictor-bench/). One LibTorch thread.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "option_values.h"
#include "rnn_predictor.h"
#include "trace_split.h"
#include "progress_bar.h"
#include "rate_trace.h"
#include "svg_chart.h"

namespace {

constexpr double kTargetMaseH1 = 0.8;
const std::vector<std::size_t> kHorizons{1, 3, 12};
std::size_t max_epochs = 12;  // keeps the whole bench near 10 minutes on one core
std::string only_case, only_cell;  // optional filters (arguments 3 and 4), for quick experiments
std::uint64_t seed = 1;            // argument 5: the RNNs' training seed

std::string shared(const std::string& relative) {
  const char* root = std::getenv("NFV_SHARED_DATA");
  return std::string(root ? root : "../shared/data") + "/" + relative;
}

struct ModelResult {
  std::string model;
  std::vector<nfv::ForecastErrors> errors;           // per horizon
  std::vector<nfv::ForecastErrors> errors_all;       // including skipped targets (NASA outage)
  double train_seconds = 0;
  double latency_p50_us = 0, latency_p99_us = 0;
  std::map<std::size_t, std::vector<double>> plotted;  // horizon -> forecast for the plotted chain per target row
};

struct Case {
  std::string name;
  nfv::RateTrace train, test;
  std::size_t period() const { return nfv::daily_period_slots(train.step_seconds); }
  std::function<bool(std::size_t)> skip;  // targets left out of the main table
  std::vector<std::size_t> plot_chains;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * double(v.size())))];
}

std::vector<double> train_means(const nfv::RateTrace& t) {
  std::vector<double> sums = t.column_sums();
  for (double& s : sums) s /= double(t.rows());
  return sums;
}

// Warm-up on the training block, then the walk through the test block.
ModelResult evaluate(nfv::Predictor& p, const Case& c, const std::vector<double>& scale, const std::vector<double>& mean,
                     std::size_t plot_chain) {
  ModelResult r;
  r.model = p.name();
  nfv::observe_all(p, c.train);
  nfv::EvaluationSettings settings;
  settings.horizons = kHorizons;
  settings.skip_target = c.skip;
  for (std::size_t h : kHorizons) r.plotted[h].assign(c.test.rows(), NAN);
  settings.on_forecast = [&](std::size_t row, const nfv::RateForecast& f) {
    for (std::size_t h : kHorizons)
      if (row + h - 1 < c.test.rows()) r.plotted[h][row + h - 1] = f.at(plot_chain, h - 1);
  };
  std::vector<double> latency;
  r.errors = nfv::evaluate_forecasts(p, c.test, scale, mean, settings, &latency);
  r.latency_p50_us = percentile(latency, 0.5);
  r.latency_p99_us = percentile(latency, 0.99);
  return r;
}

void print_table(const std::string& title, const std::vector<ModelResult>& results, bool all_targets) {
  std::printf("\n%s\n", title.c_str());
  std::printf("%-15s %3s %12s %12s %9s %8s %10s %14s\n", "model", "h", "MAE", "RMSE", "MAPE %", "MASE", "train s",
              "slot us p50/99");
  for (const ModelResult& r : results) {
    const auto& errors = all_targets ? r.errors_all : r.errors;
    for (const nfv::ForecastErrors& e : errors)
      std::printf("%-15s %3zu %12.4f %12.4f %9.2f %8.4f %10.1f %7.0f/%-6.0f\n", r.model.c_str(), e.horizon, e.mae, e.rmse,
                  e.mape, e.mase, r.train_seconds, r.latency_p50_us, r.latency_p99_us);
  }
}

// The RNN's MASE <= 0.8 at h = 1, and below every baseline at every horizon.
bool check_targets(const std::string& name, const std::vector<ModelResult>& results) {
  bool all = true;
  for (const ModelResult& rnn : results) {
    if (rnn.model != "gru" && rnn.model != "lstm") continue;
    for (std::size_t i = 0; i < kHorizons.size(); ++i) {
      std::string beaten_by;
      for (const ModelResult& base : results)
        if (base.model != "gru" && base.model != "lstm" && base.errors[i].mase <= rnn.errors[i].mase)
          beaten_by += " " + base.model;
      const bool h1_ok = kHorizons[i] != 1 || rnn.errors[i].mase <= kTargetMaseH1;
      const bool ok = beaten_by.empty() && h1_ok;
      all = all && ok;
      std::printf("target %-7s %-4s h=%-2zu MASE %.4f: %s%s%s\n", name.c_str(), rnn.model.c_str(), kHorizons[i],
                  rnn.errors[i].mase, ok ? "met" : "NOT met", h1_ok ? "" : " (above 0.8)",
                  beaten_by.empty() ? "" : (" (not below:" + beaten_by + ")").c_str());
    }
  }
  return all;
}

void plot_curves(const std::string& path, const std::string& title, const std::map<std::string, nfv::TrainReport>& reports) {
  nfv::LineChart chart;
  chart.title = title;
  chart.x_label = "epoch";
  chart.y_label = "loss (MASE units)";
  chart.log_y = true;
  for (const auto& [model, report] : reports) {
    nfv::ChartSeries train{model + " train", {}, {}, "", false}, val{model + " validation", {}, {}, "", true};
    for (const nfv::EpochRecord& e : report.epochs) {
      train.x.push_back(double(e.epoch));
      train.y.push_back(e.train_loss);
      val.x.push_back(double(e.epoch));
      val.y.push_back(e.validation_loss);
    }
    train.color = val.color = model == "gru" ? "#1f77b4" : "#d62728";
    chart.series.push_back(train);
    chart.series.push_back(val);
  }
  nfv::write_svg(chart, path);
}

void plot_forecasts(const std::string& dir, const Case& c, std::size_t chain, const std::vector<ModelResult>& results) {
  const std::size_t rows = std::min(2 * c.period(), c.test.rows());
  for (std::size_t h : {std::size_t{1}, std::size_t{12}}) {
    nfv::LineChart chart;
    chart.title = c.name + " " + c.test.columns[chain] + ": forecast " + std::to_string(h) + " slot(s) ahead vs actual";
    chart.x_label = "hours into the test block";
    chart.y_label = nfv::unit_name(c.test.unit);
    nfv::ChartSeries actual{"actual", {}, {}, "#000000", false};
    for (std::size_t r = 0; r < rows; ++r) {
      actual.x.push_back(double(r) * c.test.step_seconds / 3600);
      actual.y.push_back(c.test.at(r, chain));
    }
    chart.series.push_back(actual);
    for (const ModelResult& m : results) {
      if (m.model != "gru" && m.model != "ewma" && m.model != "seasonal-naive" && m.model != "holt-winters") continue;
      nfv::ChartSeries s{m.model, {}, {}, "", m.model != "gru"};
      s.color = m.model == "gru"              ? "#1f77b4"
                : m.model == "ewma"           ? "#9467bd"
                : m.model == "seasonal-naive" ? "#2ca02c"
                                              : "#ff7f0e";
      for (std::size_t r = 0; r < rows; ++r) {
        s.x.push_back(double(r) * c.test.step_seconds / 3600);
        s.y.push_back(m.plotted.at(h)[r]);
      }
      chart.series.push_back(s);
    }
    std::string file = c.test.columns[chain];
    for (char& ch : file)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    nfv::write_svg(chart, dir + "/forecast_" + c.name + "_" + file + "_h" + std::to_string(h) + ".svg");
  }
}

bool run_case(const Case& c, const std::string& dir, std::ofstream& csv) {
  const std::size_t chains = c.train.columns.size();
  std::printf("\n=== %s: train %s (%zu slots), test %s (%zu slots), %zu chain(s), %s ===\n", c.name.c_str(),
              c.train.label.c_str(), c.train.rows(), c.test.label.c_str(), c.test.rows(), chains,
              nfv::unit_name(c.train.unit).c_str());
  const std::vector<double> scale = nfv::seasonal_naive_scale(c.train, c.period());
  const std::vector<double> mean = train_means(c.train);
  const std::size_t plot_chain = c.plot_chains.front();

  std::vector<ModelResult> results;
  // `fresh` makes an untouched copy for the pass over every target.
  auto add = [&](nfv::Predictor& p, double train_seconds, const std::function<std::unique_ptr<nfv::Predictor>()>& fresh) {
    ModelResult r = evaluate(p, c, scale, mean, plot_chain);
    r.train_seconds = train_seconds;
    r.errors_all = r.errors;
    if (c.skip) {
      std::unique_ptr<nfv::Predictor> again = fresh();
      nfv::observe_all(*again, c.train);
      nfv::EvaluationSettings all;
      all.horizons = kHorizons;
      r.errors_all = nfv::evaluate_forecasts(*again, c.test, scale, mean, all);
    }
    results.push_back(std::move(r));
  };

  // Baselines (Holt-Winters and EWMA fit their parameters on the training block).
  {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<nfv::HoltWintersParams> hw = nfv::fit_holt_winters(c.train, c.period());
    const double hw_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<double> alpha = nfv::fit_ewma(c.train);
    std::vector<std::function<std::unique_ptr<nfv::Predictor>()>> makers = {
        [&] { return nfv::make_last_value(chains); }, [&] { return nfv::make_ewma(alpha, chains); },
        [&] { return nfv::make_seasonal_naive(chains, c.period()); },
        [&] { return nfv::make_holt_winters(hw, chains, c.period()); }};
    for (auto& make : makers) {
      auto p = make();
      add(*p, p->name() == "holt-winters" ? hw_seconds : 0, make);
    }
  }

  // The RNNs, trained on the training block (its last two days validate).
  std::map<std::string, nfv::TrainReport> reports;
  for (nfv::RnnCell cell : {nfv::RnnCell::gru, nfv::RnnCell::lstm}) {
    if (!only_cell.empty() && only_cell != nfv::rnn_cell_name(cell)) continue;
    nfv::RnnConfig config;
    config.cell = cell;
    nfv::RnnTrainSettings settings;
    settings.max_epochs = max_epochs;
    settings.seed = seed;
    nfv::ProgressBar bar(c.name + " " + nfv::rnn_cell_name(cell), true);
    double last_val = NAN;
    nfv::TrainReport report;
    auto rnn = nfv::RnnPredictor::train(
        c.train, config, settings, &report,
        [&](std::size_t epoch, std::size_t batch, std::size_t batches, double loss, double val) {
          if (!std::isnan(val)) last_val = val;
          char text[128];
          std::snprintf(text, sizeof text, "epoch %zu/%zu loss %.5f validation %.5f", epoch, settings.max_epochs, loss,
                        last_val);
          bar.update((epoch - 1) * batches + batch, settings.max_epochs * batches, text);
        });
    char done[128];
    std::snprintf(done, sizeof done, "%zu epochs, best %zu, %.1f s", report.epochs.size(), report.best_epoch, report.seconds);
    bar.finish(done);
    std::printf("%s %s: validation (MASE units, last %zu training slots) per step, EWMA base -> network x blend:\n",
                c.name.c_str(), nfv::rnn_cell_name(cell).c_str(), *nfv::resolved_train_settings(settings, nfv::resolved_rnn_config(config, c.train.step_seconds), c.train.rows(), c.name).validation_slots);
    for (std::size_t h = 0; h < report.blend.size(); ++h)
      std::printf("  h=%-2zu %.4f -> %.4f (blend %.2f)\n", h + 1, report.base_validation[h], report.validation[h],
                  report.blend[h]);
    const std::string checkpoint = dir + "/" + c.name + "_" + nfv::rnn_cell_name(cell) + ".pt";
    rnn->save(checkpoint);
    add(*rnn, report.seconds, [&]() -> std::unique_ptr<nfv::Predictor> { return nfv::RnnPredictor::load(checkpoint); });
    reports[nfv::rnn_cell_name(cell)] = report;
  }

  print_table(c.name + (c.skip ? " (targets in the outage left out)" : ""), results, false);
  if (c.skip) print_table(c.name + " (every target, the outage included)", results, true);
  for (const ModelResult& r : results)
    for (std::size_t i = 0; i < r.errors.size(); ++i) {
      const nfv::ForecastErrors& e = r.errors[i];
      const nfv::ForecastErrors& a = r.errors_all[i];
      csv << c.name << ',' << r.model << ',' << e.horizon << ',' << e.mae << ',' << e.rmse << ',' << e.mape << ','
          << e.mase << ',' << a.mae << ',' << a.rmse << ',' << a.mape << ',' << a.mase << ',' << r.train_seconds << ','
          << r.latency_p50_us << ',' << r.latency_p99_us << '\n';
    }
  plot_curves(dir + "/training_" + c.name + ".svg", c.name + ": training and validation loss per epoch", reports);
  plot_forecasts(dir, c, plot_chain, results);
  return check_targets(c.name, results);
}

}  // namespace

constexpr const char* kUsage = R"(usage: predictor_accuracy [options]
  --out DIR          CSV and plots (default predictor-bench)
  --epochs N         at most N epochs per RNN (default 12)
  --case NAME        abilene, nasa or all (default all); ignored with --trace
  --cell NAME        gru, lstm or both (default both)
  --seed N           the RNNs' training seed (default 1)
  --trace FILE       one trace of your own instead of Abilene and NASA
  --trace-unit U     its unit, when it has no units line
  --split S          train/test: blocks, fraction:F, rows:N, time:ISO (default:
                     blocks when the trace has two, else fraction:0.75)
  --block N          the block tested on (default the last)
  --resample SECONDS average every trace's rows into steps of this length
)";

int main(int argc, char** argv) {
  std::string dir = "predictor-bench", trace_path, trace_unit;
  std::optional<nfv::TraceSplit> split;
  std::optional<std::size_t> block;
  std::optional<double> resample;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string option = argv[i];
      if (option == "--help" || option == "-h") {
        std::printf("%s", kUsage);
        return 0;
      }
      if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value");
      const std::string value = argv[++i];
      if (option == "--out") dir = value;
      else if (option == "--epochs") max_epochs = nfv::option_count(option, value);
      else if (option == "--case") only_case = value == "all" ? "" : value;
      else if (option == "--cell") only_cell = value == "both" ? "" : value;
      else if (option == "--seed") seed = nfv::option_count(option, value);
      else if (option == "--trace") trace_path = value;
      else if (option == "--trace-unit") trace_unit = value;
      else if (option == "--split") split = nfv::parse_trace_split(value);
      else if (option == "--block") block = nfv::option_count(option, value);
      else if (option == "--resample") resample = nfv::option_number(option, value);
      else throw std::invalid_argument("unknown option '" + option + "' (--help)");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "predictor_accuracy: %s\n", e.what());
    return 1;
  }
  std::filesystem::create_directories(dir);
  nfv::set_torch_threads(1);
  const auto resampled = [&](nfv::RateTrace t) { return resample ? t.resampled(*resample) : t; };
  std::ofstream csv(dir + "/predictor_accuracy.csv");
  csv << "dataset,model,horizon,mae,rmse,mape_percent,mase,mae_all,rmse_all,mape_all_percent,mase_all,train_seconds,"
         "slot_latency_p50_us,slot_latency_p99_us\n";

  if (!trace_path.empty()) {
    nfv::RateTraceFile file = nfv::read_rate_trace_csv(trace_path, nfv::option_rate_unit("--trace-unit", trace_unit));
    for (nfv::RateTrace& b : file.blocks) b = resampled(b);
    const nfv::SplitTrace parts = nfv::split_trace(file, split.value_or(nfv::default_trace_split(file, true)), block);
    std::printf("trace %s: %s\n", trace_path.c_str(), parts.description.c_str());
    Case t{std::filesystem::path(trace_path).stem().string(), parts.train, parts.test, {}, {}};
    const std::vector<double> sums = t.train.column_sums();
    t.plot_chains = {static_cast<std::size_t>(std::max_element(sums.begin(), sums.end()) - sums.begin())};
    const bool ok = run_case(t, dir, csv);
    std::printf("\ntargets: %s; CSV and plots in %s/\n", ok ? "met" : "NOT met", dir.c_str());
    return 0;
  }

  const nfv::RateTraceFile abilene = nfv::load_abilene_traffic(shared("traffic/abilene/abilene_tm_5min_mbps.csv"));
  Case a{"abilene", resampled(abilene.blocks.at(0)), resampled(abilene.blocks.at(1)), {}, {}};
  // Plot the busiest OD pair.
  const std::vector<double> sums = a.train.column_sums();
  a.plot_chains = {static_cast<std::size_t>(std::max_element(sums.begin(), sums.end()) - sums.begin())};

  std::vector<nfv::NasaSegment> nasa = nfv::load_nasa_requests(shared("traffic/nasa/nasa_http_requests_5min.csv"));
  Case n{"nasa", resampled(nasa.at(0).requests), resampled(nasa.at(1).requests), {}, {0}};
  const std::size_t per_row = resample ? static_cast<std::size_t>(std::llround(*resample / nasa.at(1).requests.step_seconds)) : 1;
  std::vector<nfv::Outage> outages = nasa.at(1).outages;
  for (nfv::Outage& o : outages) {  // in the (resampled) test's rows
    o.first_row /= per_row;
    o.rows = std::max<std::size_t>(1, o.rows / per_row);
  }
  for (const nfv::Outage& o : outages)
    std::printf("nasa %s: outage rows %zu..%zu (%zu slots) left out of the main table\n", n.test.label.c_str(), o.first_row,
                o.first_row + o.rows - 1, o.rows);
  n.skip = [outages](std::size_t row) {
    for (const nfv::Outage& o : outages)
      if (row >= o.first_row && row < o.first_row + o.rows) return true;
    return false;
  };

  const bool run_abilene = only_case.empty() || only_case == "abilene";
  const bool run_nasa = only_case.empty() || only_case == "nasa";
  const bool abilene_ok = run_abilene && run_case(a, dir, csv);
  const bool nasa_ok = run_nasa && run_case(n, dir, csv);
  auto verdict = [](bool run, bool ok) { return !run ? "not run" : ok ? "met" : "NOT met"; };
  std::printf("\ntargets: Abilene %s, NASA %s; CSV and plots in %s/\n", verdict(run_abilene, abilene_ok),
              verdict(run_nasa, nasa_ok), dir.c_str());
  return 0;
}
