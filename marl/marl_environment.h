// What the decentralized actor-critic learns on: a batch of copies of a
// cooperative multi-agent game stepped together. Every agent sees the
// global state and picks one of `actions()` discrete actions; each gets
// its own local reward, and the team's reward is their sum (the agents
// maximise the average, which is the sum over N). No LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace nfv {

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
};

}  // namespace nfv
