// `online`: regularization-based online scaling of VNF chains across sites
// (after Jia, Wu, Li, Le, Liu, IEEE/ACM ToN 2018, and Luo & Wu, ToN 2020;
// docs/scaler.md has the model, the parameters and the competitive bound).
// Each slot it solves the relaxed one-slot problem (SlotProblem) in which the
// deployment cost of new instances is replaced by the relative-entropy
// regularizer  (c_dep / eta) [(x + eps) ln((x + eps) / (x_prev + eps)) - x],
// x_prev being the previous slot's fractional solution, with Ipopt; then it
// rounds online to whole instances, never below the fractional solution.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "one_hop_solver.h"
#include "policy.h"
#include "regularized_solver.h"
#include "system_model.h"
#include "slot_problem.h"

namespace nfv {

enum class OnlineSolver { automatic, ipopt };

struct OnlineSettings {
  double epsilon = 0.1;   // eps > 0, in instances: how far from zero a pool may grow at the regularizer's rate
  double eta = 0;         // eta > 0; 0 = ln(1 + K/eps), K the largest site capacity: the bound's choice
  double max_utilisation = 0.9;      // planned load per instance: headroom for forecast error
  double min_instances_per_hop = 1;  // over all sites
  // Serving is a constraint, as in the papers: a packet/s dropped costs
  // `serve_weight` times the instances (running and starting) it would
  // need, so the policy drops only when no site has room.
  double serve_weight = 10;
  // Hysteresis of the rounding: a pool keeps an instance it already runs
  // while that leaves it less than `keep` instances above the fractional
  // solution (1 = plain rounding up).
  double keep = 1;
  // Plan for at least the highest measured rate of the last `window_slots`
  // slots (0 = the forecast alone).
  std::size_t window_slots = 5;
  CandidateSites candidates = CandidateSites::along_path;
  // auto: chain by chain (one_hop_solver.h) when every chain has one hop,
  // else Ipopt on the whole slot; ipopt: always Ipopt.
  OnlineSolver solver = OnlineSolver::automatic;
  std::vector<double> site_capacity;  // empty = the topology's
  int max_capacity_resolves = 4;      // re-solves with tighter sites when rounding overflows one
};

class OnlinePolicy final : public Policy {
 public:
  OnlinePolicy(std::shared_ptr<const SystemModel> model, OnlineSettings settings);
  std::string name() const override { return "online"; }
  Plan decide(const Observation& observation, const Forecast& forecast) override;
  void reset() override;
  std::string explain() const override { return explanation_; }
  // The previous fractional solution and rounding, per pool.
  std::string state() const override;
  void restore(const std::string& state) override;

  // The last decision's fractional solution and its rounding, per pool (PoolIndex).
  const std::vector<double>& fractional() const { return fractional_; }
  const std::vector<std::int32_t>& rounded() const { return rounded_; }
  double eta() const { return eta_; }
  // The optimum of the last decision's slot problem (before rounding
  // tightened any site): solvers are compared by it.
  double slot_objective() const { return slot_objective_; }

 private:
  std::shared_ptr<const SystemModel> model_;
  OnlineSettings settings_;
  double eta_;
  double drop_cost_per_unit_ = 0;
  bool started_ = false;
  std::vector<double> fractional_;      // per pool
  std::vector<std::int32_t> rounded_;   // per pool
  std::vector<std::vector<std::vector<std::size_t>>> fixed_sites_;  // candidates = fixed: per chain, per hop
  WarmStart warm_start_;
  bool one_hop_ = false;                // solved chain by chain
  std::vector<double> site_prices_;     // the last chain-by-chain solution's, a warm start
  // After a slot whose site prices did not settle (a system overloaded for
  // a while), the next slots go straight to Ipopt: 1, 2, 4 ... up to 16.
  int fast_skip_ = 0, fast_backoff_ = 0;
  OneHopProblem one_hop_problem(const SlotProblem& problem, const std::vector<double>& arrival_pps) const;
  std::vector<double> recent_;          // per chain, a ring of window_slots measured rates
  std::size_t recent_at_ = 0;                // the last solution, primal and dual
  std::string explanation_;
  double slot_objective_ = 0;
};

}  // namespace nfv
