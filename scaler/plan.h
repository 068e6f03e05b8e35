// The scaler's vocabulary: what a policy sees (Observation, Forecast) and
// what it decides (Plan), the same whether the system is the simulator or
// real pods. Chains, sites and links are indices into the Topology the
// system was built from; hops are 0-based here and 1-based in messages (as
// in the control API).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "topology.h"

namespace nfv {

// Where the instance pool of (chain, hop, site) lives in dense per-pool
// arrays: hops of all chains are numbered one after another, and each hop
// has one pool slot per site.
class PoolIndex {
 public:
  PoolIndex() = default;
  explicit PoolIndex(const Topology& topology);
  std::size_t operator()(std::size_t chain, std::size_t hop, std::size_t site) const {
    return (first_hop_[chain] + hop) * sites_ + site;
  }
  std::size_t hop_number(std::size_t chain, std::size_t hop) const { return first_hop_[chain] + hop; }
  std::size_t hops() const { return hops_; }           // over all chains
  std::size_t pools() const { return hops_ * sites_; }
  std::size_t sites() const { return sites_; }

 private:
  std::vector<std::size_t> first_hop_;  // per chain
  std::size_t hops_ = 0;
  std::size_t sites_ = 0;
};

// --- Plan ------------------------------------------------------------------

// One instance pool of a plan: how many instances of the chain's hop run at
// the site, and which share of the hop's traffic the site gets.
struct PoolPlan {
  std::uint32_t chain = 0;
  std::uint32_t hop = 0;    // 0-based
  std::uint32_t site = 0;
  std::int32_t instances = 0;
  double split = 0;         // share of the hop's traffic; per hop the shares sum to 1
};

// A decision for one slot. Pools not listed run no instance and get no traffic.
struct Plan {
  std::vector<PoolPlan> pools;
  std::int64_t total_instances() const;
};

// Checks a plan against the system without allocating when it is valid, so
// the simulator can check every step. Problems name what is wrong:
// an unknown chain, hop or site, negative instances, a split outside [0, 1],
// a pool listed twice, a hop whose splits do not sum to 1, a site asked for
// more instances than it can host (capacity 0 = unlimited).
class PlanValidator {
 public:
  explicit PlanValidator(const Topology& topology);
  // Empty when the plan is valid.
  std::vector<std::string> problems(const Plan& plan);
  // Throws std::invalid_argument listing every problem.
  void require_valid(const Plan& plan, const std::string& what);

 private:
  const Topology* topology_;
  PoolIndex index_;
  std::vector<double> split_sum_;       // per hop
  std::vector<std::int64_t> site_load_;  // instances per site
  std::vector<std::uint8_t> seen_;      // per pool
};
// One-off check; see PlanValidator.
std::vector<std::string> plan_problems(const Plan& plan, const Topology& topology);

// Where a simple placement puts each hop of a chain: all at the ingress
// site, or spread evenly along the lowest-delay path from ingress to egress.
enum class Placement { ingress, along_path };
Placement parse_placement(const std::string& text);  // "ingress" or "path"
// Every hop of every chain at one site with `instances` instances and all its traffic.
Plan place_chains(const Topology& topology, std::uint32_t instances, Placement placement);

// --- Observation ---------------------------------------------------------------

// Traffic of one chain in one slot, in packets (fluid: fractions allowed).
// arrived = delivered + dropped + backlog_change, exactly.
struct ChainTraffic {
  double arrived = 0;
  double delivered = 0;  // left the last hop for the egress
  double dropped = 0;    // overflowed a full queue, at any hop
  double late = 0;       // part of `delivered` whose latency exceeded the SLA
  double backlog = 0;    // queued at the end of the slot, all hops
  double backlog_change = 0;
  double mean_latency_ms = 0;  // of the delivered traffic
  double p99_latency_ms = 0;   // of the traffic delivered in the slot

  // Mean latency weighted by delivered; p99 the larger of the two (a
  // percentile of a sum is not known from the parts: the worst is kept).
  ChainTraffic& operator+=(const ChainTraffic& other);
};

// Load of one instance pool in the last slot.
struct PoolLoad {
  std::uint32_t chain = 0;
  std::uint32_t hop = 0;
  std::uint32_t site = 0;
  std::int32_t instances = 0;
  double offered_pps = 0;      // arrivals plus the backlog it started with, per second
  double served_pps = 0;
  double backlog_packets = 0;  // at the end of the slot
  // offered / (instances x service rate): like a requests-per-second metric,
  // not capped at 1, so an overloaded pool shows by how much. Infinite when
  // traffic meets a pool without instances.
  double utilisation = 0;
  double queueing_ms = 0;      // waiting + service time a packet spends in the pool
};

struct LinkLoad {
  double mbps = 0;
  double utilisation = 0;  // mbps / bandwidth; 0 when the bandwidth is unknown
};

// What the scaler knows at the start of a slot: the last slot's measurements
// and the plan in force.
struct Observation {
  std::size_t slot = 0;                // the slot about to be decided
  bool measured = false;               // false before any slot ran: nothing to decide from yet
  std::vector<double> arrival_pps;     // per chain, measured in the last slot
  std::vector<ChainTraffic> chains;    // per chain, the last slot (SLA state)
  std::vector<PoolLoad> pools;         // pools with instances, traffic or backlog
  std::vector<LinkLoad> links;         // per topology link
  Plan plan;                           // in force during the last slot
  // Per site: 1 when the pod that hosts it did not answer in the last slot
  // (a site down); empty when every site is up (the simulator's sites always are).
  std::vector<std::uint8_t> site_down;
};

// --- Forecast ----------------------------------------------------------------

// Arrival rates per chain for the next `horizon` slots, optionally with quantiles.
struct Forecast {
  std::size_t chains = 0;
  std::size_t horizon = 0;
  std::vector<double> mean_pps;          // [chain * horizon + step], step 0 = the slot being decided
  std::vector<double> quantile_levels;   // e.g. {0.1, 0.5, 0.9}; empty when none
  std::vector<double> quantile_pps;      // [(chain * horizon + step) * levels + q]

  double mean(std::size_t chain, std::size_t step) const { return mean_pps[chain * horizon + step]; }
  double quantile(std::size_t chain, std::size_t step, std::size_t level) const {
    return quantile_pps[(chain * horizon + step) * quantile_levels.size() + level];
  }
};
// "Tomorrow is like today": the last measured rate for every step ahead,
// the reference any predictor must beat.
Forecast persistence_forecast(const Observation& observation, std::size_t horizon);

}  // namespace nfv
