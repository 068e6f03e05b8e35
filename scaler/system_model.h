// The system a scaler decides for, compiled once from the topology:
// instance pools, service rates, the lowest-delay route between every pair
// of sites, the one cost model, the slot length and the emulation mapping.
// Immutable once built and shared by the simulator, the policies, the
// environments and the scaler service.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "cost_model.h"
#include "plan.h"
#include "rate_trace.h"
#include "topology.h"

namespace nfv {

struct SimSettings {
  // Slot length (slot_wall_seconds), packet size and volume scale: the same
  // mapping the emulation uses, so a simulated slot is an emulated one.
  EmulationScale scale;
  // Per instance, like the pod's per-instance input ring (pod_layout.h).
  double queue_packets_per_instance = 1024;
  SlaPenalty sla;
};

// The topology compiled for the fluid model: immutable once built, shared by
// every copy of a simulator or environment.
class SystemModel {
 public:
  SystemModel(Topology topology, SimSettings settings);

  const Topology& topology() const { return topology_; }
  const SimSettings& settings() const { return settings_; }
  const CostModel& cost_model() const { return cost_model_; }
  const PoolIndex& pool_index() const { return pool_index_; }
  double slot_seconds() const { return settings_.scale.slot_wall_seconds; }
  std::size_t sites() const { return topology_.sites.size(); }
  std::size_t chains() const { return topology_.chains.size(); }
  // Per instance, of the VNF at hop `hop_number` (PoolIndex::hop_number).
  double service_rate_pps(std::size_t hop_number) const { return service_rate_pps_[hop_number]; }
  // One-way delay of the lowest-delay route between two sites; 0 for a site to itself.
  double route_delay_ms(std::size_t from, std::size_t to) const { return route_delay_ms_[from * sites() + to]; }
  // The links of that route.
  std::span<const std::size_t> route_links(std::size_t from, std::size_t to) const;
  // Whether a hop of `chain` at `site` can meet the chain's SLA: the detour
  // ingress -> site -> egress is within its latency.
  bool within_sla(std::size_t chain, std::size_t site) const;
  // The sites where the chain's hops may run within the SLA; the ingress
  // alone when no site can (the SLA is then lost anyway).
  std::vector<std::size_t> sla_sites(std::size_t chain) const;

 private:
  Topology topology_;
  SimSettings settings_;
  CostModel cost_model_;
  PoolIndex pool_index_;
  std::vector<double> service_rate_pps_;  // per hop number
  std::vector<double> route_delay_ms_;    // sites x sites
  std::vector<std::size_t> route_begin_;  // sites x sites + 1, into route_link_ids_
  std::vector<std::size_t> route_link_ids_;
};

}  // namespace nfv
