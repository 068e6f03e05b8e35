// `marl`: the decentralized placement agents (docs/marl.md) as a scaler
// policy. Each slot every site's actor reads its own features, its
// neighbours' and the global ones (site_layout.h) and takes its most likely
// action; the sites' actions decode into one valid plan. Without agents
// every site takes the base action: the base plan (the reference the
// agents are measured against).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decentralized_actor_critic.h"
#include "policy.h"
#include "site_layout.h"

namespace nfv {

class MarlPolicy final : public Policy {
 public:
  MarlPolicy(std::shared_ptr<const SiteLayout> layout, std::shared_ptr<const DecentralizedActorCritic> agents);

  std::string name() const override { return "marl"; }
  Plan decide(const Observation& observation, const Forecast& forecast) override;
  void reset() override {}
  std::string explain() const override { return explanation_; }
  PolicyDetails details() const override { return details_; }
  // The last decision's action per site.
  const std::vector<std::int64_t>& actions() const { return actions_; }
  const std::shared_ptr<const SiteLayout>& layout() const { return layout_; }

 private:
  std::shared_ptr<const SiteLayout> layout_;
  std::shared_ptr<const DecentralizedActorCritic> agents_;
  std::vector<float> state_, observations_;
  std::vector<std::int64_t> actions_;
  std::string explanation_;
  PolicyDetails details_;
};

// What a training run leaves in its directory.
struct MarlCheckpointFiles {
  std::string layout;   // the site layout's settings, key=value
  std::string learner;  // every agent's networks (DecentralizedActorCritic::save)
  std::string best;     // the same, at the best validation so far
  std::string state;    // the trainer's counters, to resume
  std::string curve;    // CSV (the SVG next to it)
};
MarlCheckpointFiles marl_checkpoint_files(const std::string& directory);

// The agents saved in `directory` (its best validation when `best`) on the
// context's system. Throws std::runtime_error naming the file when it
// cannot, e.g. a system with another number of sites.
std::unique_ptr<MarlPolicy> load_marl_policy(const std::string& directory, const PolicyContext& context, bool best = false,
                                             const std::string& device = "cpu", const std::vector<std::uint8_t>& pools = {});

}  // namespace nfv
