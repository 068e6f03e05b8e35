#include "marl_policy.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nfv {

MarlPolicy::MarlPolicy(std::shared_ptr<const SiteLayout> layout, std::shared_ptr<const DecentralizedActorCritic> agents)
    : layout_(std::move(layout)), agents_(std::move(agents)) {
  if (agents_ && (agents_->agents() != layout_->sites() || agents_->actions() != layout_->actions() ||
                  agents_->observation_size() != layout_->observation_size()))
    throw std::invalid_argument("marl: agents made for another system (" + std::to_string(agents_->agents()) + " agents, " +
                                std::to_string(agents_->actions()) + " actions; here " + std::to_string(layout_->sites()) +
                                " sites, " + std::to_string(layout_->actions()) + " actions)");
  state_.resize(layout_->state_size());
  observations_.resize(layout_->sites() * layout_->observation_size());
}

Plan MarlPolicy::decide(const Observation& observation, const Forecast& forecast) {
  if (agents_) {
    layout_->state(observation, forecast, state_);
    layout_->observe(state_, observations_);
    actions_ = agents_->greedy(observations_);
  } else {
    actions_.assign(layout_->sites(), layout_->base_action());
  }
  std::ostringstream why;
  why << (agents_ ? "site actions (scale, take):" : "base plan:");
  for (std::size_t s = 0; s < actions_.size(); ++s)
    if (actions_[s] != layout_->base_action())
      why << ' ' << layout_->model().topology().sites[s].name << " (" << layout_->scale_of(actions_[s]) << ", "
          << layout_->take_of(actions_[s]) << ")";
  explanation_ = why.str();
  return layout_->decode(actions_, observation, forecast, &observation.plan);
}

MarlCheckpointFiles marl_checkpoint_files(const std::string& directory) {
  const std::filesystem::path d(directory);
  return {(d / "layout.conf").string(), (d / "learner.pt").string(), (d / "learner.best.pt").string(),
          (d / "training.state").string(), (d / "curve.csv").string()};
}

std::unique_ptr<MarlPolicy> load_marl_policy(const std::string& directory, const PolicyContext& context, bool best,
                                             const std::string& device, const std::vector<std::uint8_t>& pools) {
  const MarlCheckpointFiles files = marl_checkpoint_files(directory);
  std::ifstream in(files.layout);
  if (!in) throw std::runtime_error(files.layout + ": cannot read (is " + directory + " a nfv-train marl directory?)");
  std::stringstream text;
  text << in.rdbuf();
  SiteLayoutSettings settings;
  try {
    settings = parse_site_layout(text.str());
  } catch (const std::exception& e) {
    throw std::runtime_error(files.layout + ": " + e.what());
  }
  const MixingMatrix graph = site_graph(settings.graph, context.model->topology());
  auto layout = std::make_shared<const SiteLayout>(context.model, context.mapping, settings, neighbour_lists(graph), pools);
  const MarlShape shape{layout->sites(), layout->actions(), layout->state_size(), layout->observation_size()};
  std::shared_ptr<const DecentralizedActorCritic> agents =
      DecentralizedActorCritic::load(best ? files.best : files.learner, graph, shape, device);
  return std::make_unique<MarlPolicy>(std::move(layout), std::move(agents));
}

namespace {

std::unique_ptr<Policy> make_marl(const ParamReader& params, const PolicyContext& context) {
  const std::string directory = params.text("checkpoints", "");
  if (directory.empty()) throw std::invalid_argument("marl: checkpoints: the directory nfv-train marl wrote is required");
  const std::string which = params.text("which", "last");
  if (which != "last" && which != "best") throw std::invalid_argument("marl: which: expected last or best, got '" + which + "'");
  const std::string candidates = params.text("candidates", "sla");
  if (candidates != "sla" && candidates != "plan")
    throw std::invalid_argument("marl: candidates: expected sla or plan, got '" + candidates + "'");
  std::vector<std::uint8_t> pools;
  if (candidates == "plan") pools = plan_pools(*context.model, placed_plan(params, context.model->topology()));
  return load_marl_policy(directory, context, which == "best", params.text("device", "cpu"), pools);
}

const PolicyRegistration kMarl{
    "marl",
    "the decentralized placement agents, one per site (docs/marl.md): checkpoints=DIR (nfv-train marl's output), "
    "which=last|best, candidates=sla|plan (plan: only the pools of the starting plan), device=cpu|cuda",
    with_placement({"checkpoints", "which", "candidates", "device"}), make_marl};

}  // namespace

}  // namespace nfv
