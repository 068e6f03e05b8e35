#include "matrix_game.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nfv {

MatrixGame::MatrixGame(std::vector<std::vector<double>> payoff, std::vector<double> shares, std::size_t copies)
    : payoff_(std::move(payoff)), shares_(std::move(shares)), copies_(copies) {
  if (payoff_.empty()) throw std::invalid_argument("matrix game: payoff: no actions");
  for (const auto& row : payoff_)
    if (row.size() != payoff_.size())
      throw std::invalid_argument("matrix game: payoff: expected " + std::to_string(payoff_.size()) + " x " +
                                  std::to_string(payoff_.size()) + " entries");
  if (shares_.size() != 2) throw std::invalid_argument("matrix game: shares: expected one per agent (2)");
  if (copies_ == 0) throw std::invalid_argument("matrix game: copies: expected at least 1");
}

void MatrixGame::reset(std::span<float> states) { std::fill(states.begin(), states.end(), 1.0F); }

void MatrixGame::step(std::span<const std::int64_t> actions, std::span<float> states, std::span<float> rewards) {
  reset(states);
  for (std::size_t c = 0; c < copies_; ++c) {
    const double team = payoff_[static_cast<std::size_t>(actions[2 * c])][static_cast<std::size_t>(actions[2 * c + 1])];
    for (std::size_t i = 0; i < 2; ++i) rewards[2 * c + i] = static_cast<float>(shares_[i] * team);
  }
}

}  // namespace nfv
