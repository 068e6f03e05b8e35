// `threshold`: Kubernetes HPA semantics per instance pool (policy.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "policy.h"

namespace nfv {
namespace {

class ThresholdPolicy final : public Policy {
 public:
  ThresholdPolicy(const Topology& topology, ThresholdSettings settings)
      : settings_(settings), index_(topology), window_(std::max<std::size_t>(settings.scale_down_window_slots, 1)) {
    if (!(settings.target_utilisation > 0)) throw std::invalid_argument("threshold: target: expected > 0");
    if (!(settings.tolerance >= 0)) throw std::invalid_argument("threshold: tolerance: expected >= 0");
    if (settings.min_instances > settings.max_instances)
      throw std::invalid_argument("threshold: min (" + std::to_string(settings.min_instances) + ") above max (" +
                                  std::to_string(settings.max_instances) + ")");
    for (const Chain& chain : topology.chains)
      for (std::size_t vnf : chain.vnfs) service_rate_pps_.push_back(topology.vnf_types[vnf].service_rate_pps);
    for (const Site& site : topology.sites) capacity_.push_back(site.instance_capacity);
    offered_pps_.assign(index_.pools(), 0.0);
    utilisation_.assign(index_.pools(), 0.0);
    history_.assign(index_.pools() * window_, Recommendation{});
    site_used_.assign(capacity_.size(), 0);
  }

  std::string name() const override { return "threshold"; }

  void reset() override {
    std::fill(history_.begin(), history_.end(), Recommendation{});
    decisions_ = 0;
  }

  Plan decide(const Observation& observation, const Forecast&) override {
    std::fill(offered_pps_.begin(), offered_pps_.end(), 0.0);
    std::fill(utilisation_.begin(), utilisation_.end(), 0.0);
    for (const PoolLoad& load : observation.pools) {
      const std::size_t at = index_(load.chain, load.hop, load.site);
      offered_pps_[at] = load.offered_pps;
      utilisation_[at] = load.utilisation;
    }
    Plan plan = observation.plan;
    std::vector<std::int32_t> wanted(plan.pools.size());
    std::fill(site_used_.begin(), site_used_.end(), 0);
    // Shrinking or keeping always fits; growth is granted afterwards from
    // what the sites have left, so no pool loses instances to another's growth.
    for (std::size_t i = 0; i < plan.pools.size(); ++i) {
      PoolPlan& pool = plan.pools[i];
      wanted[i] = recommend(pool);
      pool.instances = std::min(pool.instances, wanted[i]);
      site_used_[pool.site] += pool.instances;
    }
    for (std::size_t i = 0; i < plan.pools.size(); ++i) {
      PoolPlan& pool = plan.pools[i];
      if (wanted[i] <= pool.instances) continue;
      std::int64_t grant = wanted[i] - pool.instances;
      if (capacity_[pool.site] != 0) grant = std::min<std::int64_t>(grant, capacity_[pool.site] - site_used_[pool.site]);
      grant = std::max<std::int64_t>(grant, 0);
      pool.instances += static_cast<std::int32_t>(grant);
      site_used_[pool.site] += grant;
    }
    ++decisions_;
    return plan;
  }

 private:
  struct Recommendation {
    std::int32_t instances = 0;
    std::int64_t decision = -1;  // when it was made; -1 = never
  };

  // The pool's instance count for the next slot, before site capacity.
  std::int32_t recommend(const PoolPlan& pool) {
    const std::size_t at = index_(pool.chain, pool.hop, pool.site);
    const std::int32_t current = pool.instances;
    const double target = settings_.target_utilisation;
    std::int32_t desired = current;
    if (current == 0) {
      // HPA's formula has nothing to scale from: size the pool for its load.
      const double needed = offered_pps_[at] / (service_rate_pps_[index_.hop_number(pool.chain, pool.hop)] * target);
      desired = static_cast<std::int32_t>(std::min(std::ceil(needed), double(settings_.max_instances)));
    } else {
      const double ratio = utilisation_[at] / target;
      if (std::abs(ratio - 1.0) > settings_.tolerance)
        desired = static_cast<std::int32_t>(std::min(std::ceil(current * ratio), double(settings_.max_instances)));
    }
    Recommendation* ring = &history_[at * window_];
    ring[static_cast<std::size_t>(decisions_) % window_] = Recommendation{desired, decisions_};
    if (desired < current) {
      // Scale-down stabilization: the highest recommendation of the window.
      for (std::size_t k = 0; k < window_; ++k)
        if (ring[k].decision >= 0 && decisions_ - ring[k].decision < static_cast<std::int64_t>(window_))
          desired = std::max(desired, ring[k].instances);
      desired = std::min(desired, current);
    }
    desired = std::clamp(desired, current - static_cast<std::int32_t>(settings_.max_scale_down),
                         current + static_cast<std::int32_t>(settings_.max_scale_up));
    return std::clamp(desired, static_cast<std::int32_t>(settings_.min_instances),
                      static_cast<std::int32_t>(settings_.max_instances));
  }

  ThresholdSettings settings_;
  PoolIndex index_;
  std::size_t window_;
  std::vector<double> service_rate_pps_;  // per hop number
  std::vector<std::uint32_t> capacity_;   // per site; 0 = unlimited
  std::vector<double> offered_pps_;       // per pool, last slot
  std::vector<double> utilisation_;
  std::vector<Recommendation> history_;   // per pool, a ring of window_ entries
  std::vector<std::int64_t> site_used_;
  std::int64_t decisions_ = 0;
};

}  // namespace

std::unique_ptr<Policy> make_threshold_policy(const Topology& topology, ThresholdSettings settings) {
  return std::make_unique<ThresholdPolicy>(topology, settings);
}

namespace {

const PolicyRegistration kThreshold{
    "threshold",
    "Kubernetes HPA per pool: target (0.7), tolerance (0.1), window (5 slots), max_up (4), max_down (1), min (1), "
    "max (64); starts from the static placement",
    with_placement({"target", "tolerance", "window", "max_up", "max_down", "min", "max"}),
    [](const ParamReader& params, const PolicyContext& context) {
      const ThresholdSettings defaults;
      ThresholdSettings settings;
      settings.target_utilisation = params.number("target", defaults.target_utilisation);
      settings.tolerance = params.number("tolerance", defaults.tolerance);
      settings.scale_down_window_slots =
          params.count("window", static_cast<std::uint32_t>(defaults.scale_down_window_slots));
      settings.max_scale_up = params.count("max_up", defaults.max_scale_up);
      settings.max_scale_down = params.count("max_down", defaults.max_scale_down);
      settings.min_instances = params.count("min", defaults.min_instances);
      settings.max_instances = params.count("max", defaults.max_instances);
      return make_threshold_policy(context.model->topology(), settings);
    }};

}  // namespace

}  // namespace nfv
