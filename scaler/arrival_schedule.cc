// Offered traffic of each chain per slot: trace columns matched to chains
// by name and turned into emulated packets/s by the one emulation mapping.
#include <algorithm>
#include <stdexcept>

#include "arrival_schedule.h"

namespace nfv {

TraceMapping trace_mapping(const RateTrace& trace, const EmulationScale& scale) {
  TraceMapping mapping;
  mapping.step_seconds = trace.step_seconds;
  mapping.start_unix_s = static_cast<double>(trace.start_unix_s.value_or(0));
  mapping.unit = trace.unit;
  mapping.pps_per_unit = scale.emulated_packets_per_s(1.0, trace.unit);
  return mapping;
}

ArrivalSchedule arrivals_for_chains(const RateTrace& trace, const Topology& topology, const EmulationScale& scale) {
  ArrivalSchedule schedule;
  schedule.chains = topology.chains.size();
  schedule.description = scale.describe(trace.unit);
  schedule.mapping = trace_mapping(trace, scale);
  std::vector<std::size_t> column_of_chain;
  for (const Chain& chain : topology.chains) {
    const auto it = std::find(trace.columns.begin(), trace.columns.end(), chain.name);
    if (it == trace.columns.end())
      throw std::invalid_argument("trace " + trace.label + ": no column for chain '" + chain.name + "' of topology " +
                                  topology.name);
    column_of_chain.push_back(static_cast<std::size_t>(it - trace.columns.begin()));
  }
  schedule.pps.reserve(trace.rows() * schedule.chains);
  for (std::size_t row = 0; row < trace.rows(); ++row)
    for (std::size_t column : column_of_chain)
      schedule.pps.push_back(scale.emulated_packets_per_s(trace.at(row, column), trace.unit));
  return schedule;
}

ArrivalSchedule slot_range(const ArrivalSchedule& arrivals, std::size_t begin, std::size_t end) {
  if (begin >= end || end > arrivals.slots())
    throw std::invalid_argument("slots " + std::to_string(begin) + ".." + std::to_string(end) + " of a schedule of " +
                                std::to_string(arrivals.slots()));
  ArrivalSchedule out = arrivals;
  out.pps.assign(arrivals.pps.begin() + static_cast<std::ptrdiff_t>(begin * arrivals.chains),
                 arrivals.pps.begin() + static_cast<std::ptrdiff_t>(end * arrivals.chains));
  out.mapping.start_unix_s = arrivals.mapping.unix_s(begin);
  return out;
}

}  // namespace nfv
