// What the decentralized actor-critic learns on: a batch of copies of a
// cooperative multi-agent game stepped together. The critics see the
// global state; each agent's actor sees its own observation of it (by
// default the whole state) and picks one of `actions()` discrete actions;
// each agent gets its own local reward, and the team's reward is their sum
// (the agents maximise the average, which is the sum over N). No LibTorch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace nfv {

class MarlEnvironment;

// The numbers agents are made for: what a checkpoint must match.
struct MarlShape {
  std::size_t agents = 0, actions = 0, state_size = 0, observation_size = 0;
  std::int64_t preferred_action = -1;
  static MarlShape of(const MarlEnvironment& environment);
};

class MarlEnvironment {
 public:
  virtual ~MarlEnvironment() = default;
  virtual std::size_t agents() const = 0;
  virtual std::size_t actions() const = 0;        // per agent
  virtual std::size_t state_size() const = 0;
  virtual std::size_t copies() const = 0;
  virtual std::size_t episode_length() const = 0; // steps between resets
  // Starts every copy afresh: states [copies x state_size].
  virtual void reset(std::span<float> states) = 0;
  // Joint actions [copies x agents] -> next states [copies x state_size]
  // and local rewards [copies x agents].
  virtual void step(std::span<const std::int64_t> actions, std::span<float> states, std::span<float> rewards) = 0;

  // What each agent's actor reads: observations [rows x agents x
  // observation_size] of states [rows x state_size], any number of rows.
  // A decentralized game gives each agent its own part of the state and
  // what its neighbours tell it; the default is the whole state for all.
  virtual std::size_t observation_size() const { return state_size(); }
  // An action the agents' policies start out favouring (MarlSettings::
  // prior_logit), e.g. the one that keeps a known-good plan; -1: none.
  virtual std::int64_t preferred_action() const { return -1; }
  virtual void observe(std::span<const float> states, std::span<float> observations) const {
    const std::size_t s = state_size(), n = agents(), rows = states.size() / s;
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t i = 0; i < n; ++i)
        std::copy_n(states.begin() + static_cast<std::ptrdiff_t>(r * s), s,
                    observations.begin() + static_cast<std::ptrdiff_t>((r * n + i) * s));
  }
};

inline MarlShape MarlShape::of(const MarlEnvironment& e) {
  return {e.agents(), e.actions(), e.state_size(), e.observation_size(), e.preferred_action()};
}

}  // namespace nfv
