// Sink mode: receives packets, recognises nfv-replay's probes
// (probe_payload.h) and counts, per chain and per slot: packets and bytes,
// loss (from sequence numbers), one-way latency (send timestamp to receipt,
// both CLOCK_REALTIME on this host) and reordering (a sequence number below
// one already seen). Anything else is counted as foreign.
//
// A probe belongs to the slot it was sent in, so a slot's received count
// lines up with what the generator sent in that slot however long the trip.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "latency_histogram.h"
#include "replay_config.h"
#include "wall_clock.h"

namespace nfv {

class ProbeSink {
 public:
  static constexpr uint16_t kBurst = 32;

  struct Counters {
    uint64_t packets = 0;
    uint64_t bytes = 0;
    uint64_t reordered = 0;  // arrived after a higher sequence number
    uint64_t seq_end = 0;    // highest sequence number seen + 1
    LatencyHistogram latency;
  };

  // The latency percentiles of a (slot, chain), in ns.
  struct Percentiles {
    uint64_t p50 = 0, p95 = 0, p99 = 0;
  };

  // A (slot, chain): counts, and a latency histogram only while the slot is
  // one of the last SinkPlan::slot_histograms; an older slot keeps its
  // percentiles, so a run of any length holds a bounded number of histograms.
  struct SlotCounters {
    uint64_t packets = 0;
    uint64_t bytes = 0;
    uint64_t reordered = 0;
    uint64_t seq_end = 0;
    std::unique_ptr<LatencyHistogram> latency;  // null once the slot is folded
    Percentiles folded;                          // set when the histogram goes
    Percentiles percentiles() const;
  };

  ProbeSink(const SinkPlan& plan, uint16_t port_id, const WallClock& clock);

  // Slot 0 starts at `start_ns` (the generator's start). Without this, slot 0
  // starts at the send time of the first probe: exact when the generator sends
  // in its slot 0, as it does from the slot's first instant.
  void align_slots(uint64_t start_ns);
  // One rx burst; returns the packets received.
  uint16_t poll(uint64_t now_tsc);

  double slot_seconds() const { return plan_.slot_wall_seconds; }
  uint64_t start_ns() const { return start_ns_; }
  std::size_t chains() const { return chain_totals_.size(); }
  std::size_t slots() const { return slot_rows_.size(); }
  std::string chain_name(std::size_t chain) const;
  const Counters& chain_total(std::size_t chain) const { return chain_totals_[chain]; }
  // Counters of (slot, chain); empty when nothing of that chain came in that slot.
  const SlotCounters& at(std::size_t slot, std::size_t chain) const;
  // Latency histograms held now for single slots (the cap's subject).
  std::size_t slot_histograms() const { return slot_histograms_; }
  // Lost in a slot from sequence numbers alone (the sink does not know what
  // was sent): the sequence numbers the slot advanced by, less what arrived.
  int64_t lost_by_sequence(std::size_t slot, std::size_t chain) const;
  uint64_t foreign_packets() const { return foreign_packets_; }
  uint64_t foreign_bytes() const { return foreign_bytes_; }
  uint64_t packets() const { return packets_; }
  uint64_t last_receive_tsc() const { return last_receive_tsc_; }

 private:
  SlotCounters& cell(std::size_t slot, std::size_t chain);
  // Lets go of the histograms of the slots before `slot` less the cap.
  void fold_before(std::size_t slot);
  void count_probe(uint16_t chain, uint64_t seq, uint64_t sent_ns, uint32_t bytes, uint64_t now_ns);

  SinkPlan plan_;
  uint16_t port_id_;
  const WallClock& clock_;
  uint64_t slot_ns_;
  uint64_t start_ns_ = 0;
  bool aligned_ = false;
  std::vector<Counters> chain_totals_;
  // Rows appear as slots do (one allocation per slot and chain, never per packet).
  std::vector<std::unique_ptr<std::vector<SlotCounters>>> slot_rows_;
  std::size_t folded_slots_ = 0;  // slots [0, folded_slots_) hold no histogram
  std::size_t slot_histograms_ = 0;
  uint64_t packets_ = 0, foreign_packets_ = 0, foreign_bytes_ = 0;
  uint64_t last_receive_tsc_ = 0;
};

}  // namespace nfv
