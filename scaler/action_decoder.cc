#include "action_decoder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "featurizer.h"

namespace nfv {
namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// A network output as a score: NaN is no preference.
double score(std::span<const float> values, std::size_t at) {
  if (at >= values.size()) return 0;
  const double v = values[at];
  return std::isnan(v) ? 0.0 : std::clamp(v, -1e30, 1e30);
}

// Calls `f(pool, plan_pool)` for each of the plan's pools of this system (PoolIndex), skipping others.
template <typename F>
void for_each_pool(const SystemModel& model, const Plan& plan, F&& f) {
  const PoolIndex& index = model.pool_index();
  for (const PoolPlan& p : plan.pools)
    if (p.chain < model.chains() && p.hop < model.topology().chains[p.chain].vnfs.size() && p.site < model.sites())
      f(index(p.chain, p.hop, p.site), p);
}

}  // namespace

std::vector<std::uint8_t> plan_pools(const SystemModel& model, const Plan& plan) {
  std::vector<std::uint8_t> mask(model.pool_index().pools(), 0);
  for_each_pool(model, plan, [&](std::size_t pool, const PoolPlan&) { mask[pool] = 1; });
  return mask;
}

ActionDecoder::ActionDecoder(std::shared_ptr<const SystemModel> model, DecoderSettings settings)
    : model_(std::move(model)), settings_(std::move(settings)), candidate_(sla_pool_mask(*model_)) {
  const SystemModel& m = *model_;
  if (!settings_.pools.empty()) {
    if (settings_.pools.size() != candidate_.size())
      throw std::invalid_argument("decoder: a pool mask of " + std::to_string(settings_.pools.size()) + " pools, the system has " +
                                  std::to_string(candidate_.size()));
    for (std::size_t p = 0; p < candidate_.size(); ++p) candidate_[p] = candidate_[p] && settings_.pools[p];
  }
  const Topology& topology = m.topology();
  const PoolIndex& index = m.pool_index();
  const std::size_t sites = m.sites();
  if (settings_.max_instances_per_pool == 0) throw std::invalid_argument("decoder: max_instances_per_pool must be >= 1");
  if (settings_.min_instances_per_hop > settings_.max_instances_per_pool * sites)
    throw std::invalid_argument("decoder: min_instances_per_hop above what the pools can hold");
  for (const auto* limits : {&settings_.limits.min, &settings_.limits.max})
    if (!limits->empty() && limits->size() != sites)
      throw std::invalid_argument("decoder: per-site limits for " + std::to_string(limits->size()) + " sites, the system has " +
                                  std::to_string(sites));
  for (std::size_t s = 0; s < sites; ++s) {
    double cap = topology.sites[s].instance_capacity > 0 ? topology.sites[s].instance_capacity : kUnlimited;
    if (!settings_.limits.max.empty() && settings_.limits.max[s] > 0) cap = std::min(cap, settings_.limits.max[s]);
    cap_.push_back(cap);
    min_.push_back(settings_.limits.min.empty() ? 0.0 : settings_.limits.min[s]);
    if (min_[s] > cap)
      throw std::invalid_argument("decoder: site " + topology.sites[s].name + ": minimum " + std::to_string(min_[s]) +
                                  " above its capacity " + std::to_string(cap));
  }
  hop_sites_.resize(index.hops());
  for (std::size_t c = 0; c < m.chains(); ++c)
    for (std::size_t h = 0; h < topology.chains[c].vnfs.size(); ++h)
      for (std::size_t s = 0; s < sites; ++s)
        if (candidate_[index(c, h, s)]) hop_sites_[index.hop_number(c, h)].push_back(s);

  // The minimal plan: every hop's minimum placed by augmenting paths (a unit
  // may move a unit of another hop to that hop's other sites to make room),
  // then the site minimums.
  const std::size_t hops = index.hops();
  std::vector<std::int32_t> want(index.pools(), 0);
  std::vector<double> used(sites, 0.0);
  std::vector<std::uint8_t> visited(sites);
  const auto place = [&](auto&& self, std::size_t hop) -> bool {
    for (std::size_t s : hop_sites_[hop])
      if (used[s] < cap_[s] && want[hop * sites + s] < static_cast<std::int32_t>(settings_.max_instances_per_pool)) {
        ++want[hop * sites + s];
        ++used[s];
        return true;
      }
    for (std::size_t s : hop_sites_[hop]) {
      if (visited[s] || want[hop * sites + s] >= static_cast<std::int32_t>(settings_.max_instances_per_pool)) continue;
      visited[s] = 1;
      for (std::size_t other = 0; other < hops; ++other)
        if (other != hop && want[other * sites + s] > 0) {
          --want[other * sites + s];  // other's unit leaves s...
          if (self(self, other)) {    // ...for one of other's sites
            ++want[hop * sites + s];
            return true;
          }
          ++want[other * sites + s];
        }
    }
    return false;
  };
  for (std::size_t hop = 0; hop < hops; ++hop)
    for (std::uint32_t k = 0; k < settings_.min_instances_per_hop; ++k) {
      std::fill(visited.begin(), visited.end(), 0);
      if (!place(place, hop))
        throw std::invalid_argument("decoder: no room for every hop's " + std::to_string(settings_.min_instances_per_hop) +
                                    " instance(s) at sites within its chain's SLA" +
                                    (settings_.pools.empty() ? "" : " among the pools given (does the plan run every hop?)"));
    }
  for (std::size_t s = 0; s < sites; ++s) {
    bool any = false;
    for (std::size_t hop = 0; hop < hops; ++hop) any = any || candidate_[hop * sites + s];
    if (min_[s] > 0 && !any)
      throw std::invalid_argument("decoder: site " + topology.sites[s].name + " has a minimum but no hop may run there");
  }
  if (!fit(want, {})) throw std::invalid_argument("decoder: the site minimums cannot be met");
  minimal_ = to_plan(want, {});
}

