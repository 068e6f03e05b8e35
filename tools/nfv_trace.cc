// nfv-trace: makes and reshapes rate traces (docs/traces.md).
//   nfv-trace gravity --topology FILE [options] > trace.csv
//   nfv-trace resample --trace FILE --step SECONDS [--trace-unit U] > trace.csv
//   nfv-trace columns --trace FILE --column OLD=NEW ... > trace.csv
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gravity_trace.h"
#include "option_values.h"
#include "rate_trace.h"
#include "topology.h"

namespace {

constexpr const char* kUsage = R"(usage:
  nfv-trace gravity --topology FILE [options]    a synthetic OD trace (CSV on stdout)
      --rows N            rows (default 864)
      --step SECONDS      trace time of a row (default 300)
      --mbps X            all pairs together, on average (default 10000)
      --amplitude A       diurnal peak over mean, minus 1 (default 0.6)
      --noise S           log-normal noise per cell (default 0.15)
      --pairs N           keep the heaviest N ordered pairs (default all)
      --seed N            (default 1)
  nfv-trace resample --trace FILE --step SECONDS [--trace-unit U]
                          every block's rows averaged into steps of SECONDS (CSV on stdout)
  nfv-trace columns --trace FILE --column OLD=NEW [--column ...] [--block N] [--trace-unit U]
                          the chosen columns, renamed (e.g. an OD pair as a chain of
                          a topology), of every block or block N (CSV on stdout)

A gravity trace: each site a seeded log-normal mass, a pair's share the
product of its masses damped by distance, a diurnal curve by the source's
longitude (local time), log-normal noise; columns SRC->DST in Mbit/s.
)";

int gravity(int argc, char** argv) {
  nfv::GravityTraceShape shape;
  std::string topology;
  for (int i = 2; i < argc; i += 2) {
    const std::string option = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value");
    const std::string value = argv[i + 1];
    if (option == "--topology") topology = value;
    else if (option == "--rows") shape.rows = nfv::option_count(option, value);
    else if (option == "--step") shape.step_seconds = nfv::option_number(option, value);
    else if (option == "--mbps") shape.total_mbps = nfv::option_number(option, value);
    else if (option == "--amplitude") shape.diurnal_amplitude = nfv::option_number(option, value);
    else if (option == "--noise") shape.noise = nfv::option_number(option, value);
    else if (option == "--pairs") shape.pairs = nfv::option_count(option, value);
    else if (option == "--seed") shape.seed = nfv::option_count(option, value);
    else throw std::invalid_argument("unknown option '" + option + "' (nfv-trace --help)");
  }
  if (topology.empty()) throw std::invalid_argument("gravity: --topology FILE is required");
  std::cout << nfv::rate_trace_to_csv(nfv::gravity_od_trace(nfv::load_topology_yaml(topology), shape));
  return 0;
}

int resample(int argc, char** argv) {
  std::string trace, unit;
  double step = 0;
  for (int i = 2; i < argc; i += 2) {
    const std::string option = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value");
    const std::string value = argv[i + 1];
    if (option == "--trace") trace = value;
    else if (option == "--step") step = nfv::option_number(option, value);
    else if (option == "--trace-unit") unit = value;
    else throw std::invalid_argument("unknown option '" + option + "' (nfv-trace --help)");
  }
  if (trace.empty() || !(step > 0)) throw std::invalid_argument("resample: --trace FILE and --step SECONDS are required");
  const nfv::RateTraceFile file = nfv::read_rate_trace_csv(trace, nfv::option_rate_unit("--trace-unit", unit));
  std::vector<nfv::RateTrace> blocks;
  for (const nfv::RateTrace& block : file.blocks) blocks.push_back(block.resampled(step));
  std::cout << nfv::rate_trace_to_csv(blocks);
  return 0;
}

int columns(int argc, char** argv) {
  std::string trace, unit;
  std::vector<std::pair<std::string, std::string>> wanted;
  std::optional<std::size_t> block;
  for (int i = 2; i < argc; i += 2) {
    const std::string option = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value");
    const std::string value = argv[i + 1];
    if (option == "--trace") trace = value;
    else if (option == "--trace-unit") unit = value;
    else if (option == "--block") block = nfv::option_count(option, value);
    else if (option == "--column") {
      const auto equals = value.rfind('=');
      if (equals == std::string::npos || equals == 0 || equals + 1 == value.size())
        throw std::invalid_argument("--column: expected OLD=NEW, got '" + value + "'");
      wanted.emplace_back(value.substr(0, equals), value.substr(equals + 1));
    } else throw std::invalid_argument("unknown option '" + option + "' (nfv-trace --help)");
  }
  if (trace.empty() || wanted.empty()) throw std::invalid_argument("columns: --trace FILE and at least one --column OLD=NEW are required");
  const nfv::RateTraceFile file = nfv::read_rate_trace_csv(trace, nfv::option_rate_unit("--trace-unit", unit));
  if (block && *block >= file.blocks.size())
    throw std::invalid_argument("--block: " + trace + " has " + std::to_string(file.blocks.size()) + " block(s), numbered from 0");
  std::vector<nfv::RateTrace> blocks;
  for (std::size_t b = 0; b < file.blocks.size(); ++b) {
    if (block && b != *block) continue;
    const nfv::RateTrace& in = file.blocks[b];
    nfv::RateTrace out;
    out.label = in.label;
    out.step_seconds = in.step_seconds;
    out.unit = in.unit;
    out.start_unix_s = in.start_unix_s;
    std::vector<std::size_t> from;
    for (const auto& [old_name, new_name] : wanted) {
      from.push_back(in.column_index(old_name));  // throws naming a missing column
      out.columns.push_back(new_name);
    }
    for (std::size_t row = 0; row < in.rows(); ++row)
      for (std::size_t c : from) out.values.push_back(in.at(row, c));
    blocks.push_back(std::move(out));
  }
  std::cout << nfv::rate_trace_to_csv(blocks);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "gravity") return gravity(argc, argv);
    if (command == "resample") return resample(argc, argv);
    if (command == "columns") return columns(argc, argv);
    std::cout << kUsage;
    return command == "--help" || command == "-h" ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfv-trace: %s\n", e.what());
    return 1;
  }
}
