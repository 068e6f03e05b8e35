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
  uint32_t first_hop;  // the chain's first hop number (PlacementIndex)
  uint32_t spi;
};

// Where the instance pool of (chain, hop, placement) sits in the pod's
// dense per-pool arrays (PodRuntime::pools, RoutingSnapshot::pools), and a
// hop in per-hop arrays (split shares, site splits): the hops of all chains
// are numbered one after another, and each hop's placements have
// consecutive pools. Hops are 0-based here and 1-based in messages; a
// placement is a position in HopInfo::sites. The scaler's PoolIndex is the
// same idea over every site.
class PlacementIndex {
 public:
  PlacementIndex() = default;
  explicit PlacementIndex(const PodLayout& layout) {
    for (const ChainInfo& chain : layout.chains) {
      first_hop_.push_back(static_cast<int>(first_pool_.size()));
      for (const HopInfo& hop : chain.hops) {
        first_pool_.push_back(pools_);
        pools_ += static_cast<int>(hop.sites.size());
      }
    }
  }
  int operator()(int chain, int hop, int placement) const { return first_pool_[hop_number(chain, hop)] + placement; }
  int hop_number(int chain, int hop) const { return first_hop_[chain] + hop; }
  // The pool of a hop's first placement, by hop number.
  int first_pool(int hop_number) const { return first_pool_[hop_number]; }
  int hops() const { return static_cast<int>(first_pool_.size()); }
  int pools() const { return pools_; }
  const std::vector<int>& first_hops() const { return first_hop_; }
  const std::vector<int>& first_pools() const { return first_pool_; }

 private:
  std::vector<int> first_hop_;   // per chain: its first hop's number
  std::vector<int> first_pool_;  // per hop number
  int pools_ = 0;
};

struct PodRuntime {
  explicit PodRuntime(PodLayout l) : layout(std::move(l)), classifier(layout), index(layout) {
    for (std::size_t c = 0; c < layout.chains.size(); ++c) {
      const ChainInfo& chain = layout.chains[c];
      chain_of_spi[chain.spi] = static_cast<int>(c);
      ChainRoute& route = routes.emplace_back();
      for (int s = 0; s < chain.stage_count(); ++s) route.stage_site[s] = static_cast<uint8_t>(chain.stage_site[s]);
      route.egress_stage = static_cast<uint8_t>(chain.egress_stage());
      route.stage_count = static_cast<uint8_t>(chain.stage_count());
      route.egress_port = static_cast<uint16_t>(chain.egress_port < 0 ? 0 : chain.egress_port);
      route.first_hop = static_cast<uint32_t>(index.hop_number(static_cast<int>(c), 0));
      route.spi = chain.spi;
    }
  }

  // The pool of (chain, 0-based hop, placement), or null where another pod runs it.
  InstancePool* pool(int chain, int hop, int placement) const { return pools[index(chain, hop, placement)].get(); }

  PodLayout layout;
  Classifier classifier;
  PlacementIndex index;
  WallClock clock;
  uint64_t start_tsc = 0;
  std::vector<PortRuntime> ports;
  // By port: whether workers may use it. Cleared by the control thread
  // while a memif peer is gone or the port restarts; workers then leave it
  // alone and drop what it would carry as link_down.
  std::unique_ptr<std::atomic<bool>[]> port_up;
  bool port_usable(int port) const { return port_up[port].load(std::memory_order_relaxed); }
  std::unordered_map<uint32_t, int> chain_of_spi;
  std::vector<ChainRoute> routes;
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
