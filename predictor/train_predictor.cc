// nfv-train predictor: trains the RNN traffic predictor on one block of a
// rate trace, with validation early stopping, and writes the checkpoint
// (model, optimizer, normalization, config) and the training curve (CSV
// and SVG). Deterministic for a seed (one LibTorch thread by default).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rnn_predictor.h"
#include "train_command.h"
#include "option_values.h"
#include "progress_bar.h"
#include "rate_trace.h"
#include "svg_chart.h"

namespace {

constexpr const char* kUsage = R"(usage: nfv-train predictor [options]

  --trace FILE        rate trace CSV (default: the Abilene OD matrices,
                      $NFV_SHARED_DATA/traffic/abilene/abilene_tm_5min_mbps.csv)
  --trace-unit U      unit of a trace without a units line (Mbit/s, req/s, pkt/s)
  --nasa FILE         train on the NASA request series instead (blocks: jul, aug)
  --block N           block of the trace (default 0: Abilene March, NASA July)
  --model M           gru | lstm (default gru)
  --hidden N          hidden units (default 48)
  --layers N          recurrent layers (default 1)
  --horizon N         slots predicted (default 12)
  --quantiles A,B     quantile heads, e.g. 0.1,0.9 (default none)
  --period N          daily period in slots (default: one day of trace steps)
  --epochs N          at most N epochs (default 40)
  --patience N        stop after N epochs without a better validation loss (default 5)
  --validation N      the block's last N slots validate (default: two days of the
                      trace's steps, at most a quarter of the rows)
  --sequence N        truncated-BPTT window in slots (default: 16 hours of steps)
  --burn-in N         slots of each window without loss (default: 4 hours of steps)
  --batch N           windows per batch (default 128)
  --lr X              Adam learning rate (default 0.003)
  --seed N            random seed (default 1)
  --threads N         LibTorch threads (default 1: deterministic)
  --out FILE          checkpoint (default predictor.pt)
  --curve FILE        training curve CSV (default: the checkpoint + .curve.csv);
                      the plot goes next to it with .svg
  --quiet             no progress bar
)";

struct Options {
  std::string trace;
  std::string trace_unit;
  std::string nasa;
  std::size_t block = 0;
  nfv::RnnConfig config;
  nfv::RnnTrainSettings settings;
  std::optional<std::size_t> period;
  int threads = 1;
  std::string out = "predictor.pt";
  std::string curve;
  bool quiet = false;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help" || option == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (option == "--quiet") {
      o.quiet = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value (--help lists the options)");
    const std::string value = argv[++i];
    if (option == "--trace") o.trace = value;
    else if (option == "--trace-unit") o.trace_unit = value;
    else if (option == "--nasa") o.nasa = value;
    else if (option == "--block") o.block = nfv::option_count(option, value);
    else if (option == "--model") {
      try {
        o.config.cell = nfv::parse_rnn_cell(value);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("--model: " + std::string(e.what()));
      }
    } else if (option == "--hidden") o.config.hidden = nfv::option_positive_count(option, value);
    else if (option == "--layers") o.config.layers = nfv::option_positive_count(option, value);
    else if (option == "--horizon") o.config.horizon = nfv::option_positive_count(option, value);
    else if (option == "--quantiles") {
      std::stringstream in(value);
      for (std::string part; std::getline(in, part, ',');) {
        const double level = nfv::option_number(option, part);
        if (!(level > 0 && level < 1)) throw std::invalid_argument(option + ": levels must be in (0, 1), got '" + part + "'");
        o.config.quantiles.push_back(level);
      }
    } else if (option == "--period") o.period = nfv::option_positive_count(option, value);
    else if (option == "--epochs") o.settings.max_epochs = nfv::option_positive_count(option, value);
    else if (option == "--patience") o.settings.patience = nfv::option_positive_count(option, value);
    else if (option == "--validation") o.settings.validation_slots = nfv::option_count(option, value);
    else if (option == "--sequence") o.settings.sequence_slots = nfv::option_positive_count(option, value);
    else if (option == "--burn-in") o.settings.burn_in_slots = nfv::option_count(option, value);
    else if (option == "--batch") o.settings.batch = nfv::option_positive_count(option, value);
    else if (option == "--lr") o.settings.learning_rate = nfv::option_number(option, value);
    else if (option == "--seed") o.settings.seed = nfv::option_count(option, value);
    else if (option == "--threads") o.threads = static_cast<int>(nfv::option_positive_count(option, value));
    else if (option == "--out") o.out = value;
    else if (option == "--curve") o.curve = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  if (!o.trace.empty() && !o.nasa.empty()) throw std::invalid_argument("--nasa: give either --trace or --nasa");
  if (!(o.settings.learning_rate > 0)) throw std::invalid_argument("--lr: expected a positive number");
  return o;
}

std::string shared(const std::string& relative) {
  const char* root = std::getenv("NFV_SHARED_DATA");
  return std::string(root ? root : "../shared/data") + "/" + relative;
}

nfv::RateTrace load_block(const Options& o, std::string& source) {
  std::vector<nfv::RateTrace> blocks;
  if (!o.nasa.empty()) {
    source = o.nasa;
    for (nfv::NasaSegment& segment : nfv::load_nasa_requests(o.nasa)) blocks.push_back(std::move(segment.requests));
  } else {
    source = o.trace.empty() ? shared("traffic/abilene/abilene_tm_5min_mbps.csv") : o.trace;
    nfv::RateTraceFile file = o.trace.empty() ? nfv::load_abilene_traffic(source)
                                              : nfv::read_rate_trace_csv(source, nfv::option_rate_unit("--trace-unit", o.trace_unit));
    blocks = std::move(file.blocks);
  }
  if (o.block >= blocks.size())
    throw std::invalid_argument("--block: " + std::to_string(o.block) + ", " + source + " has " +
                                std::to_string(blocks.size()) + " blocks");
  return blocks[o.block];
}

