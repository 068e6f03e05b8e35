// The online policy's regularized slot problem (regularized_solver.h) for
// systems whose chains all have one hop, solved chain by chain instead of
// as one NLP: for given site prices a chain's optimum is closed-form in two
// multipliers (the value of serving a flow unit, found by a Newton step kept in a bracket, and
// the price of its per-hop minimum), because each pool's instances solve
//   min (a + pi - kappa (nu - c)+) x + w [(x + eps) ln((x + eps)/(p + eps)) - x]
// in closed form: x = (p + eps) exp(-(a + pi - kappa (nu - c)+) / w) - eps.
// Site capacity couples the chains; it is priced (pi per instance-slot at
// the site) and the prices are found site by site (Gauss-Seidel, a safeguarded
// secant per site) until every site is within its capacity or priced at 0.
// Same optimum as Ipopt on the whole problem (tests compare them); 500
// chains on 25 sites decide in milliseconds (bench/policy_costs).
#pragma once

#include <cstddef>
#include <vector>

namespace nfv {

struct OneHopProblem {
  struct Pool {
    std::size_t site = 0;
    double route_cost = 0;  // WAN cost of a flow unit through the site, ingress to egress, per slot
    double previous = 0;    // the pool's instances in the previous solution
  };
  struct Chain {
    double arrival = 0;        // flow units
    double capacity = 0;       // flow units one instance serves (planned)
    double min_instances = 0;  // over its pools
    std::vector<Pool> pools;   // its candidate sites
  };
  std::vector<Chain> chains;
  std::vector<double> instance_cost;  // per site, per instance-slot
  std::vector<double> weight;         // per site, the regularizer's (deployment price / eta)
  std::vector<double> site_capacity;  // per site, 0 = unlimited
  double drop_cost = 0;               // per flow unit not served
  double epsilon = 0.1;
};

struct OneHopSolution {
  std::vector<std::vector<double>> instances;  // per chain, per pool
  std::vector<std::vector<double>> flow;       // per chain, per pool: flow units served there
  std::vector<double> site_price;              // per site
  double objective = 0;
  int sweeps = 0;          // of the site prices
  std::size_t chain_solves = 0;  // the work done: one chain's optimum for given prices each
  bool within_capacity = true;  // every site within its capacity (to 1e-6)
  bool settled = false;         // no site price moved in the last sweep (else the work budget ran out)
};

// `warm_prices`: the last solution's site prices, a good start.
OneHopSolution solve_one_hop(const OneHopProblem& problem, const std::vector<double>& warm_prices = {});

}  // namespace nfv
