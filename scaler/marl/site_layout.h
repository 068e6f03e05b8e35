// How the MARL placement's per-site agents see the system and act on it
// (docs/marl.md, "Placement"). One agent per site.
//
// Seeing: the global state the critics read is every site's features (in
// site order) and the system's global features (time of day and week,
// load: the featurizer's). A site's features: the base plan's instances
// there (log), the instances it runs (log), its pools' utilisation, the
// share of their offered traffic they did not serve, their queue fill, the
// room left at the site, its operating and deployment prices (relative to
// the mean), and the traffic entering the system there (instances' worth,
// log). A site's actor reads its own features, the mean of its graph
// neighbours' (what they send it each slot) and the global features.
//
// Acting: a site's action is one of scale_levels x take_levels. Its pools
// (the DRL layout's candidate pools at the site) ask for the base plan's
// instances x exp(kappa x scale), and their preference for their hops'
// traffic moves by `take` (the DRL layout's split action b, so a site that
// takes more runs more of the hop's instances). All-zero actions decode to
// the DRL layout's base plan: the forecast with headroom at the cheapest
// site within the SLA. The sites' actions together decode, through the one
// ActionDecoder, into one valid plan. No LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "action_decoder.h"
#include "mixing_matrix.h"
#include "drl_layout.h"
#include "featurizer.h"
#include "plan.h"
#include "system_model.h"

namespace nfv {

struct SiteLayoutSettings {
  std::vector<double> scale_levels{-0.3, -0.15, 0.0, 0.15, 0.3};  // in units of kappa (ln 4)
  std::vector<double> take_levels{-0.5, 0.0, 0.5};
  std::size_t horizon = 3;        // forecast steps the base plan and the features read
  double headroom = 1.1;          // the base plan's instances per instance of forecast need
  std::size_t sites_per_hop = 4;  // candidate sites per hop (DRL layout)
  std::uint32_t max_instances_per_pool = 64;
  // Who talks to whom: "topology" (the WAN links), or what
  // MixingMatrix::parse takes ("ring", "complete", "0-1,1-2").
  std::string graph = "topology";
  std::string forecast = "ewma:alpha=0.5";  // what the agents trained with; serve with the same
};

// Throws std::invalid_argument naming the first bad field.
void validate(const SiteLayoutSettings& settings);
// As key=value lines, and back (the checkpoint directory keeps them); parse
// throws std::invalid_argument naming the key or line that is wrong.
std::string to_text(const SiteLayoutSettings& settings);
SiteLayoutSettings parse_site_layout(const std::string& text);

class SiteLayout {
 public:
  static constexpr std::size_t kSiteFeatures = 9;

  // `neighbours[i]`: the sites agent i hears from (the communication
  // graph). `pools`: per PoolIndex pool, 1 where plans may run it (empty:
  // all within the SLA). Throws std::invalid_argument on a neighbour list of
  // another size or bad settings.
  SiteLayout(std::shared_ptr<const SystemModel> model, const TraceMapping& mapping, SiteLayoutSettings settings,
             std::vector<std::vector<std::size_t>> neighbours, const std::vector<std::uint8_t>& pools = {});

  std::size_t sites() const { return sites_; }
  std::size_t actions() const { return settings_.scale_levels.size() * settings_.take_levels.size(); }
  // The action nearest to (scale 0, take 0): every site's, the base plan.
  std::int64_t base_action() const { return base_action_; }
  std::size_t global_features() const { return featurizer_.global_features(); }
  std::size_t state_size() const { return sites_ * kSiteFeatures + global_features(); }
  std::size_t observation_size() const { return 2 * kSiteFeatures + global_features(); }
  const SiteLayoutSettings& settings() const { return settings_; }
  const SystemModel& model() const { return *model_; }
  std::shared_ptr<const SystemModel> shared_model() const { return model_; }
  const std::vector<std::vector<std::size_t>>& neighbours() const { return neighbours_; }
  // What the sites tell their neighbours each slot: their features, as float32.
  std::uint64_t message_bytes_per_slot() const;

  // The global state for the decision at observation.slot.
  void state(const Observation& observation, const Forecast& forecast, std::span<float> out) const;
  // States [rows x state_size] -> observations [rows x sites x observation_size].
  void observe(std::span<const float> states, std::span<float> observations) const;
  // Every site's action [sites] -> a valid plan; `running`: the plan in force.
  Plan decode(std::span<const std::int64_t> actions, const Observation& observation, const Forecast& forecast,
              const Plan* running) const;
  // A site's action as its two numbers, for the journal.
  double scale_of(std::int64_t action) const;
  double take_of(std::int64_t action) const;

 private:
  std::shared_ptr<const SystemModel> model_;
  SiteLayoutSettings settings_;
  std::size_t sites_;
  std::vector<std::vector<std::size_t>> neighbours_;
  Featurizer featurizer_;
  DrlLayout layout_;
  ActionDecoder decoder_;
  std::int64_t base_action_ = 0;
  std::vector<std::size_t> pool_site_;  // per candidate pool of the DRL layout
  std::vector<double> operating_, deployment_;  // per site, relative to the mean
};

// The sites' communication graph as `spec` names it (SiteLayoutSettings::graph).
MixingMatrix site_graph(const std::string& spec, const Topology& topology);
// Each site's neighbours in it.
std::vector<std::vector<std::size_t>> neighbour_lists(const MixingMatrix& graph);

}  // namespace nfv
