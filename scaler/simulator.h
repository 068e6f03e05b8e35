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

#include "arrival_schedule.h"
#include "cost_model.h"
#include "plan.h"
#include "system_model.h"

namespace nfv {

// Everything one simulated slot produced.
struct SlotOutcome {
  Observation observation;  // for the next decision: this slot's measurements
  ChainTraffic total;       // over all chains
  SlotUsage usage;
  CostBreakdown cost;
  // The same cost, each chain's share: its pools' operating and deployment
  // cost, the WAN cost of the traffic it carried, the SLA penalty of its
  // missed packets. The chains' shares add up to `cost`. Learning policies
  // use it to credit each chain's decisions with their own cost.
  std::vector<CostBreakdown> chain_cost;
  // The same cost, each site's share: the operating and deployment cost of
  // its instances, the WAN cost of the traffic it sends (to the next hop's
  // site or the egress), the SLA penalty of the packets its pools dropped
  // and of its part of each chain's late packets (in proportion to the
  // chain's packets it served). The sites' shares add up to `cost`:
  // per-site agents learn from it.
  std::vector<CostBreakdown> site_cost;
};

class FluidSimulator {
 public:
  explicit FluidSimulator(std::shared_ptr<const SystemModel> model);

  // Empty queues; `running` is the plan already in force (no deployment
  // cost for it); the next step is slot `first_slot` (of the trace).
  // `rates_before`: the rates measured in the slot before, when known.
  void reset(const Plan& running, std::size_t first_slot = 0, std::span<const double> rates_before = {});
  // Runs the next slot with `plan` (checked: throws std::invalid_argument
  // naming the problems) and `arrival_pps` per chain.
  const SlotOutcome& step(const Plan& plan, std::span<const double> arrival_pps);

  const SlotOutcome& last() const { return outcome_; }
  std::size_t slot() const { return slot_; }
  const SystemModel& model() const { return *model_; }

 private:
  // Per hop: the sites carrying traffic, their share of the hop's output
  // and the time a packet spends in their pool. The packets a pool serves in
  // a slot wait behind its fluid backlog: those queued when the slot began
  // behind that backlog (`start`); arrivals while the backlog moves towards
  // its value at the slot's end, at the rate arrivals exceed (or fall short
  // of) service, behind a backlog between the two (uniform); later arrivals
  // behind the end backlog (`end`). A backlogged pool adds one service time;
  // one without a backlog an M/M/1 sojourn at its load (exponential).
  struct PoolWait {
    double start_share = 0, ramp_share = 0;  // the rest waited behind the end backlog
    double start_ms = 0, end_ms = 0;
    double sojourn_ms = 0;                   // mean of the exponential part
    double mean_ms() const;
  };
  struct HopSite {
    std::size_t site;
    double weight;
    PoolWait wait;
  };
  // One route of a chain's delivered traffic: its share, propagation, and
  // the waits of its pools. Over several hops the waits add up, the shares
  // are the longest-waiting pool's and the sojourns' means add: exact for
  // one backlogged pool on the route, the usual case.
  struct RouteLatency {
    double share;
    double fixed_ms;
    PoolWait wait;
    double longest_wait_ms;  // of one pool: whose shares the route takes
  };
  void run_chain(std::size_t chain, double arrival_pps);
  PoolWait pool_wait(double backlog, double arriving, double served, double queued, double capacity_pps,
                     double service_pps, double queue_limit) const;
  // Collects the routes the chain's traffic took through its hop sites.
  void collect_routes(std::size_t chain);
  // Share of delivered traffic over `ms` (routes of collect_routes).
  double share_over(double ms) const;
  void carry(std::size_t chain, std::size_t from, std::size_t to, double packets);

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
  std::vector<RouteLatency> routes_;          // of the chain being run
  std::vector<double> site_dropped_;          // packets, this slot
  std::vector<double> site_late_;             // packets, this slot
  std::vector<double> chain_served_;          // per site: the chain being run's packets served there, all hops
  SlotOutcome outcome_;
};

}  // namespace nfv
