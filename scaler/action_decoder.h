// A learning policy's output -> a valid Plan, whatever the output: per pool
// (PoolIndex), the instances it wants (any float: rounded; negative, NaN
// read as 0; +inf and anything above the pool limit as the limit) and a
// preference for the hop's traffic (split logits: a softmax over the hop's
// pools that run instances). The plan only uses the sites where each hop
// meets its chain's SLA (sla_sites), keeps every hop at its minimum, every
// site within its capacity and limits. decode() never throws: what cannot
// be repaired (e.g. the sites a hop may use are full) falls back, for the
// whole plan, to the minimal plan found at construction, and is counted.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "plan.h"
#include "site_limits.h"
#include "system_model.h"

namespace nfv {

struct DecoderSettings {
  std::uint32_t min_instances_per_hop = 1;  // over the hop's sites
  std::uint32_t max_instances_per_pool = 64;
  SiteLimits limits;  // the operator's per-site limits, as the slot loop applies them
  // Per pool (PoolIndex), 1 where plans may run it, e.g. the pools the
  // pods have (plan_pools); empty: every pool within its chain's SLA.
  std::vector<std::uint8_t> pools;
};

// Per pool (PoolIndex), 1 where `plan` has the pool (with or without instances).
std::vector<std::uint8_t> plan_pools(const SystemModel& model, const Plan& plan);

class ActionDecoder {
 public:
  // Throws std::invalid_argument when no plan meets the settings (a site
  // minimum above its capacity or with no pool to hold it, too little room
  // for every hop's minimum).
  ActionDecoder(std::shared_ptr<const SystemModel> model, DecoderSettings settings);

  std::size_t pools() const { return candidate_.size(); }
  const std::vector<std::uint8_t>& candidate() const { return candidate_; }
  // `split_logits` empty: every hop's traffic follows its instances.
  // What a full site cannot hold moves to the hop's other sites with room:
  // first where `running` (the plan in force, when given) has instances
  // to spare, then where the output prefers.
  Plan decode(std::span<const float> instances, std::span<const float> split_logits = {},
              const Plan* running = nullptr) const;
  // The minimal plan: every hop's minimum, the site minimums.
  const Plan& minimal_plan() const { return minimal_; }
  // decode() calls that fell back to the minimal plan.
  std::uint64_t fallbacks() const { return fallbacks_.load(std::memory_order_relaxed); }

 private:
  // Makes `want` fit the site capacities and minimums; false when it cannot.
  bool fit(std::vector<std::int32_t>& want, std::span<const float> instances,
           std::span<const std::int32_t> running = {}) const;
  Plan to_plan(const std::vector<std::int32_t>& want, std::span<const float> split_logits) const;

  std::shared_ptr<const SystemModel> model_;
  DecoderSettings settings_;
  std::vector<std::uint8_t> candidate_;     // per pool
  std::vector<double> cap_, min_;           // per site; cap 0 = unlimited (infinity here)
  std::vector<std::vector<std::size_t>> hop_sites_;  // per hop number: candidate sites
  Plan minimal_;
  mutable std::atomic<std::uint64_t> fallbacks_{0};
};

}  // namespace nfv
