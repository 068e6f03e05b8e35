// What nfv-replay tells the operator: the mapping at start, a progress line
// per slot, the summary at the end and the per-slot CSV (docs/replay.md).
// Reads the generator's, the replayer's and the sink's counters; any of
// them may be absent.
#pragma once

#include <cstdint>
#include <string>

#include "pcap_replayer.h"
#include "probe_sink.h"
#include "trace_generator.h"

namespace nfv {

class ReplayReport {
 public:
  ReplayReport(const TraceGenerator* generator, const PcapReplayer* replayer, const ProbeSink* sink)
      : generator_(generator), replayer_(replayer), sink_(sink) {}

  // The trace -> emulation mapping and each chain's traffic.
  static std::string describe(const GeneratorPlan& plan);
  // One slot, all chains: target vs sent rate, received and lost so far.
  std::string slot_line(std::size_t slot) const;
  // A standalone sink's line for its slot.
  std::string sink_slot_line(std::size_t slot) const;
  std::string summary() const;
  // Columns: slot,chain,target_pps,sent_pps,sent,received,received_pps,lost,reordered,p50_us,p95_us,p99_us,behind_max_ms.
  // Comment lines first: start time (CLOCK_REALTIME ns) and slot length.
  void write_csv(const std::string& path) const;

 private:
  struct Cell {
    double target_pps = -1, sent_pps = -1;  // -1: not known here
    int64_t sent = -1;
    int64_t received = -1, lost = 0;
    uint64_t reordered = 0;
    double p50_us = 0, p95_us = 0, p99_us = 0;
    double behind_max_ms = -1;  // the generator's, for the slot
  };
  Cell cell(std::size_t slot, std::size_t chain) const;
  std::size_t slots() const;
  std::size_t chains() const;
  std::string chain_name(std::size_t chain) const;
  double slot_seconds() const;

  const TraceGenerator* generator_;
  const PcapReplayer* replayer_;
  const ProbeSink* sink_;
};

}  // namespace nfv
