// Emulation of one direction of a WAN link between two sites: random loss,
// a bandwidth cap with a bounded buffer, a one-way delay (constant, or
// following a delay trace) plus uniform jitter, then a delay line that
// releases packets when they are due. One instance per worker lcore; with
// several workers each carries an equal share of the bandwidth.
#pragma once

#include <cstdint>
#include <vector>

#include "delay_line.h"
#include "pod_layout.h"

struct rte_mbuf;

namespace nfv {

enum class WanVerdict : uint8_t { kQueued, kLost, kQueueFull, kBandwidthExceeded };

struct WanLinkCounters {
  uint64_t offered_packets = 0;
  uint64_t offered_bytes = 0;
  uint64_t released_packets = 0;
  uint64_t released_bytes = 0;
  uint64_t lost = 0;
  uint64_t queue_full = 0;
  uint64_t bandwidth_drops = 0;
};

// A link's parameters in TSC units, immutable once published: the control
// thread builds new settings to change a link live (set_link), and workers
// switch to them with the next routing snapshot.
struct LinkSettings {
  struct TraceStep {
    uint64_t at_tsc;
    uint64_t delay_tsc;
  };
  uint64_t constant_delay_tsc = 0;
  uint64_t jitter_tsc = 0;
  uint64_t loss_threshold = 0;  // compared with rte_rand(); 0 = no loss
  double tsc_per_byte = 0;      // 0 = unlimited bandwidth
  uint64_t buffer_tsc = 0;
  std::vector<TraceStep> trace;
  uint64_t trace_period_tsc = 0;

  static LinkSettings from(const WanLinkParams& params, uint64_t tsc_hz, double bandwidth_share);
};

class WanLink {
 public:
  WanLink(uint32_t capacity, uint64_t start_tsc) : line_(capacity), start_tsc_(start_tsc) {}

  // The settings in force from now on (they must outlive their use).
  void use(const LinkSettings* settings) {
    settings_ = settings;
    trace_cursor_ = 0;
  }

  // Queues the packet, or says why not (the caller then drops it).
  WanVerdict offer(rte_mbuf* m, uint64_t now_tsc);
  // Moves up to `max` packets that are due into out[].
  uint16_t release(uint64_t now_tsc, rte_mbuf** out, uint16_t max);
  // Removes one packet whatever its due time (shutdown); nullptr when empty.
  rte_mbuf* take_any();

  uint64_t next_due_tsc() const { return line_.next_due(); }
  uint32_t in_flight() const { return line_.size(); }
  const WanLinkCounters& counters() const { return counters_; }
  // The base one-way delay in force at `now_tsc` (trace-aware), in TSC cycles.
  uint64_t base_delay_tsc(uint64_t now_tsc);

 private:
  DelayLine line_;
  WanLinkCounters counters_;
  const LinkSettings* settings_ = nullptr;
  uint64_t next_free_tsc_ = 0;
  uint64_t start_tsc_;
  std::size_t trace_cursor_ = 0;
};

}  // namespace nfv
