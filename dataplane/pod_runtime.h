// What every worker reads and nobody changes while the pod forwards: the
// layout, the classifier, the DPDK port ids and per-chain lookups.
#pragma once

#include <atomic>
#include <memory>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <rte_ether.h>

#include "classifier.h"
#include "instance_pool.h"
#include "routing_snapshot.h"
#include "pod_layout.h"
#include "wall_clock.h"

struct rte_ring;
struct rte_mempool;
struct rte_rcu_qsbr;

namespace nfv {

struct PortRuntime {
  uint16_t port_id = 0;
  bool poll_rx = true;
  rte_ether_addr mac{};
  rte_ring* capture_ring = nullptr;    // copies for the pcapng writer, or null
  rte_mempool* capture_pool = nullptr;
};

enum class RunState : int { kForwarding, kDraining };

// The part of a chain the fast path reads per packet, packed in one place.
struct alignas(64) ChainRoute {
  uint8_t stage_site[kMaxHops + 2];
  uint8_t egress_stage;
  uint8_t stage_count;
  uint16_t egress_port;
  uint32_t hop_base;  // index of the chain's first hop in the flat hop list
  uint32_t spi;
};

struct PodRuntime {
  explicit PodRuntime(PodLayout l) : layout(std::move(l)), classifier(layout) {
    for (std::size_t c = 0; c < layout.chains.size(); ++c) {
      const ChainInfo& chain = layout.chains[c];
      chain_of_spi[chain.spi] = static_cast<int>(c);
      hop_base.push_back(hop_total);
      ChainRoute& route = routes.emplace_back();
      for (int s = 0; s < chain.stage_count(); ++s) route.stage_site[s] = static_cast<uint8_t>(chain.stage_site[s]);
      route.egress_stage = static_cast<uint8_t>(chain.egress_stage());
      route.stage_count = static_cast<uint8_t>(chain.stage_count());
      route.egress_port = static_cast<uint16_t>(chain.egress_port < 0 ? 0 : chain.egress_port);
      route.hop_base = static_cast<uint32_t>(hop_total);
      route.spi = chain.spi;
      hop_total += static_cast<int>(chain.hops.size());
      for (const auto& hop : chain.hops) {
        pool_base.push_back(pool_total);
        pool_total += static_cast<int>(hop.sites.size());
      }
    }
  }

  PodLayout layout;
  Classifier classifier;
  WallClock clock;
  uint64_t start_tsc = 0;
  std::vector<PortRuntime> ports;
  // By port: whether workers may use it. Cleared by the control thread
  // while a memif peer is gone or the port restarts; workers then leave it
  // alone and drop what it would carry as link_down.
  std::unique_ptr<std::atomic<bool>[]> port_up;
  bool port_usable(int port) const { return port_up[port].load(std::memory_order_relaxed); }
  std::unordered_map<uint32_t, int> chain_of_spi;
  std::vector<int> hop_base;  // chain -> index of its first hop in a flat list
  std::vector<ChainRoute> routes;
  std::vector<int> pool_base;  // flat hop -> index of its first placement's pool
  int pool_total = 0;
  int hop_total = 0;
  int worker_count = 1;
  std::atomic<RunState> state{RunState::kForwarding};
  // VNF control requests carried out that may change how a VNF treats a
  // flow (lb backends): each ends the chain fast path's records.
  std::atomic<uint32_t> vnf_changes{0};
  std::atomic<int> workers_running{0};

  // Instance pools by pool index (null for placements at other pods' sites);
  // control thread only. Workers use them through `snapshot`.
  std::vector<std::unique_ptr<InstancePool>> pools;
  std::atomic<const RoutingSnapshot*> snapshot{nullptr};
  rte_rcu_qsbr* rcu = nullptr;
};

}  // namespace nfv