bool ActionDecoder::fit(std::vector<std::int32_t>& want, std::span<const float> instances,
                        std::span<const std::int32_t> running) const {
  const SystemModel& m = *model_;
  const std::size_t sites = m.sites();
  const std::size_t hops = hop_sites_.size();
  const std::int32_t min_hop = static_cast<std::int32_t>(settings_.min_instances_per_hop);
  const auto hop_total = [&](std::size_t hop) {
    std::int32_t total = 0;
    for (std::size_t s : hop_sites_[hop]) total += want[hop * sites + s];
    return total;
  };
  // The hop's candidate site the output prefers (largest instances score).
  const auto preferred = [&](std::size_t hop, const std::vector<double>& room) {
    std::size_t best = sites;
    for (std::size_t s : hop_sites_[hop])
      if (room[s] >= 1 && want[hop * sites + s] < static_cast<std::int32_t>(settings_.max_instances_per_pool) &&
          (best == sites || score(instances, hop * sites + s) > score(instances, hop * sites + best)))
        best = s;
    return best;
  };
  std::vector<double> used(sites, 0.0);
  for (std::size_t hop = 0; hop < hops; ++hop)
    for (std::size_t s : hop_sites_[hop]) used[s] += want[hop * sites + s];

  // Sites over their capacity: every pool there is cut to a common level L,
  // the largest that fits, and the room left goes to the pools cut most.
  std::vector<std::int32_t> cut(hops, 0);  // per hop: instances its full sites could not hold
  for (std::size_t s = 0; s < sites; ++s) {
    if (used[s] <= cap_[s]) continue;
    std::vector<std::size_t> here;
    for (std::size_t hop = 0; hop < hops; ++hop)
      if (want[hop * sites + s] > 0) here.push_back(hop * sites + s);
    for (std::size_t p : here) cut[p / sites] += want[p];
    const auto cut_to = [&](std::int32_t level) {
      double total = 0;
      for (std::size_t p : here) total += std::min(want[p], level);
      return total;
    };
    std::int32_t lo = 0, hi = 0;
    for (std::size_t p : here) hi = std::max(hi, want[p]);
    while (lo < hi) {  // the largest level whose total fits
      const std::int32_t mid = lo + (hi - lo + 1) / 2;
      if (cut_to(mid) <= cap_[s]) lo = mid;
      else hi = mid - 1;
    }
    if (lo >= 1) {
      double room = cap_[s] - cut_to(lo);
      std::sort(here.begin(), here.end(), [&](std::size_t a, std::size_t b) { return want[a] > want[b]; });
      for (std::size_t p : here) {
        const bool above = want[p] > lo;
        want[p] = std::min(want[p], lo);
        if (above && room >= 1) {
          ++want[p];
          --room;
        }
      }
    } else {
      // Not even one instance each: keep the pools whose hop runs nowhere
      // else first, then those the output wants most.
      std::vector<std::uint8_t> sole(here.size());
      for (std::size_t i = 0; i < here.size(); ++i) sole[i] = hop_total(here[i] / sites) == want[here[i]];
      std::vector<std::size_t> order(here.size());
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (sole[a] != sole[b]) return sole[a] > sole[b];
        return score(instances, here[a]) > score(instances, here[b]);
      });
      double room = cap_[s];
      for (std::size_t i : order) {
        want[here[i]] = room >= 1 ? 1 : 0;
        if (room >= 1) --room;
      }
    }
    used[s] = 0;
    for (std::size_t p : here) {
      used[s] += want[p];
      cut[p / sites] -= want[p];
    }
  }
  std::vector<double> room(sites);
  for (std::size_t s = 0; s < sites; ++s) room[s] = cap_[s] - used[s];
  // Every hop at its minimum, where the output prefers among sites with room.
  for (std::size_t hop = 0; hop < hops; ++hop)
    for (std::int32_t missing = min_hop - hop_total(hop); missing > 0; --missing) {
      const std::size_t s = preferred(hop, room);
      if (s == sites) return false;
      ++want[hop * sites + s];
      --room[s];
    }
  // Then what a full site could not hold moves to the hop's other sites with
  // room (after every hop's minimum, which it must not crowd out), those
  // the output prefers first, the largest cuts first: the
  // traffic still finds capacity instead of being dropped at the full site.
  std::vector<std::size_t> spill;
  for (std::size_t hop = 0; hop < hops; ++hop)
    if (cut[hop] > 0) spill.push_back(hop);
  std::stable_sort(spill.begin(), spill.end(), [&](std::size_t a, std::size_t b) { return cut[a] > cut[b]; });
  // Sites where the hop already runs more than it now keeps come first: the
  // moved instances are running there, so moving costs no deployment.
  const auto spill_site = [&](std::size_t hop) {
    if (!running.empty())
      for (std::size_t s : hop_sites_[hop])
        if (room[s] >= 1 && want[hop * sites + s] < running[hop * sites + s] &&
            want[hop * sites + s] < static_cast<std::int32_t>(settings_.max_instances_per_pool))
          return s;
    return preferred(hop, room);
  };
  for (std::size_t hop : spill)
    for (; cut[hop] > 0; --cut[hop]) {
      const std::size_t s = spill_site(hop);
      if (s == sites) break;
      ++want[hop * sites + s];
      --room[s];
    }
  // Site minimums: more instances for the pools there, those already running first.
  for (std::size_t s = 0; s < sites; ++s) {
    double total = cap_[s] - room[s];
    for (int pass = 0; pass < 2 && total < min_[s]; ++pass)
      for (std::size_t hop = 0; hop < hops && total < min_[s]; ++hop) {
        std::int32_t& n = want[hop * sites + s];
        if (!candidate_[hop * sites + s] || (pass == 0 && n == 0)) continue;
        while (total < min_[s] && n < static_cast<std::int32_t>(settings_.max_instances_per_pool)) {
          ++n;
          ++total;
        }
      }
    if (total < min_[s]) return false;
  }
  return true;
}

