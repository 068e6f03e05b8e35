#include "one_hop_solver.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace nfv {
namespace {

constexpr int kBisections = 60;
constexpr int kMaxSweeps = 500;  // then the caller solves another way (the online policy: Ipopt)
constexpr int kMaxGrowths = 80;  // of a price bracket: a site no price empties (minimums over its capacity)
// Steps of a site's price per visit: the other sites move it again anyway,
// so each visit only closes in (inexact coordinate ascent on the dual).
constexpr int kPriceSteps = 4;
// Work, in solves of every chain, after which the prices count as not
// settling (overloaded systems whose prices trade sites back and forth):
// the caller then solves another way, which is cheaper there.
constexpr std::size_t kMaxPasses = 20;
constexpr double kTolerance = 1e-6;  // relative, on site capacities

// One chain's optimum for given site prices.
class ChainSolver {
 public:
  ChainSolver(const OneHopProblem& problem, const std::vector<double>& price) : p_(problem), price_(price) {}

  void solve(const OneHopProblem::Chain& chain, std::vector<double>& x, std::vector<double>& y) const {
    x.assign(chain.pools.size(), 0.0);
    y.assign(chain.pools.size(), 0.0);
    serve(chain, 0.0, x, y);
    if (chain.min_instances > 0 && total(x) < chain.min_instances * (1 - 1e-12)) meet_minimum(chain, x, y);
    route(chain, x, y);
  }

 private:
  // The cheapest routes first, each up to its pool's capacity: the flows'
  // optimum for these instances. (Where the minimum, not the traffic, sets
  // the instances, they hold more than the arrivals, and which pools carry
  // them is not decided by the instances.)
  void route(const OneHopProblem::Chain& chain, const std::vector<double>& x, std::vector<double>& y) const {
    order_.resize(chain.pools.size());
    for (std::size_t k = 0; k < order_.size(); ++k) order_[k] = k;
    std::sort(order_.begin(), order_.end(),
              [&](std::size_t a, std::size_t b) { return chain.pools[a].route_cost < chain.pools[b].route_cost; });
    double left = chain.arrival;
    for (std::size_t k : order_) {
      const bool pays = chain.pools[k].route_cost < p_.drop_cost;  // else dropping is cheaper
      y[k] = pays ? std::min(left, chain.capacity * x[k]) : 0.0;
      left -= y[k];
    }
  }

  void meet_minimum(const OneHopProblem::Chain& chain, std::vector<double>& x, std::vector<double>& y) const {
    // The per-hop minimum binds: its price mu lowers every pool's instance
    // cost. The instances grow with mu; a secant inside a bracket finds it.
    const double m = chain.min_instances;
    double lo = 0, hi = 1, total_lo = total(x), total_hi;
    for (int growths = 0; serve(chain, hi, x, y), (total_hi = total(x)) < m; ++growths) {
      if (growths == kMaxGrowths) return;  // its sites' capacity holds less than its minimum
      lo = hi;
      total_lo = total_hi;
      hi *= 4;
    }
    for (int i = 0; i < kBisections && std::abs(total_hi - m) > 1e-9 * m; ++i) {
      double mu = lo + (m - total_lo) * (hi - lo) / (total_hi - total_lo);
      if (!(mu > lo && mu < hi) || i % 4 == 3) mu = (lo + hi) / 2;
      serve(chain, mu, x, y);
      const double t = total(x);
      if (std::abs(t - m) <= 1e-9 * m) return;
      if (t < m) {
        lo = mu;
        total_lo = t;
      } else {
        hi = mu;
        total_hi = t;
      }
    }
    serve(chain, hi, x, y);
  }

  static double total(const std::vector<double>& v) {
    double sum = 0;
    for (double e : v) sum += e;
    return sum;
  }

  // Instances of a pool whose marginal instance cost is g.
  double instances(const OneHopProblem::Pool& pool, double g) const {
    const double w = std::max(p_.weight[pool.site], 1e-12);
    const double x = (pool.previous + p_.epsilon) * std::exp(std::min(-g / w, 700.0)) - p_.epsilon;
    const double cap = p_.site_capacity[pool.site] > 0 ? p_.site_capacity[pool.site] : std::numeric_limits<double>::infinity();
    return std::clamp(x, 0.0, cap);
  }

