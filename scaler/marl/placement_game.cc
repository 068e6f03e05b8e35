#include "placement_game.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace nfv {

namespace {

std::vector<ScalerEnvironment> make_copies(const SiteLayout& layout, std::shared_ptr<const ArrivalSchedule> arrivals,
                                           const EnvironmentSettings& environment, const Plan& initial_plan,
                                           const PlacementGameSettings& settings) {
  if (settings.copies == 0) throw std::invalid_argument("placement game: copies: expected at least 1");
  if (settings.episode_slots == 0) throw std::invalid_argument("placement game: episode_slots: expected at least 1");
  if (!(settings.cost_unit > 0)) throw std::invalid_argument("placement game: cost_unit: expected a positive number");
  if (arrivals->slots() < settings.episode_slots + 1)
    throw std::invalid_argument("placement game: " + std::to_string(arrivals->slots()) +
                                " training slots, an episode needs " + std::to_string(settings.episode_slots + 1));
  return copies(settings.copies, ScalerEnvironment(layout.shared_model(), std::move(arrivals), initial_plan, environment));
}

}  // namespace

PlacementGame::PlacementGame(std::shared_ptr<const SiteLayout> layout, std::shared_ptr<const ArrivalSchedule> arrivals,
                             const EnvironmentSettings& environment, const Plan& initial_plan,
                             PlacementGameSettings settings)
    : layout_(std::move(layout)),
      settings_(settings),
      envs_(make_copies(*layout_, std::move(arrivals), environment, initial_plan, settings), settings.threads),
      random_(settings.seed),
      plans_(settings.copies) {}

void PlacementGame::write_states(std::span<float> states) {
  const std::size_t S = state_size();
  if (states.size() != copies() * S) throw std::invalid_argument("placement game: a state buffer of the wrong size");
  envs_.for_each([&](std::size_t k) {
    layout_->state(envs_[k].observation(), envs_[k].forecast(), states.subspan(k * S, S));
  });
}

void PlacementGame::reset(std::span<float> states) {
  std::vector<EpisodeSpec> episodes(copies());
  for (EpisodeSpec& e : episodes) {
    e.seed = random_();
    e.start_slot = std::nullopt;  // drawn from the episode's seed
    e.episode_slots = settings_.episode_slots + 1;
  }
  envs_.reset(episodes);
  // The first slot runs the base plan: the agents take over a running system.
  const std::vector<std::int64_t> base(agents(), layout_->base_action());
  envs_.for_each([&](std::size_t k) {
    plans_[k] = layout_->decode(base, envs_[k].observation(), envs_[k].forecast(), &envs_[k].observation().plan);
  });
  envs_.step(plans_);
  episode_cost_ = {};
  slots_stepped_ = 0;
  write_states(states);
}

void PlacementGame::step(std::span<const std::int64_t> actions, std::span<float> states, std::span<float> rewards) {
  const std::size_t N = agents();
  if (actions.size() != copies() * N || rewards.size() != copies() * N)
    throw std::invalid_argument("placement game: actions or rewards of the wrong size");
  envs_.for_each([&](std::size_t k) {
    plans_[k] = layout_->decode(actions.subspan(k * N, N), envs_[k].observation(), envs_[k].forecast(),
                                &envs_[k].observation().plan);
  });
  const std::vector<StepResult> results = envs_.step(plans_);
  for (std::size_t k = 0; k < copies(); ++k) {
    const std::vector<CostBreakdown>& site_cost = envs_[k].last_slot().site_cost;
    for (std::size_t i = 0; i < N; ++i)
      rewards[k * N + i] = static_cast<float>(-site_cost[i].total() / settings_.cost_unit);
    episode_cost_ += results[k].cost;
  }
  slots_stepped_ += copies();
  write_states(states);
}

std::string PlacementGame::random_state() const {
  std::ostringstream out;
  out << random_;
  return out.str();
}

void PlacementGame::set_random_state(const std::string& text) {
  std::istringstream in(text);
  if (!(in >> random_)) throw std::invalid_argument("placement game: an unreadable generator state");
}

}  // namespace nfv
