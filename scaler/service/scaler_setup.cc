#include "scaler_setup.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "calibration.h"
#include "scenario.h"
#include "option_values.h"
#include "rate_trace.h"
#include "topology.h"

namespace nfv {
namespace {



std::optional<RateUnit> trace_unit(const std::string& text, const YamlSource& source) {
  try {
    return option_rate_unit("trace.unit", text);
  } catch (const std::invalid_argument&) {
    throw std::runtime_error(source.locate("trace.unit", "Mbit/s, req/s or pkt/s, not '" + text + "'"));
  }
}

struct TraceRows {
  RateTrace run;      // the rows run: a block, a window, every Nth row
  RateTrace history;  // up to `warm_up` of those Nth rows just before the window
};

// `warm_up`: none = a week of rows.
TraceRows trace_rows(const scaler::TraceSource& t, std::optional<std::size_t> warm_up, const YamlSource& source) {
  const RateTraceFile file = t.abilene() ? load_abilene_traffic(shared_data_path("traffic/abilene/abilene_tm_5min_mbps.csv"))
                                         : read_rate_trace_csv(t.csv(), trace_unit(t.unit(), source));
  if (t.block() >= file.blocks.size())
    throw std::runtime_error(source.locate("trace.block", "a block of the trace, which has " +
                                                              std::to_string(file.blocks.size())));
  const RateTrace& block = file.blocks[t.block()];
  if (t.first_row() >= block.rows())
    throw std::runtime_error(source.locate("trace.first_row", "a row of the block, which has " + std::to_string(block.rows())));
  const std::size_t stride = std::max<std::size_t>(t.row_stride(), 1);
  TraceRows out;
  out.run = block.slice(t.first_row(), block.rows() - t.first_row()).every(stride);
  if (t.rows() > 0 && t.rows() < out.run.rows()) out.run = out.run.slice(0, t.rows());
  // The history keeps the run's stride, so its last row is the step before slot 0.
  const std::size_t rows =
      std::min<std::size_t>(warm_up.value_or(default_warm_up_slots(out.run.step_seconds)), t.first_row() / stride);
  out.history = block.slice(t.first_row() - rows * stride, rows * stride).every(stride);
  return out;
}

double wall_clock_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The config's forecast: the typed fields of the common models, and any
// predictor's parameters by name.
ForecastSpec forecast_spec(const scaler::ForecastSource& f, const YamlSource& source) {
  ForecastSpec spec;
  if (!f.model().empty()) spec.model = f.model();
  spec.params.insert(f.params().begin(), f.params().end());
  const auto number = [](double value) {
    std::ostringstream text;
    text.precision(17);
    text << value;
    return text.str();
  };
  if (!f.checkpoint().empty()) spec.params["checkpoint"] = f.checkpoint();
  if (f.ewma_alpha() > 0) spec.params["alpha"] = number(f.ewma_alpha());
  if (f.season_slots() > 0) spec.params["season"] = std::to_string(f.season_slots());
  if (f.fine_tune_every() > 0) spec.params["fine_tune_every"] = std::to_string(f.fine_tune_every());
  if (f.fine_tune_window() > 0) spec.params["fine_tune_window"] = std::to_string(f.fine_tune_window());
  const auto models = forecast_models();
  bool known = false;
  std::string list;
  for (const auto& [name, description] : models) {
    known = known || name == spec.model;
    list += (list.empty() ? "" : ", ") + name;
  }
  if (!known) throw std::runtime_error(source.locate("forecast.model", list + ", not '" + spec.model + "'"));
  return spec;
}


ScalerSetup build(ScalerSetup setup) {
  scaler::ScalerConfig& c = setup.config;
  const YamlSource& source = setup.source;
  if (c.topology().empty()) throw std::runtime_error(source.locate("topology", "a topology YAML file"));
  // A path that names no file is this file's mistake: said at its line.
  for (const auto& [field, path] : {std::pair{"topology", c.topology()}, std::pair{"calibration", c.calibration()}})
    if (!path.empty() && !std::filesystem::is_regular_file(path))
      throw std::runtime_error(source.locate(field, "a file that can be read, not '" + path + "'"));
  Topology topology = load_topology_yaml(c.topology());
  if (!c.calibration().empty()) {
    const LoadedCalibration calibration = load_calibration(c.calibration());
    for (const std::string& line : apply_calibration(calibration, topology)) setup.notes.push_back("calibrated " + line);
    if (calibration.message.queue_packets_per_instance() > 0 && c.queue_packets() == 0)
      c.set_queue_packets(calibration.message.queue_packets_per_instance());
  }
  if (c.slot_seconds() == 0) c.set_slot_seconds(1);
  if (c.packet_bytes() == 0) c.set_packet_bytes(1024);
  if (c.volume_scale() == 0) c.set_volume_scale(1);
  if (c.queue_packets() == 0) c.set_queue_packets(1024);
  if (c.sla_penalty() == 0) c.set_sla_penalty(10);
  if (c.horizon() == 0) c.set_horizon(1);
  if (!c.has_journal_max_mib()) c.set_journal_max_mib(64);
  if (!(c.journal_max_mib() >= 0 && c.journal_max_mib() <= 1 << 20))
    throw std::runtime_error(source.locate("journal_max_mib", "a size in MiB from 0 (never rotate) to 1048576"));
  if (c.sla_ms() == 0) c.set_sla_ms(60);
  if (c.vnfs().empty()) c.set_vnfs("counter");
  if (c.policy().name().empty()) c.mutable_policy()->set_name("static");
  if (!(c.slot_seconds() > 0)) throw std::runtime_error(source.locate("slot_seconds", "> 0 seconds"));
  if (!(c.packet_bytes() > 0)) throw std::runtime_error(source.locate("packet_bytes", "> 0 bytes"));
  if (!(c.volume_scale() > 0)) throw std::runtime_error(source.locate("volume_scale", "> 0"));
  if (c.queue_packets() < 0) throw std::runtime_error(source.locate("queue_packets", ">= 0 packets"));

  SimSettings settings;
  settings.scale.slot_wall_seconds = c.slot_seconds();
  settings.scale.mean_packet_bytes = c.packet_bytes();
  settings.scale.volume_scale = c.volume_scale();
  settings.queue_packets_per_instance = c.queue_packets();
  settings.sla.price = c.sla_penalty();
  try {
    settings.sla.basis = parse_sla_basis(c.sla_basis().empty() ? "gb" : c.sla_basis());
  } catch (const std::exception&) {
    throw std::runtime_error(source.locate("sla_basis", "gb or packet, not '" + c.sla_basis() + "'"));
  }

  const bool has_trace = c.trace().abilene() || !c.trace().csv().empty();
  if (c.backend() != scaler::BACKEND_PODS && !has_trace)
    throw std::runtime_error(source.locate("trace", "a trace (csv or abilene) for the simulator backend"));
  if (has_trace) {
    const TraceRows rows = trace_rows(
        c.trace(), c.forecast().has_warm_up_slots() ? std::optional<std::size_t>(c.forecast().warm_up_slots()) : std::nullopt,
        source);
    const RateTrace& trace = rows.run;
    if (all_od_pairs(trace)) topology.chains = chains_for_od_pairs(trace, topology, option_list(c.vnfs()), c.sla_ms());
    settings.scale.trace_step_seconds = trace.step_seconds;
    setup.model = std::make_shared<const SystemModel>(topology, settings);
    auto arrivals = std::make_shared<ArrivalSchedule>(arrivals_for_chains(trace, topology, settings.scale));
    setup.notes.push_back("mapping " + arrivals->description);
    setup.mapping = arrivals->mapping;
    setup.arrivals = std::move(arrivals);
    if (rows.history.rows() > 0) {
      auto history = std::make_shared<ArrivalSchedule>(arrivals_for_chains(rows.history, topology, settings.scale));
      // Just before the run in trace time, also for a trace without timestamps (both would start at 0).
      history->mapping.start_unix_s =
          setup.mapping.start_unix_s - static_cast<double>(history->slots()) * setup.mapping.step_seconds;
      setup.history = std::move(history);
      setup.notes.push_back("forecast warm-up on the " + std::to_string(rows.history.rows()) + " trace rows before the first");
    }
  } else {
    // No trace: a slot is what the config says in trace time, counted from
    // the slot clock's start on the wall clock.
    if (c.trace_step_seconds() < 0) throw std::runtime_error(source.locate("trace_step_seconds", "> 0 seconds"));
    settings.scale.trace_step_seconds = c.trace_step_seconds() > 0 ? c.trace_step_seconds() : c.slot_seconds();
    setup.model = std::make_shared<const SystemModel>(topology, settings);
    setup.mapping.step_seconds = settings.scale.trace_step_seconds;
    setup.mapping.unit = trace_unit(c.trace().unit(), source).value_or(RateUnit::mbit_per_s);
    setup.mapping.pps_per_unit = settings.scale.emulated_packets_per_s(1.0, setup.mapping.unit);
    setup.mapping.start_unix_s = c.start_unix_s() > 0 ? c.start_unix_s() : wall_clock_now();
  }
  if (c.start_unix_s() < 0) throw std::runtime_error(source.locate("start_unix_s", "unix seconds >= 0"));
  setup.start_unix_s = c.start_unix_s();
  setup.forecast = forecast_spec(c.forecast(), source);
  if (c.backend() == scaler::BACKEND_PODS) {
    if (c.pods().empty()) throw std::runtime_error(source.locate("pods", "at least one pod for the pods backend"));
    for (int p = 0; p < c.pods_size(); ++p) {
      const std::string field = "pods[" + std::to_string(p) + "]";
      if (c.pods(p).control().empty()) throw std::runtime_error(source.locate(field + ".control", "host:port of its control API"));
      const std::string& address = c.pods(p).control();
      const auto colon = address.rfind(':');
      if (colon == std::string::npos) throw std::runtime_error(source.locate(field + ".control", "host:port of its control API"));
      // The token goes with every request: only to loopback in plaintext.
      if (const TlsFilesProblem problem = tls_files_problem(tls_files(c.pods(p).tls()), field + ".tls", address.substr(0, colon),
                                                        "control " + address);
          !problem.message.empty())
        throw std::runtime_error(source.locate(problem.field, problem.message));
      for (int s = 0; s < c.pods(p).sites_size(); ++s)
        if (!topology.find_site(c.pods(p).sites(s)))
          throw std::runtime_error(source.locate(field + ".sites[" + std::to_string(s) + "]",
                                                 "a site of topology " + topology.name + ", no '" + c.pods(p).sites(s) + "'"));
    }
  }
  const std::string listen = c.control().listen().empty() ? "127.0.0.1" : c.control().listen();
  if (const TlsFilesProblem problem = tls_files_problem(tls_files(c.control().tls()), "control.tls", listen, "listen " + listen);
      (c.control().port() > 0 || tls_files(c.control().tls()).enabled()) && !problem.message.empty())
    throw std::runtime_error(source.locate(problem.field, problem.message));
  setup.limits.min.assign(topology.sites.size(), 0.0);
  setup.limits.max.assign(topology.sites.size(), 0.0);
  for (int i = 0; i < c.limits_size(); ++i) {
    const auto site = topology.find_site(c.limits(i).site());
    if (!site)
      throw std::runtime_error(source.locate("limits[" + std::to_string(i) + "].site", "a site, no '" + c.limits(i).site() + "'"));
    if (c.limits(i).max_instances() > 0 && c.limits(i).max_instances() < c.limits(i).min_instances())
      throw std::runtime_error(source.locate("limits[" + std::to_string(i) + "].max_instances", ">= min_instances"));
    setup.limits.min[*site] = c.limits(i).min_instances();
    setup.limits.max[*site] = c.limits(i).max_instances();
  }
  return setup;
}

}  // namespace

ScalerSetup parse_scaler_setup(const std::string& text, const std::string& file_name) {
  ScalerSetup setup;
  setup.source = parse_yaml_message(text, file_name, setup.config);
  return build(std::move(setup));
}

void set_slot_clock(ScalerSetup& setup, double start_unix_s) {
  setup.config.set_start_unix_s(start_unix_s);
  setup.start_unix_s = start_unix_s;
  if (!setup.arrivals) setup.mapping.start_unix_s = start_unix_s;  // no trace: the wall clock is the trace time
}

ScalerSetup load_scaler_setup(const std::string& path) {
  ScalerSetup setup;
  setup.source = load_yaml_message(path, setup.config);
  return build(std::move(setup));
}

}  // namespace nfv