  // x and y for the value nu of serving a unit (and mu of the minimum);
  // the served flow, and in `slope` its derivative in nu.
  double flows(const OneHopProblem::Chain& chain, double nu, double mu, std::vector<double>& x, std::vector<double>& y,
               double* slope = nullptr) const {
    double served = 0, derivative = 0;
    for (std::size_t k = 0; k < chain.pools.size(); ++k) {
      const auto& pool = chain.pools[k];
      const double a = p_.instance_cost[pool.site] + price_[pool.site] - mu;
      const bool serves = nu > pool.route_cost;
      x[k] = instances(pool, serves ? a - chain.capacity * (nu - pool.route_cost) : a);
      y[k] = serves ? chain.capacity * x[k] : 0.0;
      served += y[k];
      const double cap = p_.site_capacity[pool.site];
      if (serves && x[k] > 0 && !(cap > 0 && x[k] >= cap))
        derivative += chain.capacity * chain.capacity * (x[k] + p_.epsilon) / std::max(p_.weight[pool.site], 1e-12);
    }
    if (slope) *slope = derivative;
    return served;
  }

  // Serves the arrivals at the value of serving that clears them (or drops
  // what costs more to serve than to drop).
  void serve(const OneHopProblem::Chain& chain, double mu, std::vector<double>& x, std::vector<double>& y) const {
    const double lambda = chain.arrival;
    if (flows(chain, p_.drop_cost, mu, x, y) <= lambda) return;  // drops the rest (or serves all at the drop price)
    double lo = std::numeric_limits<double>::infinity();
    for (const auto& pool : chain.pools) lo = std::min(lo, pool.route_cost);
    double hi = p_.drop_cost;
    // Newton on the served flow, kept inside the bracket [lo, hi] (the flow
    // is smooth between the route costs, where it jumps: bisection then).
    double nu = (lo + hi) / 2;
    for (int i = 0; i < kBisections && hi - lo > 1e-13 * std::max(1.0, std::abs(hi)); ++i) {
      double slope = 0;
      const double served = flows(chain, nu, mu, x, y, &slope);
      if (std::abs(served - lambda) <= 1e-10 * std::max(1.0, lambda)) {
        lo = hi = nu;
        break;
      }
      (served < lambda ? lo : hi) = nu;
      const double step = slope > 0 ? nu + (lambda - served) / slope : NAN;
      nu = step > lo && step < hi ? step : (lo + hi) / 2;
    }
    // The instances at the bracket's upper end: sites that start serving
    // right at the clearing value (a jump in the served flow) keep theirs,
    // and route() gives them only what the cheaper routes leave.
    flows(chain, hi, mu, x, y);
  }

  const OneHopProblem& p_;
  const std::vector<double>& price_;
  mutable std::vector<std::size_t> order_;  // scratch
};

}  // namespace

