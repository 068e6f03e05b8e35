// What every worker reads and nobody changes while the pod forwards: the
// layout, the classifier, the DPDK port ids and per-chain lookups.
#pragma once

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <rte_ether.h>

#include "classifier.h"
#include "pod_layout.h"
#include "wall_clock.h"

struct rte_ring;
struct rte_mempool;

namespace nfv {

struct PortRuntime {
  uint16_t port_id = 0;
  bool poll_rx = true;
  rte_ether_addr mac{};
  rte_ring* capture_ring = nullptr;    // copies for the pcapng writer, or null
  rte_mempool* capture_pool = nullptr;
};

enum class RunState : int { kForwarding, kDraining };

struct PodRuntime {
  explicit PodRuntime(PodLayout l) : layout(std::move(l)), classifier(layout) {
    for (std::size_t c = 0; c < layout.chains.size(); ++c) {
      chain_of_spi[layout.chains[c].spi] = static_cast<int>(c);
      hop_base.push_back(hop_total);
      hop_total += static_cast<int>(layout.chains[c].hops.size());
    }
  }

  PodLayout layout;
  Classifier classifier;
  WallClock clock;
  uint64_t start_tsc = 0;
  std::vector<PortRuntime> ports;
  std::unordered_map<uint32_t, int> chain_of_spi;
  std::vector<int> hop_base;  // chain -> index of its first hop in a flat list
  int hop_total = 0;
  int worker_count = 1;
  std::atomic<RunState> state{RunState::kForwarding};
  std::atomic<bool> workers_done{false};
};

}  // namespace nfv
