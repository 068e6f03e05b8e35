// What the RNN reads at each slot t of one chain, the same offline and
// online. Only changes, never levels: a network that saw z itself would
// learn to pull every chain back to its training mean (z = 0), which is
// wrong whenever the level moves (weekends, April after March). So:
//   - z[t] - z[t-1];
//   - the time of day and day of week of slot t + 1 (the first slot
//     predicted) as sin/cos pairs;
//   - yesterday's change from the same hour, z[t+1+h-P] - z[t-P] for every
//     step h < horizon (P = the daily period): the seasonal hint;
//   - last, z[t] itself, which the network does not read: its outputs are
//     corrections of it (rnn_network.h).
// Where the history is shorter, z[t] stands in for the missing values.
#pragma once

#include <cstddef>
#include <vector>

#include "predictor.h"
#include "rnn_scaling.h"

namespace nfv {

constexpr std::size_t kRnnTimeFeatures = 4;
inline std::size_t rnn_input_size(const RnnConfig& config) { return 1 + kRnnTimeFeatures + config.horizon + 1; }
// Point forecast plus one head per quantile level, for every step ahead.
inline std::size_t rnn_output_size(const RnnConfig& config) { return config.horizon * (1 + config.quantiles.size()); }

// Writes rnn_input_size(config) floats. `lagged[h]` is z at t + 1 + h - period,
// `lag_origin` z at t - period.
void write_rnn_inputs(float* out, const RnnConfig& config, float z_now, float z_before, const float* lagged,
                      float lag_origin, double next_slot_unix_s);

// A whole block as the network's training data.
struct RnnDataset {
  std::size_t rows = 0;
  std::size_t chains = 0;
  std::size_t inputs = 0;
  std::size_t horizon = 0;
  std::size_t first_row = 0;  // first row whose lags are real (the period)
  std::vector<float> x;       // [row][chain][input]
  std::vector<float> y;       // [row][chain][step]: z at row + 1 + step (0 past the end)
};
// Rates are cleaned (clean_rate) column by column before scaling.
RnnDataset build_rnn_dataset(const RateTrace& trace, const RnnScaling& scaling, const RnnConfig& config);

}  // namespace nfv
