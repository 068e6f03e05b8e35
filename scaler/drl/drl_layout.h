// How the DRL agent sees one system and acts on it. The agent works on the
// candidate pools alone (a chain's hops at the sites within its SLA, the
// `sites_per_hop` nearest its route), each a row of the featurizer's
// features, grouped by chain. Its two outputs per
// pool, both in [-1, 1], mean:
//   scale a: instances = (headroom x need + floor) x share x exp(kappa a),
//            where need is the forecast rate of the chain over the hop's
//            per-instance service rate; the floor lets an idle chain still
//            say where its one instance goes;
//   split b: the pool's preference for the hop's traffic, share = softmax
//            over the hop's candidate pools of (logit_range x (b + prior)),
//            where the prior is 1 at the hop's cheapest candidate site
//            (operating price, then detour) and 0 elsewhere.
// The hop's preferred pool (the largest share) always asks for at least one
// instance. So all-zero outputs are a plain plan: the forecast with some headroom at
// the cheapest site within the SLA. The network learns how far to move
// from it: how much headroom, and where. Acting relative to the forecast
// keeps its job the same on any trace volume and topology.
// With base online the zero action is instead the online policy's plan for
// the slot, and the agent learns a residual on it (residual_plan.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "featurizer.h"
#include "plan.h"
#include "system_model.h"

namespace nfv {

// What the agent's zero action plans: the forecast with headroom at the
// cheapest site (above), or the online policy's plan for the slot.
enum class ActionBase { forecast, online };

struct ActionScale {
  double kappa = 1.3862943611198906;  // ln 4: a in [-1, 1] spans a quarter to four times the base
  double logit_range = 4;
  double need_floor = 0.3;            // instances
  double headroom = 1.1;              // the base plan's instances per instance of forecast need
  std::size_t sites_per_hop = 4;      // candidate sites per hop: those nearest the chain's route (0: all)
  bool learn_split = false;           // false: the split follows the prior alone and b is ignored
  ActionBase base = ActionBase::forecast;
};

// "forecast" | "online" and back (std::invalid_argument naming `what` otherwise).
const char* action_base_name(ActionBase base);
ActionBase parse_action_base(const std::string& what, const std::string& text);

class DrlLayout {
 public:
  // `pools`: per PoolIndex pool, 1 where plans may run it (empty: all); the
  // candidates are the featurizer's among them.
  DrlLayout(std::shared_ptr<const SystemModel> model, const Featurizer& featurizer, ActionScale scale = {},
            const std::vector<std::uint8_t>& pools = {});

  const SystemModel& model() const { return *model_; }
  std::size_t pools() const { return pool_.size(); }  // candidate pools
  std::size_t chains() const { return chains_; }
  std::size_t pool_features() const { return pool_features_; }
  std::size_t global_features() const { return global_features_; }
  static constexpr std::size_t kActionsPerPool = 2;
  std::size_t actions() const { return pools() * kActionsPerPool; }
  // Per candidate pool: its PoolIndex pool and its chain.
  const std::vector<std::size_t>& pool() const { return pool_; }
  const std::vector<std::int64_t>& chain_of_pool() const { return chain_; }
  // A chain's candidate pools are [chain_begin()[c], chain_begin()[c + 1]).
  const std::vector<std::size_t>& chain_begin() const { return chain_begin_; }
  const ActionScale& scale() const { return scale_; }
  std::span<const float> decoder_logits(std::span<const float> split_logits) const {
    return scale_.learn_split ? split_logits : std::span<const float>{};
  }

  // The featurizer's rows for every pool -> the candidate pools' rows.
  void gather(std::span<const float> all_rows, std::span<float> rows) const;
  // The chain's rate the plan is for: the forecast's first step, else the last measured rate.
  static double planned_rate(std::size_t chain, const Observation& observation, const Forecast& forecast);
  // The agent's actions -> the decoder's inputs, per PoolIndex pool (others 0).
  // Give the decoder the split logits only when the split is learned
  // (decoder_logits): otherwise it splits by instances, so the traffic
  // follows the capacity the plan has.
  void to_decoder(std::span<const float> actions, const Observation& observation, const Forecast& forecast,
                  std::span<float> instances, std::span<float> split_logits) const;
  // The actions that decode to `plan` (as near as the ranges allow): what
  // imitation learns from another policy's plans.
  void from_plan(const Plan& plan, const Observation& observation, const Forecast& forecast,
                 std::span<float> actions) const;

 private:
  double need(std::size_t k, const Observation& observation, const Forecast& forecast) const;
  double logit(std::size_t k, float b) const {
    return scale_.logit_range * ((scale_.learn_split ? b : 0.0F) + prior_[k]);
  }

  std::shared_ptr<const SystemModel> model_;
  ActionScale scale_;
  std::size_t chains_, pool_features_, global_features_;
  std::vector<std::size_t> pool_;          // PoolIndex pool per candidate pool
  std::vector<std::int64_t> chain_;        // chain per candidate pool
  std::vector<std::size_t> chain_begin_;   // per chain + 1
  std::vector<std::size_t> group_;         // hop number per candidate pool
  std::vector<std::size_t> group_begin_;   // candidate pools of hop number g: [group_begin_[g], group_begin_[g+1])
  std::vector<double> service_;            // per candidate pool: its hop's per-instance rate
  std::vector<double> prior_;              // per candidate pool: 1 at its hop's cheapest site, else 0
};

}  // namespace nfv
