#include "scenario.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "calibration.h"
#include "option_values.h"

#ifndef NFV_SOURCE_ROOT
#define NFV_SOURCE_ROOT "."
#endif

namespace nfv {

const char* const kScenarioUsage = R"(  --topology FILE        topology YAML (default: topologies/data/abilene.yaml)
  --trace FILE           rate trace CSV (default: the Abilene OD matrices,
                         $NFV_SHARED_DATA/traffic/abilene/abilene_tm_5min_mbps.csv)
  --trace-unit U         unit of a trace without a units line (Mbit/s, req/s, pkt/s)
  --block N              the block tested on (default: the last; Abilene: April)
  --split S              train/test: blocks (train on the block before), none (test on
                         the whole block), fraction:F, rows:N or time:ISO (default: blocks
                         when the trace has two, else none, or fraction:0.75 for tools that train)
  --resample SECONDS     average the trace's rows into steps of this length
  --slots N              test only the first N slots
  --vnfs A,B             VNF types of the chains made from SRC->DST columns (default counter)
  --sla-ms MS            SLA latency of those chains (default 60)
  --slot-seconds S       wall seconds one slot lasts (default 1)
  --packet-bytes B       mean packet size (default 1024)
  --volume-scale X       emulated / real traffic (default 1)
  --queue-packets N      queue per instance, packets (default 1024)
  --sla-penalty P        price of traffic that misses the SLA (default 10)
  --sla-basis gb|packet  the penalty is per GB or per packet (default gb)
  --site-capacity N      instances every site can host, overriding the topology
  --calibration FILE     measured VNF rates and link delays (YAML, nfv-calibrate)
)";

std::string shared_data_path(const std::string& relative) {
  const char* root = std::getenv("NFV_SHARED_DATA");
  return std::string(root ? root : NFV_SOURCE_ROOT "/../shared/data") + "/" + relative;
}

bool scenario_option(const std::string& option, const std::string& value, ScenarioOptions& o) {
  if (option == "--topology") o.topology = value;
  else if (option == "--trace") o.trace = value;
  else if (option == "--trace-unit") o.trace_unit = value;
  else if (option == "--block") o.block = option_count(option, value);
  else if (option == "--split") o.split = parse_trace_split(value);
  else if (option == "--resample") {
    o.resample_seconds = option_number(option, value);
    if (!(*o.resample_seconds > 0)) throw std::invalid_argument("--resample: expected seconds > 0");
  } else if (option == "--slots") o.slots = option_count(option, value);
  else if (option == "--vnfs") o.vnfs = value;
  else if (option == "--sla-ms") o.sla_ms = option_number(option, value);
  else if (option == "--slot-seconds") o.sim.scale.slot_wall_seconds = option_number(option, value);
  else if (option == "--packet-bytes") o.sim.scale.mean_packet_bytes = option_number(option, value);
  else if (option == "--volume-scale") o.sim.scale.volume_scale = option_number(option, value);
  else if (option == "--queue-packets") {
    o.sim.queue_packets_per_instance = option_number(option, value);
    o.queue_given = true;
  } else if (option == "--sla-penalty") o.sim.sla.price = option_number(option, value);
  else if (option == "--sla-basis") o.sim.sla.basis = parse_sla_basis(value);
  else if (option == "--site-capacity") o.site_capacity = static_cast<std::uint32_t>(option_count(option, value));
  else if (option == "--calibration") o.calibration = value;
  else return false;
  return true;
}

Scenario load_scenario(const ScenarioOptions& o) {
  Scenario scenario;
  scenario.topology_path = o.topology.empty() ? NFV_SOURCE_ROOT "/topologies/data/abilene.yaml" : o.topology;
  Topology topology = load_topology_yaml(scenario.topology_path);
  SimSettings settings = o.sim;
  if (!o.calibration.empty()) {
    const LoadedCalibration calibration = load_calibration(o.calibration);
    for (const std::string& line : apply_calibration(calibration, topology)) scenario.notes.push_back("calibrated " + line);
    // The command line wins over the file.
    const double queue = calibration.message.queue_packets_per_instance();
    if (queue > 0 && !o.queue_given) {
      scenario.notes.push_back("calibrated queue per instance: " +
                               std::to_string(static_cast<long>(settings.queue_packets_per_instance)) + " -> " +
                               std::to_string(static_cast<long>(queue)) + " packets");
      settings.queue_packets_per_instance = queue;
    }
  }
  if (o.site_capacity)
    for (Site& site : topology.sites) site.instance_capacity = *o.site_capacity;

  scenario.trace_path = o.trace.empty() ? shared_data_path("traffic/abilene/abilene_tm_5min_mbps.csv") : o.trace;
  RateTraceFile file = o.trace.empty() ? load_abilene_traffic(scenario.trace_path)
                                       : read_rate_trace_csv(scenario.trace_path, option_rate_unit("--trace-unit", o.trace_unit));
  if (o.resample_seconds)
    for (RateTrace& block : file.blocks) block = block.resampled(*o.resample_seconds);
  scenario.trace = split_trace(file, o.split.value_or(default_trace_split(file, o.needs_training)), o.block);
  if (o.slots && *o.slots < scenario.trace.test.rows()) scenario.trace.test = scenario.trace.test.slice(0, *o.slots);
  scenario.notes.push_back("split " + scenario.trace.description);
  const RateTrace& test = scenario.trace.test;
  if (all_od_pairs(test)) {
    try {
      topology.chains = chains_for_od_pairs(test, topology, option_list(o.vnfs), o.sla_ms);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(e.what()) + (o.trace.empty() && !o.topology.empty()
                                                               ? " (the default trace is Abilene's: give --trace for this topology)"
                                                               : ""));
    }
  }
  settings.scale.trace_step_seconds = test.step_seconds;
  scenario.model = std::make_shared<const SystemModel>(topology, settings);
  scenario.test = std::make_shared<const ArrivalSchedule>(arrivals_for_chains(test, topology, settings.scale));
  scenario.train = std::make_shared<const ArrivalSchedule>(arrivals_for_chains(scenario.trace.train, topology, settings.scale));
  scenario.notes.push_back("mapping " + scenario.test->description);
  return scenario;
}

std::string Scenario::describe() const {
  const Topology& topology = model->topology();
  std::string text = "topology  " + topology.name + " (" + topology_path + "): " + std::to_string(topology.sites.size()) +
                     " sites, " + std::to_string(topology.links.size()) + " links\n";
  text += "trace     " + trace_path + ", steps of " + std::to_string(static_cast<long long>(trace.test.step_seconds)) + " s\n";
  for (const std::string& note : notes) text += "          " + note + "\n";
  text += "chains    " + std::to_string(topology.chains.size()) + ", " + std::to_string(model->pool_index().pools()) +
          " instance pools possible\n";
  return text;
}

}  // namespace nfv