void write_curve(const nfv::TrainReport& report, const std::string& csv_path, const std::string& title) {
  std::ofstream csv(csv_path);
  if (!csv) throw std::runtime_error(csv_path + ": cannot write");
  csv << "epoch,train_loss,validation_loss,seconds\n";
  nfv::LineChart chart;
  chart.title = title;
  chart.x_label = "epoch";
  chart.y_label = "loss (|error| + pinball, MASE units)";
  chart.log_y = true;
  chart.series = {{"train", {}, {}, "", false}, {"validation", {}, {}, "", true}};
  for (const nfv::EpochRecord& e : report.epochs) {
    csv << e.epoch << ',' << e.train_loss << ',' << e.validation_loss << ',' << e.seconds << '\n';
    chart.series[0].x.push_back(double(e.epoch));
    chart.series[0].y.push_back(e.train_loss);
    chart.series[1].x.push_back(double(e.epoch));
    chart.series[1].y.push_back(e.validation_loss);
  }
  const std::string svg_path = nfv::svg_path_for(csv_path);
  nfv::write_svg(chart, svg_path);
  std::printf("curve       %s, %s\n", csv_path.c_str(), svg_path.c_str());
}

int run(Options o) {
  nfv::set_torch_threads(o.threads);
  std::string source;
  const nfv::RateTrace trace = load_block(o, source);
  o.config.period_slots = o.period.value_or(0);
  o.config = nfv::resolved_rnn_config(o.config, trace.step_seconds);
  o.settings = nfv::resolved_train_settings(o.settings, o.config, trace.rows(), trace.label);
  std::printf("trace       %s, block %zu: %s, %zu slots of %g s, %zu chains (%s)\n", source.c_str(), o.block,
              trace.label.c_str(), trace.rows(), trace.step_seconds, trace.columns.size(),
              nfv::unit_name(trace.unit).c_str());
  std::printf("model       %s, hidden %zu x %zu layers, horizon %zu, period %zu slots", nfv::rnn_cell_name(o.config.cell).c_str(),
              o.config.hidden, o.config.layers, o.config.horizon, o.config.period_slots);
  for (double q : o.config.quantiles) std::printf(", q%g", q);
  std::printf("\ntraining    %zu train + %zu validation slots, windows of %zu (burn-in %zu), batch %zu, lr %g, "
              "seed %llu, %d thread(s)\n",
              trace.rows() - std::min(trace.rows(), *o.settings.validation_slots), *o.settings.validation_slots,
              *o.settings.sequence_slots, *o.settings.burn_in_slots, o.settings.batch, o.settings.learning_rate,
              static_cast<unsigned long long>(o.settings.seed), o.threads);

  nfv::ProgressBar bar("train", !o.quiet);
  nfv::TrainReport report;
  double last_validation = NAN;
  auto predictor = nfv::RnnPredictor::train(
      trace, o.config, o.settings, &report,
      [&](std::size_t epoch, std::size_t batch, std::size_t batches, double loss, double validation) {
        if (!std::isnan(validation)) last_validation = validation;
        char text[160];
        std::snprintf(text, sizeof text, "epoch %zu/%zu  batch %zu/%zu  loss %.5f  validation %.5f", epoch,
                      o.settings.max_epochs, batch, batches, loss, last_validation);
        bar.update((epoch - 1) * batches + batch, o.settings.max_epochs * batches, text);
      });
  // best_epoch 0: no epoch beat the untrained network, i.e. the EWMA base.
  const nfv::EpochRecord best = report.best_epoch > 0 ? report.epochs.at(report.best_epoch - 1) : nfv::EpochRecord{};
  char done[160];
  std::snprintf(done, sizeof done, "%zu epochs in %.1f s, best %zu: train %.5f validation %.5f%s", report.epochs.size(),
                report.seconds, best.epoch, best.train_loss, best.validation_loss,
                report.stopped_early ? " (stopped early)" : "");
  bar.finish(done);

  std::printf("epochs      %zu%s, best epoch %zu (train loss %.5f, validation loss %.5f), %.1f s\n",
              report.epochs.size(), report.stopped_early ? " (stopped early)" : "", best.epoch, best.train_loss,
              best.validation_loss, report.seconds);
  if (!report.blend.empty()) {
    std::printf("validation  MASE units per step ahead, EWMA base -> kept network (blend share g):\n");
    for (std::size_t h = 0; h < report.blend.size(); ++h)
      std::printf("            h=%-2zu %.4f -> %.4f (g %.2f)\n", h + 1, report.base_validation[h], report.validation[h],
                  report.blend[h]);
  }
  predictor->save(o.out);
  std::printf("checkpoint  %s\n", o.out.c_str());
  write_curve(report, o.curve.empty() ? o.out + ".curve.csv" : o.curve,
              nfv::rnn_cell_name(o.config.cell) + " on " + trace.label + ": loss per epoch");
  return 0;
}

const nfv::TrainCommandRegistration kPredictor{
    "predictor", "the RNN traffic predictor on a block of a rate trace",
    [](int argc, char** argv) { return run(parse_options(argc, argv)); }};

}  // namespace
