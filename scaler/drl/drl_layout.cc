#include "drl_layout.h"

#include <algorithm>
#include <utility>
#include <cmath>
#include <stdexcept>
#include <string>

namespace nfv {

const char* action_base_name(ActionBase base) { return base == ActionBase::online ? "online" : "forecast"; }

ActionBase parse_action_base(const std::string& what, const std::string& text) {
  if (text == "forecast") return ActionBase::forecast;
  if (text == "online") return ActionBase::online;
  throw std::invalid_argument(what + ": expected forecast or online, got '" + text + "'");
}

DrlLayout::DrlLayout(std::shared_ptr<const SystemModel> model, const Featurizer& featurizer, ActionScale scale,
                     const std::vector<std::uint8_t>& pools)
    : model_(std::move(model)), scale_(scale), chains_(model_->chains()),
      pool_features_(featurizer.pool_features()), global_features_(featurizer.global_features()) {
  if (!(scale.kappa > 0) || !(scale.logit_range > 0) || !(scale.need_floor >= 0) || !(scale.headroom > 0))
    throw std::invalid_argument("DRL action scale: kappa, logit_range and headroom must be > 0, need_floor >= 0");
  const PoolIndex& index = model_->pool_index();
  const std::vector<std::uint8_t>& candidate = featurizer.candidate();
  if (candidate.size() != index.pools() || (!pools.empty() && pools.size() != index.pools()))
    throw std::invalid_argument("DRL layout: the featurizer or the pool mask is for another system");
  // PoolIndex order is hop number major, so each hop's candidates are contiguous.
  group_begin_.assign(index.hops() + 1, 0);
  for (std::size_t c = 0; c < chains_; ++c) {
    chain_begin_.push_back(pool_.size());
    for (std::size_t h = 0; h < model_->topology().chains[c].vnfs.size(); ++h) {
      const std::size_t g = index.hop_number(c, h);
      group_begin_[g] = pool_.size();
      // The candidate sites nearest the chain's route (the smallest detour), at most sites_per_hop of them.
      const Chain& route = model_->topology().chains[c];
      std::vector<std::pair<double, std::size_t>> near;
      for (std::size_t s = 0; s < index.sites(); ++s)
        if (candidate[index(c, h, s)] && (pools.empty() || pools[index(c, h, s)]))
          near.emplace_back(model_->route_delay_ms(route.ingress, s) + model_->route_delay_ms(s, route.egress), s);
      std::sort(near.begin(), near.end());
      if (scale_.sites_per_hop > 0 && near.size() > scale_.sites_per_hop) near.resize(scale_.sites_per_hop);
      std::vector<std::size_t> sites;
      for (const auto& [detour, s] : near) sites.push_back(s);
      std::sort(sites.begin(), sites.end());
      for (std::size_t s : sites) {
        const std::size_t p = index(c, h, s);
        pool_.push_back(p);
        chain_.push_back(static_cast<std::int64_t>(c));
        group_.push_back(g);
        service_.push_back(model_->service_rate_pps(g));
      }
      group_begin_[g + 1] = pool_.size();
      // The prior: the cheapest candidate site, the shortest detour among equals.
      std::size_t best = group_begin_[g];
      auto key = [&](std::size_t k) {
        const std::size_t site = pool_[k] % index.sites();
        const Chain& chain = model_->topology().chains[c];
        return std::make_pair(model_->topology().sites[site].operating_price,
                              model_->route_delay_ms(chain.ingress, site) + model_->route_delay_ms(site, chain.egress));
      };
      for (std::size_t k = group_begin_[g]; k < pool_.size(); ++k)
        if (key(k) < key(best)) best = k;
      prior_.resize(pool_.size(), 0.0);
      if (best < pool_.size()) prior_[best] = 1.0;
    }
  }
  chain_begin_.push_back(pool_.size());
  prior_.resize(pool_.size(), 0.0);
}

void DrlLayout::gather(std::span<const float> all_rows, std::span<float> rows) const {
  const std::size_t f = pool_features_;
  if (all_rows.size() != model_->pool_index().pools() * f || rows.size() != pools() * f)
    throw std::invalid_argument("DRL layout: feature rows of the wrong size");
  for (std::size_t k = 0; k < pools(); ++k)
    std::copy_n(all_rows.begin() + static_cast<std::ptrdiff_t>(pool_[k] * f), f,
                rows.begin() + static_cast<std::ptrdiff_t>(k * f));
}

double DrlLayout::planned_rate(std::size_t chain, const Observation& observation, const Forecast& forecast) {
  if (forecast.chains > chain && forecast.horizon > 0) return std::max(0.0, forecast.mean(chain, 0));
  return chain < observation.arrival_pps.size() ? observation.arrival_pps[chain] : 0.0;
}

double DrlLayout::need(std::size_t k, const Observation& observation, const Forecast& forecast) const {
  return scale_.headroom * planned_rate(static_cast<std::size_t>(chain_[k]), observation, forecast) / service_[k] +
         scale_.need_floor;
}

void DrlLayout::to_decoder(std::span<const float> actions, const Observation& observation, const Forecast& forecast,
                           std::span<float> instances, std::span<float> split_logits) const {
  const std::size_t all = model_->pool_index().pools();
  if (actions.size() != this->actions() || instances.size() != all || split_logits.size() != all)
    throw std::invalid_argument("DRL layout: actions or decoder inputs of the wrong size");
  std::fill(instances.begin(), instances.end(), 0.0F);
  std::fill(split_logits.begin(), split_logits.end(), 0.0F);
  for (std::size_t g = 0; g + 1 < group_begin_.size(); ++g) {
    const std::size_t begin = group_begin_[g], end = group_begin_[g + 1];
    if (begin == end) continue;
    double top = -1e30, sum = 0;
    for (std::size_t k = begin; k < end; ++k) top = std::max(top, logit(k, actions[2 * k + 1]));
    for (std::size_t k = begin; k < end; ++k) sum += std::exp(logit(k, actions[2 * k + 1]) - top);
    std::size_t preferred = begin;
    for (std::size_t k = begin; k < end; ++k) {
      const double logit = this->logit(k, actions[2 * k + 1]);
      const double share = std::exp(logit - top) / sum;
      const double a = std::clamp(static_cast<double>(actions[2 * k]), -1.0, 1.0);
      instances[pool_[k]] = static_cast<float>(need(k, observation, forecast) * share * std::exp(scale_.kappa * a));
      split_logits[pool_[k]] = static_cast<float>(logit);
      if (logit > this->logit(preferred, actions[2 * preferred + 1])) preferred = k;
    }
    // The hop's one instance stays at its preferred pool whatever the scale: a
    // small chain rounding to nothing would otherwise jump to whichever site
    // the decoder's repair picks, paying a deployment each time.
    instances[pool_[preferred]] = std::max(instances[pool_[preferred]], 1.0F);
  }
}

void DrlLayout::from_plan(const Plan& plan, const Observation& observation, const Forecast& forecast,
                          std::span<float> actions) const {
  if (actions.size() != this->actions()) throw std::invalid_argument("DRL layout: actions of the wrong size");
  const PoolIndex& index = model_->pool_index();
  std::vector<double> n(index.pools(), 0.0), split(index.pools(), 0.0);
  for (const PoolPlan& pool : plan.pools) {
    const std::size_t p = index(pool.chain, pool.hop, pool.site);
    n[p] = pool.instances;
    split[p] = pool.split;
  }
  constexpr double kTiny = 1e-6;
  for (std::size_t g = 0; g + 1 < group_begin_.size(); ++g) {
    const std::size_t begin = group_begin_[g], end = group_begin_[g + 1];
    double top = 0;  // the largest log share among the candidates; logits are relative to it
    bool any = false;
    for (std::size_t k = begin; k < end; ++k)
      if (split[pool_[k]] > 0) {
        const double l = std::log(split[pool_[k]]);
        top = any ? std::max(top, l) : l;
        any = true;
      }
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t p = pool_[k];
      // Logits relative to the largest share's, which sits at the top of the range.
      const double wanted = split[p] > 0 ? (std::log(split[p]) - top) / scale_.logit_range + 1.0 : -2.0;
      actions[2 * k + 1] = static_cast<float>(std::clamp(wanted - prior_[k], -1.0, 1.0));
    }
    // The shares those logits give, so that the scale undoes them exactly.
    double top_logit = -1e30, sum = 0;
    for (std::size_t k = begin; k < end; ++k) top_logit = std::max(top_logit, logit(k, actions[2 * k + 1]));
    for (std::size_t k = begin; k < end; ++k) sum += std::exp(logit(k, actions[2 * k + 1]) - top_logit);
    for (std::size_t k = begin; k < end; ++k) {
      const double share = std::exp(logit(k, actions[2 * k + 1]) - top_logit) / sum;
      const double target = n[pool_[k]] > 0 ? n[pool_[k]] : 0.25;  // an empty pool: below rounding's half
      const double a = std::log(target / std::max(need(k, observation, forecast) * share, kTiny)) / scale_.kappa;
      actions[2 * k] = static_cast<float>(std::clamp(a, -1.0, 1.0));
    }
  }
}

}  // namespace nfv
