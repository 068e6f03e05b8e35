// nfv-sim: runs a scaler policy over a rate trace on the fluid simulator of
// a topology and prints what it cost, what it served and how many instances
// it ran (docs/simulator.md).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibration.h"
#include "environment.h"
#include "option_values.h"
#include "policy.h"
#include "rate_trace.h"
#include "simulator.h"
#include "topology.h"

namespace {

constexpr const char* kUsage = R"(usage: nfv-sim [options]

  --topology FILE        topology YAML (default topologies/data/abilene.yaml)
  --trace FILE           rate trace CSV (default: the Abilene OD matrices,
                         $NFV_SHARED_DATA/traffic/abilene/abilene_tm_5min_mbps.csv)
  --trace-unit U         unit of a trace without a units line (Mbit/s, req/s, pkt/s)
  --block N              contiguous block of the trace (default: the last; Abilene: April)
  --slots N              run only the first N slots of the block
  --vnfs A,B             VNF types of the chains made from SRC->DST columns (default counter)
  --sla-ms MS            SLA latency of those chains (default 60)
  --policy NAME          static | threshold | online (default static)
  --param KEY=VALUE      policy parameter, repeatable (see below)
  --horizon N            slots of forecast the policy gets (default 1)
  --slot-seconds S       wall seconds one slot lasts (default 1)
  --packet-bytes B       mean packet size (default 1024)
  --volume-scale X       emulated / real traffic (default 1)
  --queue-packets N      queue per instance, packets (default 1024)
  --sla-penalty P        price of traffic that misses the SLA (default 10)
  --sla-basis gb|packet  the penalty is per GB or per packet (default gb)
  --site-capacity N      instances every site can host, overriding the topology
  --calibration FILE     measured VNF rates and link delays (YAML)
  --csv FILE             one line per slot
  --chain-csv FILE       one line per slot and chain
  --quiet                no progress line
  --explain              print why the policy decided as it did, every slot

policy parameters:
  static      instances=N (1), placement=ingress|path (ingress), or
              plan=FILE: a plan file (YAML, proto/plan.proto) instead
  threshold   the same for the starting plan, and target (0.7), tolerance (0.1),
              window (5 slots), max_up (4), max_down (1), min (1), max (64)
  online      the same for the starting plan, and epsilon (0.1), eta (0 = ln(1 + K/epsilon)),
              utilisation (0.9), min_per_hop (1), keep (1),
              candidates=path|sla|plan (path), serve_weight (10), window (5) (docs/scaler.md)

A trace whose columns are SRC->DST pairs makes one chain per pair (from SRC
to DST through --vnfs); otherwise each column feeds the topology's chain of
that name.
)";

