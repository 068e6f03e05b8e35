// A system to simulate and the traffic to run it on, as the trace-driven
// tools take them (nfv-sim, policy_costs, sim_steps): a topology, a rate
// trace split into the rows that train and the rows that test, the chains
// (the topology's, or one per SRC->DST column of an OD trace), the
// emulation mapping and the cost model's settings. Nothing here assumes a
// trace's step, a topology's size or a chain count; Abilene is only the
// default.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrival_schedule.h"
#include "system_model.h"
#include "trace_split.h"

namespace nfv {

struct ScenarioOptions {
  std::string topology;  // YAML; default the source tree's topologies/data/abilene.yaml
  std::string trace;     // rate-trace CSV; default the Abilene OD matrices
  std::string trace_unit;
  std::optional<std::size_t> block;           // the test block (default the last)
  std::optional<TraceSplit> split;            // default_trace_split()
  bool needs_training = false;                // the tool learns from the train rows: the default split keeps some
  std::optional<double> resample_seconds;     // average rows into steps of this length
  std::optional<std::size_t> slots;           // test only the first N slots
  std::string vnfs = "counter";               // chains made from SRC->DST columns
  double sla_ms = 60;
  SimSettings sim;
  bool queue_given = false;                   // sim.queue_packets_per_instance came from the command line
  std::optional<std::uint32_t> site_capacity;  // instances every site hosts, overriding the topology
  std::string calibration;                    // nfv-calibrate's file
};

struct Scenario {
  std::string topology_path, trace_path;
  std::shared_ptr<const SystemModel> model;
  SplitTrace trace;
  std::shared_ptr<const ArrivalSchedule> train, test;
  std::vector<std::string> notes;  // calibration overrides, the split, the mapping

  // The run's header: topology, trace, split, mapping, chains.
  std::string describe() const;
};

// Throws std::invalid_argument (or the loaders' errors) naming what is wrong.
Scenario load_scenario(const ScenarioOptions& options);

// Consumes `option value` when it is one of the scenario's (--topology,
// --trace, --trace-unit, --block, --split, --resample, --slots, --vnfs,
// --sla-ms, --slot-seconds, --packet-bytes, --volume-scale,
// --queue-packets, --sla-penalty, --sla-basis, --site-capacity,
// --calibration); false when it is not.
bool scenario_option(const std::string& option, const std::string& value, ScenarioOptions& options);
// Those options' lines for a --help text.
extern const char* const kScenarioUsage;

// $NFV_SHARED_DATA/relative, else the source tree's ../shared/data/relative.
std::string shared_data_path(const std::string& relative);

}  // namespace nfv
