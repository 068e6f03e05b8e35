#include "featurizer.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace nfv {
namespace {

// Columns of a pool's row, in order; the forecast steps follow `arrival`.
enum PoolFeature : std::size_t {
  kArrival,  // then forecast_1 .. forecast_H
};
// After the forecasts, at offset 1 + H:
enum PoolTail : std::size_t {
  kInstances,
  kHopInstances,
  kSplit,
  kUtilisation,
  kQueue,
  kSiteRoom,
  kDroppedShare,
  kLateShare,
  kSlaMargin,  // static from here on
  kOperatingPrice,
  kDeploymentPrice,
  kHopPosition,
  kCandidate,
  kTailCount,
};
constexpr std::size_t kFirstStatic = kSlaMargin;
constexpr std::size_t kStaticCount = kTailCount - kFirstStatic;

constexpr double kMaxUtilisation = 4;  // an overloaded pool shows up to 4x

float instances_worth(double pps, double service_pps) { return static_cast<float>(std::log1p(std::max(0.0, pps) / service_pps)); }

}  // namespace

std::vector<std::uint8_t> sla_pool_mask(const SystemModel& model) {
  const PoolIndex& index = model.pool_index();
  std::vector<std::uint8_t> mask(index.pools(), 0);
  for (std::size_t c = 0; c < model.chains(); ++c)
    for (std::size_t s : model.sla_sites(c))
      for (std::size_t h = 0; h < model.topology().chains[c].vnfs.size(); ++h) mask[index(c, h, s)] = 1;
  return mask;
}

Featurizer::Featurizer(std::shared_ptr<const SystemModel> model, const TraceMapping& mapping, std::size_t horizon)
    : model_(std::move(model)), mapping_(mapping), horizon_(std::max<std::size_t>(horizon, 1)),
      pools_(model_->pool_index().pools()), candidate_(sla_pool_mask(*model_)) {
  const SystemModel& m = *model_;
  const Topology& topology = m.topology();
  pool_names_.push_back("arrival");
  for (std::size_t k = 1; k <= horizon_; ++k) pool_names_.push_back("forecast_" + std::to_string(k));
  for (const char* name : {"instances", "hop_instances", "split", "utilisation", "queue", "site_room", "dropped_share",
                           "late_share", "sla_margin", "operating_price", "deployment_price", "hop_position", "candidate"})
    pool_names_.push_back(name);
  global_names_ = {"time_of_day_sin", "time_of_day_cos", "day_of_week_sin", "day_of_week_cos",
                   "load",            "instances_used",  "dropped_share"};

  double operating = 0, deployment = 0;
  for (const Site& site : topology.sites) {
    operating += site.operating_price;
    deployment += site.deployment_price;
    capacity_.push_back(site.instance_capacity);
  }
  operating = operating > 0 ? operating / m.sites() : 1;
  deployment = deployment > 0 ? deployment / m.sites() : 1;
  const PoolIndex& index = m.pool_index();
  static_.assign(pools_ * kStaticCount, 0.0f);
  for (std::size_t c = 0; c < m.chains(); ++c) {
    const Chain& chain = topology.chains[c];
    const std::size_t hops = chain.vnfs.size();
    for (std::size_t h = 0; h < hops; ++h)
      for (std::size_t s = 0; s < m.sites(); ++s) {
        float* row = &static_[index(c, h, s) * kStaticCount];
        const double detour = m.route_delay_ms(chain.ingress, s) + m.route_delay_ms(s, chain.egress);
        const double sla = chain.sla_latency_ms > 0 ? chain.sla_latency_ms : 1;
        row[kSlaMargin - kFirstStatic] =
            static_cast<float>(std::isfinite(detour) ? std::clamp((sla - detour) / sla, -1.0, 1.0) : -1.0);
        row[kOperatingPrice - kFirstStatic] = static_cast<float>(topology.sites[s].operating_price / operating);
        row[kDeploymentPrice - kFirstStatic] = static_cast<float>(topology.sites[s].deployment_price / deployment);
        row[kHopPosition - kFirstStatic] = hops > 1 ? static_cast<float>(h) / static_cast<float>(hops - 1) : 0.0f;
        row[kCandidate - kFirstStatic] = candidate_[index(c, h, s)];
      }
  }
}

