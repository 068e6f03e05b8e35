#include "residual_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

namespace nfv {

ResidualPlanner::ResidualPlanner(const DrlLayout& layout, const ActionDecoder& decoder)
    : layout_(layout), decoder_(decoder) {}

Plan ResidualPlanner::plan(std::span<const float> actions, const Plan& base, const Plan* running) const {
  if (actions.size() != layout_.actions()) throw std::invalid_argument("residual plan: actions of the wrong size");
  std::vector<double> factor(layout_.chains());
  std::vector<float> instances(decoder_.pools(), 0.0F);
  const std::vector<std::size_t>& begin = layout_.chain_begin();
  for (std::size_t c = 0; c < layout_.chains(); ++c) {
    double sum = 0;
    for (std::size_t k = begin[c]; k < begin[c + 1]; ++k) sum += std::clamp(actions[2 * k], -1.0F, 1.0F);
    const std::size_t pools = begin[c + 1] - begin[c];
    factor[c] = pools > 0 ? std::exp(layout_.scale().kappa * sum / static_cast<double>(pools)) : 1.0;
  }
  const PoolIndex& index = layout_.model().pool_index();
  for (const PoolPlan& p : base.pools)
    if (p.chain < factor.size()) instances[index(p.chain, p.hop, p.site)] = static_cast<float>(p.instances * factor[p.chain]);
  Plan decoded = decoder_.decode(instances, {}, running);

  // Per chain, its pools with instances: (hop, site) -> instances.
  using Pools = std::map<std::pair<std::uint32_t, std::uint32_t>, std::int32_t>;
  std::vector<Pools> want(layout_.chains()), got(layout_.chains());
  for (const PoolPlan& p : base.pools)
    if (p.instances > 0 && p.chain < want.size()) want[p.chain][{p.hop, p.site}] = p.instances;
  for (const PoolPlan& p : decoded.pools)
    if (p.instances > 0) got[p.chain][{p.hop, p.site}] = p.instances;
  Plan out;
  out.pools.reserve(decoded.pools.size());
  for (std::size_t c = 0; c < layout_.chains(); ++c) {
    const Plan& from = want[c] == got[c] ? base : decoded;
    for (const PoolPlan& p : from.pools)
      if (p.chain == c) out.pools.push_back(p);
  }
  return out;
}

}  // namespace nfv
