// The traffic a simulated system is offered: packets/s per slot and chain,
// from a rate trace through the one emulation mapping, and how slots and
// packets/s map back onto the trace (its time, its unit) for predictors.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "rate_trace.h"
#include "topology.h"

namespace nfv {

// Where slots and packets/s sit in the trace a system replays: predictors
// work in trace time (time of day) and in the trace's unit (what they were
// trained on).
struct TraceMapping {
  double step_seconds = 300;  // trace time of one slot
  double start_unix_s = 0;    // trace time of slot 0 (0 when the trace has none)
  RateUnit unit = RateUnit::mbit_per_s;
  double pps_per_unit = 1;    // emulated packets/s per unit of the trace

  double unix_s(std::size_t slot) const { return start_unix_s + static_cast<double>(slot) * step_seconds; }
};
// The mapping of `trace` through `scale`.
TraceMapping trace_mapping(const RateTrace& trace, const EmulationScale& scale);

// Offered traffic per slot and chain, in emulated packets/s.
struct ArrivalSchedule {
  std::size_t chains = 0;
  std::vector<double> pps;  // [slot * chains + chain]
  std::string description;  // the emulation mapping used, for the run's header
  TraceMapping mapping;

  std::size_t slots() const { return chains == 0 ? 0 : pps.size() / chains; }
  std::span<const double> slot(std::size_t s) const { return {pps.data() + s * chains, chains}; }
};
// One trace column per chain of `topology`, matched by name (e.g. OD chains
// from chains_for_od_pairs), converted through `scale`. Throws naming a
// chain the trace lacks.
ArrivalSchedule arrivals_for_chains(const RateTrace& trace, const Topology& topology, const EmulationScale& scale);

// Slots [begin, end) of `arrivals`, their trace time kept (slot 0 of the
// result is slot `begin`'s time). Throws std::invalid_argument when the
// range is empty or past the end.
ArrivalSchedule slot_range(const ArrivalSchedule& arrivals, std::size_t begin, std::size_t end);

}  // namespace nfv