Plan ActionDecoder::to_plan(const std::vector<std::int32_t>& want, std::span<const float> split_logits) const {
  const SystemModel& m = *model_;
  const PoolIndex& index = m.pool_index();
  const std::size_t sites = m.sites();
  Plan plan;
  std::vector<double> weight(sites);
  for (std::size_t c = 0; c < m.chains(); ++c)
    for (std::size_t h = 0; h < m.topology().chains[c].vnfs.size(); ++h) {
      const std::size_t hop = index.hop_number(c, h);
      double most = -kUnlimited;
      for (std::size_t s : hop_sites_[hop])
        if (want[hop * sites + s] > 0) most = std::max(most, score(split_logits, hop * sites + s));
      double total = 0;
      for (std::size_t s = 0; s < sites; ++s) {
        const std::int32_t n = want[hop * sites + s];
        weight[s] = n <= 0 ? 0.0 : split_logits.empty() ? n : std::exp(std::max(score(split_logits, hop * sites + s) - most, -50.0));
        total += weight[s];
      }
      const std::size_t first = plan.pools.size();
      for (std::size_t s = 0; s < sites; ++s)
        if (want[hop * sites + s] > 0)
          plan.pools.push_back(PoolPlan{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(h),
                                        static_cast<std::uint32_t>(s), want[hop * sites + s], weight[s] / total});
      if (plan.pools.size() == first) {
        // A hop without instances (minimum 0) still names where its traffic goes.
        plan.pools.push_back(PoolPlan{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(h),
                                      static_cast<std::uint32_t>(hop_sites_[hop].front()), 0, 1.0});
        continue;
      }
      // The shares sum to 1 exactly: the last takes what the others left.
      double others = 0;
      for (std::size_t i = first; i + 1 < plan.pools.size(); ++i) others += plan.pools[i].split;
      plan.pools.back().split = std::max(0.0, 1.0 - others);
    }
  return plan;
}

Plan ActionDecoder::decode(std::span<const float> instances, std::span<const float> split_logits,
                           const Plan* running) const {
  const std::size_t pools = candidate_.size();
  std::vector<std::int32_t> now;
  if (running) {
    now.assign(pools, 0);
    for_each_pool(*model_, *running, [&](std::size_t pool, const PoolPlan& p) { now[pool] = p.instances; });
  }
  std::vector<std::int32_t> want(pools, 0);
  const double most = settings_.max_instances_per_pool;
  for (std::size_t p = 0; p < pools && p < instances.size(); ++p) {
    if (!candidate_[p]) continue;
    const double x = instances[p];
    want[p] = std::isnan(x) || x <= 0 ? 0 : static_cast<std::int32_t>(std::min(most, std::round(x)));
  }
  if (!fit(want, instances, now)) {
    fallbacks_.fetch_add(1, std::memory_order_relaxed);
    return minimal_;
  }
  return to_plan(want, split_logits);
}

}  // namespace nfv
