// The placement problem as a cooperative game for the decentralized
// actor-critic: one agent per site (site_layout.h), K copies of the
// simulator stepped together, each episode a run of slots starting at a
// random slot of the training rows. A site's local reward is minus its share
// of the slot's cost (SlotOutcome::site_cost: its instances' operating and
// deployment cost, the WAN cost of the traffic it sends, the SLA penalty of
// the packets its pools dropped and of its part of the late ones), over
// `cost_unit`; the team's reward is minus the
// whole cost. Each episode first runs one slot under the base plan, so the
// agents start from a running system rather than paying to deploy it all.
// The same seed gives the same episodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "environment.h"
#include "marl_environment.h"
#include "site_layout.h"
#include "vector_environment.h"

namespace nfv {

struct PlacementGameSettings {
  std::size_t copies = 8;
  std::size_t episode_slots = 24;
  double cost_unit = 1;      // a reward of -1 is this much cost at one site in one slot
  std::uint64_t seed = 1;
  std::size_t threads = 0;   // helper threads stepping the copies
};

class PlacementGame final : public MarlEnvironment {
 public:
  // `environment`'s forecast setting is what the agents plan with. Throws
  // std::invalid_argument when the training rows are shorter than an
  // episode and its first slot, or the settings are bad.
  PlacementGame(std::shared_ptr<const SiteLayout> layout, std::shared_ptr<const ArrivalSchedule> arrivals,
                const EnvironmentSettings& environment, const Plan& initial_plan, PlacementGameSettings settings);

  std::size_t agents() const override { return layout_->sites(); }
  std::size_t actions() const override { return layout_->actions(); }
  std::size_t state_size() const override { return layout_->state_size(); }
  std::size_t observation_size() const override { return layout_->observation_size(); }
  std::size_t copies() const override { return envs_.size(); }
  std::size_t episode_length() const override { return settings_.episode_slots; }
  std::int64_t preferred_action() const override { return layout_->base_action(); }
  void reset(std::span<float> states) override;
  void step(std::span<const std::int64_t> actions, std::span<float> states, std::span<float> rewards) override;
  void observe(std::span<const float> states, std::span<float> observations) const override {
    layout_->observe(states, observations);
  }

  const SiteLayout& layout() const { return *layout_; }
  const PlacementGameSettings& settings() const { return settings_; }
  // The cost of the slots stepped since the last reset, over all copies.
  const CostBreakdown& episode_cost() const { return episode_cost_; }
  std::uint64_t slots_stepped() const { return slots_stepped_; }
  // The generator that draws the episodes, as text and back (to resume a run).
  std::string random_state() const;
  void set_random_state(const std::string& text);

 private:
  void write_states(std::span<float> states);

  std::shared_ptr<const SiteLayout> layout_;
  PlacementGameSettings settings_;
  VectorEnvironment envs_;
  std::mt19937_64 random_;
  std::vector<Plan> plans_;
  CostBreakdown episode_cost_;
  std::uint64_t slots_stepped_ = 0;
};

}  // namespace nfv
