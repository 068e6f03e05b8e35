// rte_telemetry commands under /nfv/ (readable with dpdk-telemetry.py):
// /nfv/pod, /nfv/ports, /nfv/chains, /nfv/hops, /nfv/links, /nfv/drops.
// DPDK answers them on its own telemetry thread, so they read the latest
// counters the control thread published (at most a few hundred ms old), never
// the pools themselves.
#pragma once

#include <memory>

#include "pod_stats.pb.h"

namespace nfv {

// Registers the commands (once per process); throws if DPDK refuses a name.
void register_telemetry_commands();
void publish_telemetry(std::shared_ptr<const nfv::stats::PodStats> stats);

}  // namespace nfv
