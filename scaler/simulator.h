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
  // and the time a packet spends in their pool: a wait behind the fluid
  // backlog, which grows or shrinks linearly over the slot (uniform between
  // its values at the start and the end), plus an M/M/1 sojourn at one
  // instance's load (exponential).
  struct HopSite {
    std::size_t site;
    double weight;
    double wait_lo_ms, wait_hi_ms;
    double sojourn_ms;
  };
  // One route of a chain's delivered traffic: its share and its latency,
  // propagation + Uniform[lo, hi] + Exponential(mean sojourn).
  struct RouteLatency {
    double share;
    double fixed_ms, lo_ms, hi_ms, sojourn_ms;
  };
  void run_chain(std::size_t chain, double arrival_pps);
  // Collects the routes the chain's traffic took through its hop sites.
  void collect_routes(std::size_t chain);
  // Share of delivered traffic over `ms` (routes of collect_routes).
  double share_over(double ms) const;
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
  std::vector<RouteLatency> routes_;          // of the chain being run
  SlotOutcome outcome_;
};

}  // namespace nfv