void Featurizer::featurize(const Observation& o, const Forecast& forecast, std::span<float> pool_out,
                           std::span<float> global_out) const {
  const SystemModel& m = *model_;
  const Topology& topology = m.topology();
  const PoolIndex& index = m.pool_index();
  const std::size_t width = pool_features();
  if (pool_out.size() != pools_ * width || global_out.size() != global_features())
    throw std::invalid_argument("featurize: buffers of " + std::to_string(pool_out.size()) + " and " +
                                std::to_string(global_out.size()) + " floats, expected " + std::to_string(pools_ * width) +
                                " and " + std::to_string(global_features()));
  const std::size_t tail = 1 + horizon_;
  const bool has_forecast = forecast.chains == m.chains() && forecast.horizon > 0;
  std::vector<double> site_used(m.sites(), 0.0);
  for (const PoolPlan& p : o.plan.pools) site_used[p.site] += p.instances;

  double load = 0, total_arrived = 0, total_dropped = 0;
  for (std::size_t c = 0; c < m.chains(); ++c) {
    const Chain& chain = topology.chains[c];
    const double arrival = c < o.arrival_pps.size() ? o.arrival_pps[c] : 0.0;
    const ChainTraffic traffic = c < o.chains.size() ? o.chains[c] : ChainTraffic{};
    const float dropped = traffic.arrived > 0 ? static_cast<float>(traffic.dropped / traffic.arrived) : 0.0f;
    const float late = traffic.delivered > 0 ? static_cast<float>(traffic.late / traffic.delivered) : 0.0f;
    total_arrived += traffic.arrived;
    total_dropped += traffic.dropped;
    for (std::size_t h = 0; h < chain.vnfs.size(); ++h) {
      const double service = m.service_rate_pps(index.hop_number(c, h));
      load += arrival / service;
      // The traffic columns are the hop's, the same at every site: worked
      // out in the first site's row and copied.
      float* first = &pool_out[index(c, h, 0) * width];
      first[0] = instances_worth(arrival, service);
      for (std::size_t k = 0; k < horizon_; ++k)
        first[1 + k] = has_forecast ? instances_worth(forecast.mean(c, std::min(k, forecast.horizon - 1)), service)
                                    : first[0];
      for (std::size_t s = 0; s < m.sites(); ++s) {
        float* row = &pool_out[index(c, h, s) * width];
        if (s > 0) std::copy_n(first, tail, row);
        float* t = row + tail;
        std::fill_n(t, kFirstStatic, 0.0f);
        t[kSiteRoom] = capacity_[s] > 0 ? static_cast<float>(std::clamp(1 - site_used[s] / capacity_[s], 0.0, 1.0)) : 1.0f;
        t[kDroppedShare] = dropped;
        t[kLateShare] = late;
        std::copy_n(&static_[index(c, h, s) * kStaticCount], kStaticCount, t + kFirstStatic);
      }
    }
  }
  // What the plan in force runs, and how the last slot loaded it.
  std::vector<double> hop_instances(index.hops(), 0.0);
  for (const PoolPlan& p : o.plan.pools) hop_instances[index.hop_number(p.chain, p.hop)] += p.instances;
  for (const PoolPlan& p : o.plan.pools) {
    float* t = &pool_out[index(p.chain, p.hop, p.site) * width + tail];
    t[kInstances] = static_cast<float>(std::log1p(std::max(0, p.instances)));
    t[kHopInstances] = static_cast<float>(std::log1p(hop_instances[index.hop_number(p.chain, p.hop)]));
    t[kSplit] = static_cast<float>(p.split);
  }
  const double queue = m.settings().queue_packets_per_instance;
  for (const PoolLoad& load_of : o.pools) {
    float* t = &pool_out[index(load_of.chain, load_of.hop, load_of.site) * width + tail];
    const double u = std::isfinite(load_of.utilisation) ? load_of.utilisation : kMaxUtilisation;
    t[kUtilisation] = static_cast<float>(std::clamp(u, 0.0, kMaxUtilisation));
    const double room = queue * std::max(1, load_of.instances);
    t[kQueue] = room > 0 ? static_cast<float>(std::clamp(load_of.backlog_packets / room, 0.0, 1.0)) : 0.0f;
  }

  const double t = mapping_.unix_s(o.slot);
  const double day = std::fmod(t, 86400.0) / 86400.0, week = std::fmod(t / 86400.0 + 3, 7.0) / 7.0;  // 1970-01-01 was a Thursday
  double instances = 0, capacity = 0;
  for (std::size_t s = 0; s < m.sites(); ++s) {
    instances += site_used[s];
    capacity += capacity_[s];
  }
  const double two_pi = 2 * std::numbers::pi;
  global_out[0] = static_cast<float>(std::sin(two_pi * day));
  global_out[1] = static_cast<float>(std::cos(two_pi * day));
  global_out[2] = static_cast<float>(std::sin(two_pi * week));
  global_out[3] = static_cast<float>(std::cos(two_pi * week));
  global_out[4] = static_cast<float>(std::log1p(load));
  global_out[5] = static_cast<float>(capacity > 0 ? instances / capacity : std::log1p(instances) / 10);
  global_out[6] = total_arrived > 0 ? static_cast<float>(total_dropped / total_arrived) : 0.0f;
}

}  // namespace nfv
