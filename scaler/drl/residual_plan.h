// The DRL agent's actions as a residual on another policy's plan (the
// online policy's, ActionBase::online): each chain's instances in that plan
// are scaled by exp(kappa x s), s the mean of the chain's pools' scale
// outputs (one factor per chain: its hops carry the same traffic, and a
// factor per hop would mostly starve one of them), and the decoder makes
// the result valid. A chain whose decoded instances equal the base plan's
// keeps the base plan's pools as they are, splits included, so the all-zero
// action is the base plan exactly; a changed chain's traffic follows its
// instances.
#pragma once

#include <span>

#include "action_decoder.h"
#include "drl_layout.h"
#include "plan.h"

namespace nfv {

class ResidualPlanner {
 public:
  ResidualPlanner(const DrlLayout& layout, const ActionDecoder& decoder);
  // `running`: the plan in force (the decoder moves what full sites cannot hold there first).
  // Const: environments call it from several threads.
  Plan plan(std::span<const float> actions, const Plan& base, const Plan* running = nullptr) const;

 private:
  const DrlLayout& layout_;
  const ActionDecoder& decoder_;
};

}  // namespace nfv
