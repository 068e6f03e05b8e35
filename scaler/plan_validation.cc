// Plan validation: every mistake a policy can make, named in an operator's
// words, without allocating when the plan is fine (the simulator checks
// every step).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "plan.h"

namespace nfv {
namespace {

// Splits are computed in floating point; a policy that normalises them
// lands within this of 1.
constexpr double kSplitTolerance = 1e-6;

std::string pool_name(const Topology& topology, const PoolPlan& pool) {
  return "chain '" + topology.chains[pool.chain].name + "' hop " + std::to_string(pool.hop + 1) + " at site '" +
         topology.sites[pool.site].name + "'";
}

}  // namespace

PlanValidator::PlanValidator(const Topology& topology)
    : topology_(&topology),
      index_(topology),
      split_sum_(index_.hops(), 0.0),
      site_load_(topology.sites.size(), 0),
      seen_(index_.pools(), 0) {}

std::vector<std::string> PlanValidator::problems(const Plan& plan) {
  const Topology& topology = *topology_;
  std::vector<std::string> found;
  std::fill(split_sum_.begin(), split_sum_.end(), 0.0);
  std::fill(site_load_.begin(), site_load_.end(), 0);
  for (std::size_t i = 0; i < plan.pools.size(); ++i) {
    const PoolPlan& pool = plan.pools[i];
    const std::string where = "pools[" + std::to_string(i) + "]";
    if (pool.chain >= topology.chains.size()) {
      found.push_back(where + ": unknown chain " + std::to_string(pool.chain) + " (the system has " +
                      std::to_string(topology.chains.size()) + " chains)");
      continue;
    }
    const Chain& chain = topology.chains[pool.chain];
    if (pool.hop >= chain.vnfs.size()) {
      found.push_back(where + ": chain '" + chain.name + "' has no hop " + std::to_string(pool.hop + 1) + " (it has " +
                      std::to_string(chain.vnfs.size()) + ")");
      continue;
    }
    if (pool.site >= topology.sites.size()) {
      found.push_back(where + ": unknown site " + std::to_string(pool.site) + " (the system has " +
                      std::to_string(topology.sites.size()) + " sites)");
      continue;
    }
    if (pool.instances < 0)
      found.push_back(where + ": " + pool_name(topology, pool) + ": negative instances (" +
                      std::to_string(pool.instances) + ")");
    if (!(pool.split >= 0 && pool.split <= 1))
      found.push_back(where + ": " + pool_name(topology, pool) + ": split " + std::to_string(pool.split) +
                      ", expected a share in [0, 1]");
    std::uint8_t& seen = seen_[index_(pool.chain, pool.hop, pool.site)];
    if (seen) found.push_back(where + ": " + pool_name(topology, pool) + " is listed twice");
    seen = 1;
    split_sum_[index_.hop_number(pool.chain, pool.hop)] += pool.split;
    site_load_[pool.site] += pool.instances;
  }
  for (const PoolPlan& pool : plan.pools)  // leave the markers clean for the next call
    if (pool.chain < topology.chains.size() && pool.hop < topology.chains[pool.chain].vnfs.size() &&
        pool.site < topology.sites.size())
      seen_[index_(pool.chain, pool.hop, pool.site)] = 0;
  for (std::size_t c = 0; c < topology.chains.size(); ++c)
    for (std::size_t h = 0; h < topology.chains[c].vnfs.size(); ++h) {
      const double sum = split_sum_[index_.hop_number(c, h)];
      if (!(std::abs(sum - 1.0) <= kSplitTolerance))
        found.push_back("chain '" + topology.chains[c].name + "' hop " + std::to_string(h + 1) +
                        ": splits sum to " + std::to_string(sum) + ", expected 1");
    }
  for (std::size_t s = 0; s < topology.sites.size(); ++s) {
    const std::uint32_t capacity = topology.sites[s].instance_capacity;
    if (capacity != 0 && site_load_[s] > static_cast<std::int64_t>(capacity))
      found.push_back("site '" + topology.sites[s].name + "': " + std::to_string(site_load_[s]) +
                      " instances planned, capacity " + std::to_string(capacity));
  }
  return found;
}

void PlanValidator::require_valid(const Plan& plan, const std::string& what) {
  const std::vector<std::string> found = problems(plan);
  if (found.empty()) return;
  std::string message = what + ": invalid plan:";
  for (const std::string& problem : found) message += "\n  " + problem;
  throw std::invalid_argument(message);
}

std::vector<std::string> plan_problems(const Plan& plan, const Topology& topology) {
  PlanValidator validator(topology);
  return validator.problems(plan);
}

}  // namespace nfv
