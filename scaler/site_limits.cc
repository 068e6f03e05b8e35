#include "site_limits.h"

#include <algorithm>
#include <stdexcept>

namespace nfv {

std::string enforce_site_limits(Plan& plan, const Topology& topology, const SiteLimits& limits) {
  std::string changed;
  const auto note = [&](const std::string& text) { changed += (changed.empty() ? "" : "; ") + text; };
  const auto max_of = [&](std::size_t s) {
    const double limit = s < limits.max.size() ? limits.max[s] : 0.0;
    return limit > 0 ? limit : static_cast<double>(topology.sites[s].instance_capacity);
  };
  const auto min_of = [&](std::size_t s) { return s < limits.min.size() ? limits.min[s] : 0.0; };
  // Most plans are within every limit: one pass tells.
  std::vector<double> totals(topology.sites.size(), 0.0);
  for (const PoolPlan& p : plan.pools)
    if (p.site < totals.size()) totals[p.site] += p.instances;
  bool within = true;
  for (std::size_t s = 0; s < totals.size() && within; ++s)
    within = totals[s] >= min_of(s) && (max_of(s) <= 0 || totals[s] <= max_of(s));
  if (within) return changed;
  for (std::size_t s = 0; s < topology.sites.size(); ++s) {
    const double max = max_of(s);
    const double min = min_of(s);
    std::vector<PoolPlan*> here;
    double total = 0;
    for (PoolPlan& p : plan.pools)
      if (p.site == s) {
        here.push_back(&p);
        total += p.instances;
      }
    if (here.empty()) {
      if (min > 0) note("site " + topology.sites[s].name + " runs no pool to hold its minimum");
      continue;
    }
    const auto largest = [&] {
      return *std::max_element(here.begin(), here.end(), [](PoolPlan* a, PoolPlan* b) { return a->instances < b->instances; });
    };
    const double before = total;
    while (max > 0 && total > max && largest()->instances > 1) {
      --largest()->instances;
      --total;
    }
    while (total < min) {
      ++largest()->instances;
      ++total;
    }
    if (max > 0 && total > max)
      throw std::runtime_error("site " + topology.sites[s].name + " needs " + std::to_string(static_cast<long>(total)) +
                               " instances (one per pool), more than its limit " + std::to_string(static_cast<long>(max)));
    if (total != before)
      note("site " + topology.sites[s].name + " limited from " + std::to_string(static_cast<long>(before)) + " to " +
           std::to_string(static_cast<long>(total)) + " instances");
  }
  return changed;
}

}  // namespace nfv