OneHopSolution solve_one_hop(const OneHopProblem& problem, const std::vector<double>& warm_prices) {
  const std::size_t sites = problem.instance_cost.size();
  if (problem.weight.size() != sites || problem.site_capacity.size() != sites)
    throw std::invalid_argument("one-hop solver: per-site vectors of different sizes");
  OneHopSolution out;
  out.site_price = warm_prices.size() == sites ? warm_prices : std::vector<double>(sites, 0.0);
  const ChainSolver solver(problem, out.site_price);
  const std::size_t chains = problem.chains.size();
  out.instances.resize(chains);
  out.flow.resize(chains);
  std::vector<double> usage(sites, 0.0);
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> at(sites);  // per site: (chain, pool)
  for (std::size_t c = 0; c < chains; ++c) {
    for (std::size_t k = 0; k < problem.chains[c].pools.size(); ++k) {
      const std::size_t s = problem.chains[c].pools[k].site;
      if (s >= sites) throw std::invalid_argument("one-hop solver: a pool at an unknown site");
      at[s].emplace_back(c, k);
    }
    solver.solve(problem.chains[c], out.instances[c], out.flow[c]);
    ++out.chain_solves;
    for (std::size_t k = 0; k < problem.chains[c].pools.size(); ++k) usage[problem.chains[c].pools[k].site] += out.instances[c][k];
  }
  // Re-solves the chains at site s (their usage everywhere follows) and returns s's usage.
  std::vector<std::size_t> touched;
  const auto resolve_site = [&](std::size_t s) {
    touched.clear();
    for (const auto& [c, k] : at[s])
      if (touched.empty() || touched.back() != c) touched.push_back(c);
    for (std::size_t c : touched) {
      const auto& chain = problem.chains[c];
      for (std::size_t k = 0; k < chain.pools.size(); ++k) usage[chain.pools[k].site] -= out.instances[c][k];
      solver.solve(chain, out.instances[c], out.flow[c]);
      ++out.chain_solves;
      for (std::size_t k = 0; k < chain.pools.size(); ++k) usage[chain.pools[k].site] += out.instances[c][k];
    }
    return usage[s];
  };
  const auto over = [&](std::size_t s) { return usage[s] > problem.site_capacity[s] * (1 + kTolerance); };
  const auto slack_priced = [&](std::size_t s) {
    return out.site_price[s] > 0 && usage[s] < problem.site_capacity[s] * (1 - kTolerance);
  };
  bool stuck = false;
  const std::size_t budget = (kMaxPasses + 1) * std::max<std::size_t>(chains, 1);
  for (out.sweeps = 0; out.sweeps < kMaxSweeps && !stuck; ++out.sweeps) {
    bool changed = false;
    for (std::size_t s = 0; s < sites && !stuck; ++s) {
      if (out.chain_solves > budget) {
        stuck = true;
        break;
      }
      const double capacity = problem.site_capacity[s];
      if (!(capacity > 0) || at[s].empty() || (!over(s) && !slack_priced(s))) continue;
      changed = true;
      // The price that fills the site exactly (or 0 if it is not full at 0):
      // the usage falls as the price rises; a secant kept inside a bracket.
      double lo = 0, hi = out.site_price[s];
      double usage_lo, usage_hi;
      if (over(s)) {
        lo = out.site_price[s];
        usage_lo = usage[s];
        hi = std::max(1.0, 2 * lo);
        out.site_price[s] = hi;
        int growths = 0;
        while ((usage_hi = resolve_site(s)) > capacity && ++growths < kMaxGrowths) {
          lo = hi;
          usage_lo = usage_hi;
          out.site_price[s] = hi *= 4;
        }
        if (usage_hi > capacity) {
          stuck = true;  // the chains' minimums alone overfill it: no prices fit the sites
          break;
        }
      } else {
        usage_hi = usage[s];
        out.site_price[s] = 0;
        usage_lo = resolve_site(s);
        if (usage_lo <= capacity) continue;  // not full without a price
      }
      for (int i = 0; i < kPriceSteps; ++i) {
        double next = lo + (usage_lo - capacity) * (hi - lo) / (usage_lo - usage_hi);
        if (!(next > lo && next < hi) || i % 3 == 2) next = (lo + hi) / 2;  // keep the bracket shrinking
        out.site_price[s] = next;
        const double u = resolve_site(s);
        if (std::abs(u - capacity) <= kTolerance * capacity) break;
        if (u > capacity) {
          lo = next;
          usage_lo = u;
        } else {
          hi = next;
          usage_hi = u;
        }
      }
    }
    if (!changed) {
      out.settled = true;
      break;
    }
  }
  out.within_capacity = true;
  for (std::size_t s = 0; s < sites; ++s)
    if (problem.site_capacity[s] > 0 && usage[s] > problem.site_capacity[s] * (1 + 1e-6)) out.within_capacity = false;
  // The objective, to compare with other solvers.
  for (std::size_t c = 0; c < chains; ++c) {
    const auto& chain = problem.chains[c];
    double served = 0;
    for (std::size_t k = 0; k < chain.pools.size(); ++k) {
      const auto& pool = chain.pools[k];
      const double x = out.instances[c][k], v = x + problem.epsilon;
      out.objective += problem.instance_cost[pool.site] * x + pool.route_cost * out.flow[c][k] +
                       problem.weight[pool.site] * (v * std::log(v / (pool.previous + problem.epsilon)) - x);
      served += out.flow[c][k];
    }
    out.objective += problem.drop_cost * std::max(0.0, chain.arrival - served);
  }
  return out;
}

}  // namespace nfv
