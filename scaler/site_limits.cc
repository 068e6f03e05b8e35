#include "site_limits.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

namespace nfv {
namespace {

bool is_down(const SiteLimits& limits, std::size_t site) { return site < limits.down.size() && limits.down[site]; }

double delay_ms(const Topology& topology, std::size_t from, std::size_t to) {
  if (from == to) return 0;
  const auto path = topology.shortest_path(from, to);
  return path ? path->delay_ms : std::numeric_limits<double>::infinity();
}

// Moves every pool off the down sites (see the header); returns what moved, in words.
std::string leave_down_sites(Plan& plan, const Topology& topology, const SiteLimits& limits) {
  std::string moved;
  const auto note = [&](const std::string& text) { moved += (moved.empty() ? "" : "; ") + text; };
  // Per hop, in plan order: its pools up and its pools down.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> hops;
  for (std::size_t i = 0; i < plan.pools.size(); ++i) {
    const PoolPlan& p = plan.pools[i];
    auto& [up, down] = hops[{p.chain, p.hop}];
    (is_down(limits, p.site) ? down : up).push_back(i);
  }
  std::vector<std::uint8_t> drop(plan.pools.size(), 0);
  std::vector<PoolPlan> placed;
  for (auto& [hop, pools] : hops) {
    auto& [up, down] = pools;
    if (down.empty()) continue;
    const Chain& chain = topology.chains[hop.first];
    const std::string name = chain.name + " hop " + std::to_string(hop.second + 1);
    std::int32_t instances = 0;
    std::string from;
    for (std::size_t i : down) {
      instances += plan.pools[i].instances;
      from += (from.empty() ? "" : ", ") + topology.sites[plan.pools[i].site].name;
    }
    if (up.empty()) {
      // The site up with the least delay from the hop before to the hop after, within the chain's SLA.
      const auto site_of = [&](std::uint32_t h, std::size_t otherwise) -> std::size_t {
        std::size_t best = otherwise;
        double share = -1;
        for (const PoolPlan& p : plan.pools)
          if (p.chain == hop.first && p.hop == h && !is_down(limits, p.site) && p.split > share) {
            best = p.site;
            share = p.split;
          }
        return best;
      };
      const std::size_t before = hop.second == 0 ? chain.ingress : site_of(hop.second - 1, chain.ingress);
      const std::size_t after = hop.second + 1 == chain.vnfs.size() ? chain.egress : site_of(hop.second + 1, chain.egress);
      std::size_t best = topology.sites.size();
      double best_delay = std::numeric_limits<double>::infinity();
      for (std::size_t s = 0; s < topology.sites.size(); ++s) {
        if (is_down(limits, s) || topology.sites[s].instance_capacity == 0) continue;
        if (limits.runs_pool && !limits.runs_pool(hop.first, hop.second, s)) continue;
        const double added = delay_ms(topology, before, s) + delay_ms(topology, s, after);
        const bool within = delay_ms(topology, chain.ingress, s) + delay_ms(topology, s, chain.egress) <= chain.sla_latency_ms;
        if (within && added < best_delay) {
          best = s;
          best_delay = added;
        }
      }
      if (best == topology.sites.size()) {
        note("site " + from + " down: " + name + " has no site up within its SLA that can run it, it stays");
        continue;
      }
      placed.push_back(PoolPlan{hop.first, hop.second, static_cast<std::uint32_t>(best), std::max(instances, 1), 1.0});
      note("site " + from + " down: " + name + " placed at " + topology.sites[best].name);
    } else {
      // The hop's other pools take its share and its instances, one at a
      // time to the pool with the fewest per share of the flows.
      double kept = 0;
      for (std::size_t i : up) kept += plan.pools[i].split;
      for (std::size_t i : up)
        plan.pools[i].split = kept > 0 ? plan.pools[i].split / kept : 1.0 / static_cast<double>(up.size());
      for (std::int32_t n = 0; n < instances; ++n) {
        std::size_t least = up.front();
        for (std::size_t i : up)
          if (plan.pools[i].instances / std::max(plan.pools[i].split, 1e-9) <
              plan.pools[least].instances / std::max(plan.pools[least].split, 1e-9))
            least = i;
        ++plan.pools[least].instances;
      }
      std::string to;
      for (std::size_t i : up) to += (to.empty() ? "" : ", ") + topology.sites[plan.pools[i].site].name;
      note("site " + from + " down: " + name + " moved to " + to);
    }
    for (std::size_t i : down) drop[i] = 1;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < plan.pools.size(); ++i)
    if (!drop[i]) plan.pools[kept++] = plan.pools[i];
  plan.pools.resize(kept);
  plan.pools.insert(plan.pools.end(), placed.begin(), placed.end());
  return moved;
}

}  // namespace

std::string enforce_site_limits(Plan& plan, const Topology& topology, const SiteLimits& limits) {
  std::string changed;
  const auto note = [&](const std::string& text) { changed += (changed.empty() ? "" : "; ") + text; };
  const auto max_of = [&](std::size_t s) {
    const double limit = s < limits.max.size() ? limits.max[s] : 0.0;
    return limit > 0 ? limit : static_cast<double>(topology.sites[s].instance_capacity);
  };
  const auto min_of = [&](std::size_t s) { return s < limits.min.size() && !is_down(limits, s) ? limits.min[s] : 0.0; };
  if (std::find(limits.down.begin(), limits.down.end(), 1) != limits.down.end()) {
    const std::string moved = leave_down_sites(plan, topology, limits);
    if (!moved.empty()) note(moved);
  }
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
