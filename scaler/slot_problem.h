// One slot of the scaling problem as a linear program (docs/scaler.md):
// for given arrival rates, how many instances of each chain hop run at which
// site and which routes (one site per hop, ingress to egress) carry the
// chain's traffic, at the least operating + WAN + drop cost, subject to
// instance capacity, flow conservation along each chain (served + dropped =
// arrived, every route through every hop), site capacity and the chain's
// latency limit (only routes within it exist). The online policy adds its regularizer to one slot;
// the offline optimum stacks a whole horizon and adds deployment.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "linear_program.h"
#include "system_model.h"

namespace nfv {

// Flow variables count thousands of packets/s, so that the programs' numbers
// stay within a few orders of magnitude of each other.
inline constexpr double kFlowUnitPps = 1000;

// Which sites a chain's hops may use.
enum class CandidateSites {
  along_path,  // the sites of the lowest-delay path from ingress to egress
  within_sla,  // every site whose detour (ingress -> site -> egress) is within the SLA latency
  fixed,       // the sites SlotProblemSettings::fixed_sites gives per hop (placement stays; only sizes change)
};

struct SlotProblemSettings {
  CandidateSites candidates = CandidateSites::along_path;
  // For CandidateSites::fixed: per chain, per hop, its sites (e.g. the plan in force).
  std::vector<std::vector<std::vector<std::size_t>>> fixed_sites;
  // Planned load of an instance, as a share of its service rate.
  double max_utilisation = 1.0;
  // Instances every hop keeps over all its sites, so a chain whose traffic
  // dips to zero is not left without a pool when it comes back.
  double min_instances_per_hop = 0;
  // Per site; empty = the topology's capacity (0 = unlimited).
  std::vector<double> site_capacity;
  // Price of one kFlowUnitPps dropped for a slot; 0 = the cost model's SLA
  // penalty. A policy that treats serving as a constraint prices drops far
  // above what serving costs.
  double drop_cost_per_unit = 0;
  // Per site, the most instances of one pool (0 = no limit).
  std::vector<double> max_instances_per_pool_at_site;
};

// Where one slot's variables are in the program.
struct SlotColumns {
  std::vector<int> instances;  // per pool (PoolIndex); -1: not a candidate site
  std::vector<int> dropped;    // per chain, packets/s not served (in kFlowUnitPps)
  std::vector<int> site_rows;  // per site, its capacity row; -1 if unlimited
};

// A route of a chain: the site of each hop, its WAN cost per flow unit and slot, its latency.
struct ChainRoute {
  std::vector<std::size_t> sites;  // per hop
  double cost = 0;
  double delay_ms = 0;
};

class SlotProblem {
 public:
  // `chains`: the chains to include (empty = all), e.g. one at a time when
  // the site capacity rows are left out and the problem separates by chain.
  SlotProblem(const SystemModel& model, SlotProblemSettings settings, std::vector<std::size_t> chains = {});

  // Appends one slot with `arrival_pps` per chain (all chains of the model).
  // `with_site_rows`: whether site capacity is enforced.
  SlotColumns add_slot(LinearProgram& lp, std::span<const double> arrival_pps, bool with_site_rows = true) const;

  // Sites a chain's hops may use (SlotProblemSettings::candidates), always
  // within the SLA latency; the ingress alone when no site is.
  const std::vector<std::size_t>& candidate_sites(std::size_t chain, std::size_t hop) const {
    return candidates_[chain][hop];
  }
  // Routes through the candidate sites whose propagation delay is within the
  // SLA (all routes when none is: the SLA is then lost anyway).
  const std::vector<ChainRoute>& routes(std::size_t chain) const { return routes_[chain]; }
  const std::vector<std::size_t>& chains() const { return chains_; }
  const SystemModel& model() const { return *model_; }
  double site_capacity(std::size_t site) const { return capacity_[site]; }

  // Cost of one instance-slot at `site`, and of one kFlowUnitPps for a slot
  // between two sites (WAN) or dropped (SLA penalty).
  double instance_cost(std::size_t site) const;
  double flow_cost(std::size_t from, std::size_t to) const { return flow_cost_[from * model_->sites() + to]; }
  double drop_cost() const { return drop_cost_; }

  // Enumerating more routes than this for one chain is refused.
  static constexpr std::size_t kMaxRoutesPerChain = 100000;

 private:
  void enumerate_routes(std::size_t chain);

  const SystemModel* model_;
  SlotProblemSettings settings_;
  std::vector<std::size_t> chains_;
  std::vector<std::vector<std::vector<std::size_t>>> candidates_;  // per chain of the model, per hop
  std::vector<std::vector<ChainRoute>> routes_;       // per chain of the model
  std::vector<double> capacity_;                      // per site, 0 = unlimited
  std::vector<double> flow_cost_;                     // sites x sites
  double drop_cost_ = 0;
};

}  // namespace nfv
