// A repeated one-shot cooperative matrix game for two agents: both pick an
// action, the payoff table gives the team's reward, and `shares` split it
// into local rewards (agent i gets shares[i] x payoff; shares {2, 0} make
// agent 1 learn only through consensus). One step per episode; the state
// is a constant.
#pragma once

#include <vector>

#include "marl_environment.h"

namespace nfv {

class MatrixGame : public MarlEnvironment {
 public:
  // payoff: actions x actions, row = agent 0's action. Throws
  // std::invalid_argument naming the field for a table that is not square
  // or shares that are not two.
  MatrixGame(std::vector<std::vector<double>> payoff, std::vector<double> shares, std::size_t copies);

  std::size_t agents() const override { return 2; }
  std::size_t actions() const override { return payoff_.size(); }
  std::size_t state_size() const override { return 1; }
  std::size_t copies() const override { return copies_; }
  std::size_t episode_length() const override { return 1; }
  void reset(std::span<float> states) override;
  void step(std::span<const std::int64_t> actions, std::span<float> states, std::span<float> rewards) override;

 private:
  std::vector<std::vector<double>> payoff_;
  std::vector<double> shares_;
  std::size_t copies_;
};

}  // namespace nfv
