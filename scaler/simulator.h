// nfv-sim's engine: a slot-based fluid model of the whole system (sites with
// instance capacity, WAN links with delay, VNF pools with a service rate,
// chains with their SLA), priced by the one CostModel. docs/simulator.md has
// the equations; in short, per slot and per chain, traffic flows hop by hop,
// each hop's plan splits it across sites, each pool serves up to
// instances x service rate x slot, the rest queues in a finite buffer and
// what overflows is dropped. Conservation holds per chain and slot:
// arrived = delivered + dropped + backlog change.
#pragma once

#include <cstddef>
#include <memory>
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

// Offered traffic per slot and chain, in emulated packets/s.
struct ArrivalSchedule {
  std::size_t chains = 0;
  std::vector<double> pps;  // [slot * chains + chain]
  std::string description;  // the emulation mapping used, for the run's header

  std::size_t slots() const { return chains == 0 ? 0 : pps.size() / chains; }
  std::span<const double> slot(std::size_t s) const { return {pps.data() + s * chains, chains}; }
};
// One trace column per chain of `topology`, matched by name (e.g. OD chains
// from chains_for_od_pairs), converted through `scale`. Throws naming a
// chain the trace lacks.
ArrivalSchedule arrivals_for_chains(const RateTrace& trace, const Topology& topology, const EmulationScale& scale);

// Everything one simulated slot produced.
struct SlotOutcome {
  Observation observation;  // for the next decision: this slot's measurements
  ChainTraffic total;       // over all chains
  SlotUsage usage;
  CostBreakdown cost;
};

class FluidSimulator {
 public:
  explicit FluidSimulator(std::shared_ptr<const SystemModel> model);

  // Empty queues; `running` is the plan already in force (no deployment cost for it).
  void reset(const Plan& running);
  // Runs the next slot with `plan` (checked: throws std::invalid_argument
  // naming the problems) and `arrival_pps` per chain.
  const SlotOutcome& step(const Plan& plan, std::span<const double> arrival_pps);

  const SlotOutcome& last() const { return outcome_; }
  std::size_t slot() const { return slot_; }
  const SystemModel& model() const { return *model_; }

 private:
  // Per hop: the sites carrying traffic, their share of the hop's output
  // and their queueing delay, for the late-traffic count.
  struct HopSite {
    std::size_t site;
    double weight;
    double queueing_ms;
  };
  void run_chain(std::size_t chain, double arrival_pps);
  // Latency of every route the chain's traffic takes through its hop sites;
  // returns the share of delivered traffic over the SLA and sets the mean.
  double late_share(std::size_t chain, double& mean_latency_ms) const;
  void carry(std::size_t from, std::size_t to, double packets);

  std::shared_ptr<const SystemModel> model_;
  PlanValidator validator_;
  std::size_t slot_ = 0;
  std::vector<double> backlog_;               // packets per pool
  std::vector<std::int32_t> running_;         // instances per pool in the previous slot
  std::vector<std::int32_t> instances_;       // this slot's plan, per pool
  std::vector<double> split_;
  std::vector<double> from_site_;             // traffic leaving the previous hop, per site
  std::vector<double> to_site_;
  std::vector<HopSite> hop_sites_;            // max hops x sites
  std::vector<std::size_t> hop_site_count_;
  SlotOutcome outcome_;
};

}  // namespace nfv
