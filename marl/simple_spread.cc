#include "simple_spread.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace nfv {

RewardSplit parse_reward_split(const std::string& option, const std::string& text) {
  if (text == "landmark") return RewardSplit::landmark;
  if (text == "first_agent") return RewardSplit::first_agent;
  throw std::invalid_argument(option + ": expected landmark or first_agent, got '" + text + "'");
}

const char* to_string(RewardSplit split) { return split == RewardSplit::first_agent ? "first_agent" : "landmark"; }

SimpleSpread::SimpleSpread(SimpleSpreadSettings settings, std::uint64_t seed) : settings_(settings), random_(seed) {
  const auto at_least = [](const char* field, std::size_t value, std::size_t least) {
    if (value < least)
      throw std::invalid_argument(std::string("simple spread: ") + field + ": expected at least " + std::to_string(least) +
                                  ", got " + std::to_string(value));
  };
  at_least("agents", settings_.agents, 1);
  at_least("width", settings_.width, 1);
  at_least("height", settings_.height, 1);
  at_least("episode_length", settings_.episode_length, 1);
  at_least("copies", settings_.copies, 1);
  agents_.resize(settings_.copies * settings_.agents);
  landmarks_.resize(agents_.size());
  for (std::size_t l = 0; settings_.fixed_landmarks && l < settings_.agents; ++l) fixed_.push_back(random_cell());
}

SimpleSpread::Cell SimpleSpread::random_cell() {
  std::uniform_int_distribution<std::int64_t> x(0, static_cast<std::int64_t>(settings_.width) - 1);
  std::uniform_int_distribution<std::int64_t> y(0, static_cast<std::int64_t>(settings_.height) - 1);
  const std::int64_t cx = x(random_);
  return {cx, y(random_)};
}

void SimpleSpread::write_state(std::size_t copy, std::span<float> states) const {
  const std::size_t n = settings_.agents;
  const float sx = settings_.width > 1 ? 1.0F / static_cast<float>(settings_.width - 1) : 0.0F;
  const float sy = settings_.height > 1 ? 1.0F / static_cast<float>(settings_.height - 1) : 0.0F;
  float* out = states.data() + copy * state_size();
  for (std::size_t i = 0; i < n; ++i) {
    const Cell& a = agents_[copy * n + i];
    const Cell& l = landmarks_[copy * n + i];
    out[2 * i] = static_cast<float>(a.x) * sx;
    out[2 * i + 1] = static_cast<float>(a.y) * sy;
    out[2 * n + 2 * i] = static_cast<float>(l.x) * sx;
    out[2 * n + 2 * i + 1] = static_cast<float>(l.y) * sy;
  }
}

void SimpleSpread::reset(std::span<float> states) {
  const std::size_t n = settings_.agents;
  for (std::size_t c = 0; c < settings_.copies; ++c) {
    for (std::size_t i = 0; i < n; ++i) agents_[c * n + i] = random_cell();
    for (std::size_t l = 0; l < n; ++l) landmarks_[c * n + l] = settings_.fixed_landmarks ? fixed_[l] : random_cell();
    write_state(c, states);
  }
}

void SimpleSpread::step(std::span<const std::int64_t> actions, std::span<float> states, std::span<float> rewards) {
  const std::size_t n = settings_.agents;
  const auto max_x = static_cast<std::int64_t>(settings_.width) - 1, max_y = static_cast<std::int64_t>(settings_.height) - 1;
  for (std::size_t c = 0; c < settings_.copies; ++c) {
    for (std::size_t i = 0; i < n; ++i) {
      Cell& a = agents_[c * n + i];
      switch (actions[c * n + i]) {
        case 1: a.y = std::min(a.y + 1, max_y); break;
        case 2: a.y = std::max<std::int64_t>(a.y - 1, 0); break;
        case 3: a.x = std::max<std::int64_t>(a.x - 1, 0); break;
        case 4: a.x = std::min(a.x + 1, max_x); break;
        default: break;  // 0: stay
      }
    }
    float team = 0;
    float* local = rewards.data() + c * n;
    std::fill(local, local + n, 0.0F);
    for (std::size_t l = 0; l < n; ++l) {
      const Cell& mark = landmarks_[c * n + l];
      std::int64_t nearest = std::numeric_limits<std::int64_t>::max();
      for (std::size_t i = 0; i < n; ++i) {
        const Cell& a = agents_[c * n + i];
        nearest = std::min(nearest, std::abs(a.x - mark.x) + std::abs(a.y - mark.y));
      }
      team -= static_cast<float>(nearest);
      if (settings_.split == RewardSplit::landmark) local[l] = -static_cast<float>(nearest);
    }
    if (settings_.split == RewardSplit::first_agent) local[0] = team;
    write_state(c, states);
  }
}

}  // namespace nfv
