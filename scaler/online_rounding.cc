#include "online_rounding.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nfv {
namespace {

constexpr double kSlack = 1e-6;  // solver tolerance: 2.9999999 instances are 3

}  // namespace

bool RoundingResult::fits() const {
  return std::all_of(overflow.begin(), overflow.end(), [](double o) { return o <= 0; });
}

RoundingResult round_online(const Topology& topology, const PoolIndex& pools, const std::vector<double>& fractional,
                            const std::vector<std::int32_t>& previous, const std::vector<char>& candidate,
                            const std::vector<double>& site_capacity, double keep, double min_per_hop) {
  const std::size_t sites = pools.sites();
  RoundingResult out;
  out.instances.assign(pools.pools(), 0);
  out.overflow.assign(sites, 0.0);
  std::vector<double> remainder(pools.pools(), -1.0);  // fractional part, -1 = not a candidate
  for (std::size_t c = 0; c < topology.chains.size(); ++c)
    for (std::size_t h = 0; h < topology.chains[c].vnfs.size(); ++h) {
      const std::size_t first = pools(c, h, 0);
      double total = 0;
      std::int32_t running = 0;
      bool previous_fits = true;
      for (std::size_t s = 0; s < sites; ++s) {
        total += candidate[first + s] ? std::max(0.0, fractional[first + s]) : 0.0;
        running += previous[first + s];
        previous_fits = previous_fits && (previous[first + s] == 0 || candidate[first + s]);
      }
      const double wanted = std::max(total, min_per_hop);
      const std::int32_t need = static_cast<std::int32_t>(std::ceil(wanted - kSlack));
      if (previous_fits && running >= need && running - wanted < keep) {
        for (std::size_t s = 0; s < sites; ++s) out.instances[first + s] = previous[first + s];
        continue;
      }
      std::int32_t placed = 0;
      std::vector<std::size_t> order;
      for (std::size_t s = 0; s < sites; ++s) {
        if (!candidate[first + s]) continue;
        const double x = std::max(0.0, fractional[first + s]);
        const auto whole = static_cast<std::int32_t>(std::floor(x + kSlack));
        out.instances[first + s] = whole;
        placed += whole;
        remainder[first + s] = x - whole;
        order.push_back(s);
      }
      // Largest remainders first; among equals, where instances already run.
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (remainder[first + a] != remainder[first + b]) return remainder[first + a] > remainder[first + b];
        return previous[first + a] > previous[first + b];
      });
      for (std::size_t k = 0; placed < need && !order.empty(); k = (k + 1) % order.size()) {
        ++out.instances[first + order[k]];
        ++placed;
      }
    }
  // Sites over capacity: move units rounded up there to another site of the same hop with room.
  std::vector<double> used(sites, 0.0);
  for (std::size_t pool = 0; pool < pools.pools(); ++pool) used[pool % sites] += out.instances[pool];
  for (std::size_t s = 0; s < sites; ++s) {
    if (!(site_capacity[s] > 0)) continue;
    for (std::size_t hop = 0; hop < pools.hops() && used[s] > site_capacity[s]; ++hop) {
      const std::size_t pool = hop * sites + s;
      const double rounded_up = out.instances[pool] - std::max(0.0, fractional[pool]);
      if (out.instances[pool] == 0 || rounded_up <= kSlack) continue;
      std::size_t best = sites;
      for (std::size_t t = 0; t < sites; ++t) {
        const std::size_t other = hop * sites + t;
        if (t == s || !candidate[other] || (site_capacity[t] > 0 && used[t] + 1 > site_capacity[t])) continue;
        if (best == sites || remainder[other] > remainder[hop * sites + best]) best = t;
      }
      if (best == sites) continue;
      --out.instances[pool];
      ++out.instances[hop * sites + best];
      --used[s];
      ++used[best];
    }
    out.overflow[s] = site_capacity[s] > 0 ? used[s] - site_capacity[s] : 0;
  }
  return out;
}

}  // namespace nfv
