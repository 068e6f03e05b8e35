// Counters of one worker lcore. Each worker writes only its own (no atomics,
// no sharing of cache lines); the control thread sums them when it reads.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "drop_reasons.h"
#include "latency_histogram.h"
#include "pod_layout.h"

namespace nfv {

struct alignas(64) PortCounters {
  uint64_t rx_packets = 0, rx_bytes = 0;
  uint64_t tx_packets = 0, tx_bytes = 0;
  uint64_t default_passed = 0;     // unmatched / non-IP frames sent on by the port default
  uint64_t capture_dropped = 0;    // copies the capture writer could not keep up with
};

struct alignas(64) ChainCounters {
  uint64_t in_packets = 0, in_bytes = 0;     // entered the chain at this pod
  uint64_t out_packets = 0, out_bytes = 0;   // left the chain at this pod's egress
  uint64_t fast_path_packets = 0;            // of in_packets, repeated by the chain fast path
  uint64_t late_packets = 0;                 // of out_packets, later than the chain's SLA
  std::array<uint64_t, kDropReasonCount> drops{};  // of packets on this chain
  LatencyHistogram latency;                  // ingress to egress, ns
};

// Steering into a pool's instances (per worker; the instances count the rest).
struct alignas(64) PoolCounters {
  uint64_t steered = 0;
  uint64_t queue_full = 0;  // an instance's input queue had no room
};

struct alignas(64) WorkerCounters {
  std::vector<PortCounters> ports;
  std::vector<ChainCounters> chains;
  std::vector<PoolCounters> pools;
  std::vector<std::array<uint64_t, kMaxInstancesPerPool>> instance_queue_full;  // by pool, slot
  std::array<uint64_t, kDropReasonCount> drops{};
  uint64_t loops = 0;
  uint64_t busy_tsc = 0;        // time in iterations that moved packets
  uint64_t busy_packets = 0;    // packets received or released in those iterations
  uint64_t sleeps = 0;
  uint64_t in_flight = 0;       // packets in WAN delay lines or waiting in tx buffers
};

}  // namespace nfv
