// What the RNN reads at each slot t of one chain, the same offline and
// online. The network forecasts a correction of a strong base forecast,
// the chain's EWMA level b[t] (RnnScaling::alpha), never the level itself:
// a network that saw z itself learned to pull every chain back to its
// training mean (z = 0), which is wrong whenever the level moves (weekends,
// April after March). So, differences in z units (rnn_scaling.h), each
// clamped to +-6:
//   - z[t] - z[t-1];
//   - the time of day and day of week of slot t + 1 (the first slot
//     predicted) as sin/cos pairs;
//   - yesterday's change from the same hour, z[t+1+h-P] - z[t-P] for every
//     step h < horizon (P = the daily period): the seasonal hint;
//   - z[t] - zb[t], how far the last rate is from the EWMA level zb;
// and unclamped:
//   - two constants of the chain: log(MASE scale / mean rate) / 3 (how
//     noisy it is) and sigma (how wide its log range is);
//   - last, ub[t] = log1p(level / scale), which the network does not read:
//     its outputs are corrections of it in u (rnn_network.h), so a zero
//     head forecasts the EWMA level exactly.
// Where the history is shorter, z[t] stands in for the missing values.
#pragma once

#include <cstddef>
#include <vector>

#include "rnn_predictor.h"
#include "rnn_scaling.h"

namespace nfv {

constexpr std::size_t kRnnTimeFeatures = 4;
constexpr std::size_t kRnnChainFeatures = 3;  // z - zb, noise, sigma
inline std::size_t rnn_input_size(const RnnConfig& config) {
  return 1 + kRnnTimeFeatures + config.horizon + kRnnChainFeatures + 1;
}
// Point forecast plus one head per quantile level, for every step ahead.
inline std::size_t rnn_output_size(const RnnConfig& config) { return config.horizon * (1 + config.quantiles.size()); }

// Writes rnn_input_size(config) floats for chain `chain`. `lagged[h]` is z at
// t + 1 + h - period, `lag_origin` z at t - period, `u_base` the EWMA level in u.
void write_rnn_inputs(float* out, const RnnConfig& config, const RnnScaling& scaling, std::size_t chain, float z_now,
                      float z_before, const float* lagged, float lag_origin, float u_base, double next_slot_unix_s);

// Per chain, what the loss needs to turn a u forecast into MASE units:
// rate / MASE scale = a * expm1(u), a = mean rate / MASE scale (0 when the
// MASE scale is 0: MASE leaves such a chain out, so does the loss).
constexpr std::size_t kRnnLossConstants = 1;

// A whole block as the network's training data.
struct RnnDataset {
  std::size_t rows = 0;
  std::size_t chains = 0;
  std::size_t inputs = 0;
  std::size_t horizon = 0;
  std::size_t first_row = 0;  // first row whose lags are real (the period)
  std::vector<float> x;       // [row][chain][input]
  std::vector<float> y;       // [row][chain][step]: rate at row + 1 + step / MASE scale (0 past the end)
  std::vector<float> loss_constants;  // [chain][kRnnLossConstants]
};
// Rates are cleaned (clean_rate) column by column before scaling.
RnnDataset build_rnn_dataset(const RateTrace& trace, const RnnScaling& scaling, const RnnConfig& config);

}  // namespace nfv