struct Options {
  std::string topology = "topologies/data/abilene.yaml";
  std::string trace;
  std::string trace_unit;
  std::optional<std::size_t> block;
  std::optional<std::size_t> slots;
  std::string vnfs = "counter";
  double sla_ms = 60;
  std::string policy = "static";
  nfv::PolicyParams params;
  std::size_t horizon = 1;
  nfv::SimSettings sim;
  std::optional<std::uint32_t> site_capacity;
  std::string calibration;
  std::string csv;
  std::string chain_csv;
  bool queue_given = false;
  bool quiet = false;
  bool explain = false;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

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
    if (option == "--explain") {
      o.explain = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value (--help lists the options)");
    const std::string value = argv[++i];
    if (option == "--topology") o.topology = value;
    else if (option == "--trace") o.trace = value;
    else if (option == "--trace-unit") o.trace_unit = value;
    else if (option == "--block") o.block = nfv::option_count(option, value);
    else if (option == "--slots") o.slots = nfv::option_count(option, value);
    else if (option == "--vnfs") o.vnfs = value;
    else if (option == "--sla-ms") o.sla_ms = nfv::option_number(option, value);
    else if (option == "--policy") o.policy = value;
    else if (option == "--param") {
      const auto equals = value.find('=');
      if (equals == std::string::npos || equals == 0) throw std::invalid_argument("--param: expected KEY=VALUE, got '" + value + "'");
      o.params[value.substr(0, equals)] = value.substr(equals + 1);
    } else if (option == "--horizon") o.horizon = nfv::option_count(option, value);
    else if (option == "--slot-seconds") o.sim.scale.slot_wall_seconds = nfv::option_number(option, value);
    else if (option == "--packet-bytes") o.sim.scale.mean_packet_bytes = nfv::option_number(option, value);
    else if (option == "--volume-scale") o.sim.scale.volume_scale = nfv::option_number(option, value);
    else if (option == "--queue-packets") {
      o.sim.queue_packets_per_instance = nfv::option_number(option, value);
      o.queue_given = true;
    }
    else if (option == "--sla-penalty") o.sim.sla.price = nfv::option_number(option, value);
    else if (option == "--sla-basis") o.sim.sla.basis = nfv::parse_sla_basis(value);
    else if (option == "--site-capacity") o.site_capacity = static_cast<std::uint32_t>(nfv::option_count(option, value));
    else if (option == "--calibration") o.calibration = value;
    else if (option == "--csv") o.csv = value;
    else if (option == "--chain-csv") o.chain_csv = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  return o;
}

std::string default_trace() {
  const char* root = std::getenv("NFV_SHARED_DATA");
  return std::string(root ? root : "../shared/data") + "/traffic/abilene/abilene_tm_5min_mbps.csv";
}

bool all_od_pairs(const nfv::RateTrace& trace) {
  for (const std::string& column : trace.columns)
    if (!nfv::od_pair(column)) return false;
  return true;
}

std::string percent(double part, double whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f%%", whole > 0 ? 100 * part / whole : 0.0);
  return text;
}

void print_summary(const nfv::EpisodeSummary& s, const nfv::SlaPenalty& sla) {
  const nfv::CostBreakdown& c = s.cost;
  const nfv::ChainTraffic& t = s.traffic;
  std::printf("\n%s policy over %zu slots\n", s.policy.c_str(), s.slots);
  std::printf("cost        %14.2f\n", c.total());
  std::printf("  operating %14.2f  (%s)\n", c.operating, percent(c.operating, c.total()).c_str());
  std::printf("  deploying %14.2f  (%s)\n", c.deployment, percent(c.deployment, c.total()).c_str());
  std::printf("  WAN       %14.2f  (%s)\n", c.wan, percent(c.wan, c.total()).c_str());
  std::printf("  SLA       %14.2f  (%s; %g per %s dropped or late)\n", c.sla_penalty,
              percent(c.sla_penalty, c.total()).c_str(), sla.price, nfv::basis_name(sla.basis).c_str());
  std::printf("traffic     %14.6g packets arrived\n", t.arrived);
  std::printf("  delivered %14.6g  (%s)\n", t.delivered, percent(t.delivered, t.arrived).c_str());
  std::printf("  dropped   %14.6g  (%s)\n", t.dropped, percent(t.dropped, t.arrived).c_str());
  std::printf("  late      %14.6g  (%s of delivered)\n", t.late, percent(t.late, t.delivered).c_str());
  std::printf("  queued    %14.6g  at the end\n", t.backlog);
  std::printf("  mean latency %.3f ms\n", t.mean_latency_ms);
  std::printf("instances   min %.0f, mean %.1f, max %.0f, at the end %.0f; %.0f started\n", s.min_instances,
              s.mean_instances, s.max_instances, s.final_instances, s.started_instances);
  std::printf("decisions   p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", s.decision_p50_ms, s.decision_p99_ms,
              s.decision_max_ms);
}

int run(const Options& o) {
  nfv::Topology topology = nfv::load_topology_yaml(o.topology);
  std::vector<std::string> calibrated;
  nfv::SimSettings settings = o.sim;
  if (!o.calibration.empty()) {
    const nfv::LoadedCalibration calibration = nfv::load_calibration(o.calibration);
    calibrated = nfv::apply_calibration(calibration, topology);
    // The command line wins over the file.
    const double queue = calibration.message.queue_packets_per_instance();
    if (queue > 0 && !o.queue_given) {
      calibrated.push_back("queue per instance: " + std::to_string(static_cast<long>(settings.queue_packets_per_instance)) +
                           " -> " + std::to_string(static_cast<long>(queue)) + " packets");
      settings.queue_packets_per_instance = queue;
    }
  }
  if (o.site_capacity)
    for (nfv::Site& site : topology.sites) site.instance_capacity = *o.site_capacity;

  const std::string trace_path = o.trace.empty() ? default_trace() : o.trace;
  const nfv::RateTraceFile file = o.trace.empty() ? nfv::load_abilene_traffic(trace_path)
                                                  : nfv::read_rate_trace_csv(trace_path, nfv::option_rate_unit("--trace-unit", o.trace_unit));
  const std::size_t block = o.block.value_or(file.blocks.size() - 1);
  if (block >= file.blocks.size())
    throw std::invalid_argument("--block: " + std::to_string(block) + ", the trace has " +
                                std::to_string(file.blocks.size()) + " blocks");
  nfv::RateTrace trace = file.blocks[block];
  if (o.slots && *o.slots < trace.rows()) trace = trace.slice(0, *o.slots);
  if (all_od_pairs(trace)) topology.chains = nfv::chains_for_od_pairs(trace, topology, split(o.vnfs, ','), o.sla_ms);

  settings.scale.trace_step_seconds = trace.step_seconds;
  auto model = std::make_shared<const nfv::SystemModel>(topology, settings);
  auto arrivals = std::make_shared<const nfv::ArrivalSchedule>(nfv::arrivals_for_chains(trace, topology, settings.scale));
  auto policy = nfv::make_policy(o.policy, o.params, model);
  nfv::ScalerEnvironment environment(model, arrivals, nfv::starting_plan(o.params, model->topology()));

  std::printf("topology  %s: %zu sites, %zu links\n", topology.name.c_str(), topology.sites.size(), topology.links.size());
  for (const std::string& line : calibrated) std::printf("calibrated %s\n", line.c_str());
  std::printf("trace     %s, block %zu of %zu: %s, %zu slots\n", trace_path.c_str(), block + 1, file.blocks.size(),
              trace.label.c_str(), trace.rows());
  std::printf("mapping   %s\n", arrivals->description.c_str());
  std::printf("chains    %zu, %zu instance pools possible\n", topology.chains.size(), model->pool_index().pools());
  std::printf("policy    %s", policy->name().c_str());
  for (const auto& [key, value] : o.params) std::printf(" %s=%s", key.c_str(), value.c_str());
  std::printf("\n");

  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) throw std::runtime_error(o.csv + ": cannot write");
    csv << "slot,arrived_packets,delivered_packets,dropped_packets,late_packets,backlog_packets,mean_latency_ms,"
           "instances,started,operating_cost,deployment_cost,wan_cost,sla_penalty,total_cost\n";
  }
  std::ofstream chain_csv;
  if (!o.chain_csv.empty()) {
    chain_csv.open(o.chain_csv);
    if (!chain_csv) throw std::runtime_error(o.chain_csv + ": cannot write");
    chain_csv << "slot,chain,arrived_packets,delivered_packets,dropped_packets,late_packets,backlog_packets,"
                 "mean_latency_ms\n";
  }
  const std::size_t progress_every = std::max<std::size_t>(1, arrivals->slots() / 100);
  nfv::CostBreakdown cost_so_far;
  const auto on_slot = [&](const nfv::SlotOutcome& outcome) {
    const std::size_t slot = outcome.observation.slot - 1;
    cost_so_far += outcome.cost;
    if (csv.is_open()) {
      double instances = 0, started = 0;
      for (double n : outcome.usage.instances_per_site) instances += n;
      for (double n : outcome.usage.started_per_site) started += n;
      const auto& t = outcome.total;
      const auto& c = outcome.cost;
      csv << slot << ',' << t.arrived << ',' << t.delivered << ',' << t.dropped << ',' << t.late << ',' << t.backlog
          << ',' << t.mean_latency_ms << ',' << instances << ',' << started << ',' << c.operating << ','
          << c.deployment << ',' << c.wan << ',' << c.sla_penalty << ',' << c.total() << '\n';
    }
    if (chain_csv.is_open())
      for (std::size_t c = 0; c < outcome.observation.chains.size(); ++c) {
        const auto& t = outcome.observation.chains[c];
        chain_csv << slot << ',' << model->topology().chains[c].name << ',' << t.arrived << ',' << t.delivered << ','
                  << t.dropped << ',' << t.late << ',' << t.backlog << ',' << t.mean_latency_ms << '\n';
      }
    if (o.explain) std::fprintf(stderr, "slot %zu: %s\n", slot, policy->explain().c_str());
    if (!o.quiet && (slot % progress_every == 0 || slot + 1 == arrivals->slots()))
      std::fprintf(stderr, "\rslot %zu/%zu  cost %.1f  dropped %s ", slot + 1, arrivals->slots(), cost_so_far.total(),
                   percent(outcome.total.dropped, outcome.total.arrived).c_str());
  };
  const nfv::EpisodeSummary summary = nfv::run_episode(environment, *policy, o.horizon, on_slot);
  if (!o.quiet) std::fprintf(stderr, "\n");
  print_summary(summary, settings.sla);
  if (csv.is_open()) std::printf("per-slot figures: %s\n", o.csv.c_str());
  if (chain_csv.is_open()) std::printf("per-slot figures per chain: %s\n", o.chain_csv.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "nfv-sim: %s\n", error.what());
    return 1;
  }
}
