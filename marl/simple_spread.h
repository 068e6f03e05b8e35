// The modified Simple Spread of the paper's sanity experiment on a grid
// (13 x 5 by default): N agents and N landmarks on cells; each step every
// agent stays or moves one cell up, down, left or right (held at the
// border). The team's reward after a step is -sum over landmarks of the L1
// distance from the landmark to its nearest agent, so the team does best
// with one agent on each landmark. Episodes are `episode_length` steps
// (10); each starts with agents (and, unless fixed, landmarks) on random
// cells.
//
// Local rewards (the team's reward split; their sum is the team's):
//   landmark     agent i gets landmark i's term (-distance from landmark i to
//                the agent nearest to it, whoever that is);
//   first_agent  agent 0 gets the whole team reward, the others 0: only
//                consensus tells them what the team wants.
// State: every agent's then every landmark's (x, y), scaled to [0, 1].
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "marl_environment.h"

namespace nfv {

enum class RewardSplit { landmark, first_agent };
// "landmark" | "first_agent"; throws std::invalid_argument naming `option`.
RewardSplit parse_reward_split(const std::string& option, const std::string& text);
const char* to_string(RewardSplit split);

struct SimpleSpreadSettings {
  std::size_t agents = 3;
  std::size_t width = 13, height = 5;
  std::size_t episode_length = 10;
  std::size_t copies = 16;            // episodes stepped together
  bool fixed_landmarks = false;       // true: drawn once from the seed, kept for every episode
  RewardSplit split = RewardSplit::landmark;
};

class SimpleSpread : public MarlEnvironment {
 public:
  static constexpr std::size_t kActions = 5;  // stay, up, down, left, right
  // Throws std::invalid_argument naming the field of a bad setting.
  SimpleSpread(SimpleSpreadSettings settings, std::uint64_t seed);

  std::size_t agents() const override { return settings_.agents; }
  std::size_t actions() const override { return kActions; }
  std::size_t state_size() const override { return 4 * settings_.agents; }
  std::size_t copies() const override { return settings_.copies; }
  std::size_t episode_length() const override { return settings_.episode_length; }
  void reset(std::span<float> states) override;
  void step(std::span<const std::int64_t> actions, std::span<float> states, std::span<float> rewards) override;

 private:
  struct Cell {
    std::int64_t x = 0, y = 0;
  };
  Cell random_cell();
  void write_state(std::size_t copy, std::span<float> states) const;

  SimpleSpreadSettings settings_;
  std::mt19937_64 random_;
  std::vector<Cell> agents_, landmarks_;  // [copies x agents], [copies x landmarks]
  std::vector<Cell> fixed_;               // the landmarks when fixed
};

}  // namespace nfv
