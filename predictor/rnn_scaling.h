// How the RNN sees a rate. u = log1p(rate / scale) squeezes the heavy upper
// tail and makes chains of very different size look alike: the network's
// outputs are corrections in u of a base forecast, the chain's EWMA level
// (alpha per chain). z = (u - mu) / sigma normalizes per chain for the
// inputs, which are differences of z clamped to +-6 (rnn_inputs.h). Nothing
// clamps the level itself: April's rates on some OD pairs are well above
// anything March saw, and a forecast clamped to the training range cost
// more MAE than the EWMA's whole error. Fitted once on the training rows
// and kept (in the checkpoint) so that fine-tuning and inference use the
// same transform. No output is NaN, infinite or negative.
#pragma once

#include <cstddef>
#include <vector>

#include "rate_trace.h"

namespace nfv {

struct RnnScaling {
  std::vector<double> scale;   // per chain: mean training rate (> 0)
  std::vector<double> mu;      // mean of u over the training rows
  std::vector<double> sigma;   // its standard deviation (floored)
  // The base forecast the network corrects: an EWMA of the rate with this
  // alpha per chain (fit_ewma on the training rows).
  std::vector<double> alpha;
  // MASE's scale per chain: the in-sample MAE of the daily seasonal-naive
  // forecast on the training rows (0 for a chain that never changed). The
  // training loss divides each chain's absolute error by it, as MASE does.
  std::vector<double> mase_scale;

  // Fitted on rows [0, rows) of `trace`; `period_slots` for the MASE scale.
  static RnnScaling fit(const RateTrace& trace, std::size_t rows, std::size_t period_slots);
  std::size_t chains() const { return scale.size(); }
  // `rate` must be finite and >= 0 (see clean_rate).
  double to_u(std::size_t chain, double rate) const;
  // (u - mu) / sigma, unclamped: only differences of it reach the network.
  double to_z(std::size_t chain, double rate) const;
  // Never NaN, never negative, never infinite.
  double u_to_rate(std::size_t chain, double u) const;
  // The next EWMA level after `rate` (the first rate when `first`).
  double next_level(std::size_t chain, double level, double rate, bool first) const {
    return first ? rate : alpha[chain] * rate + (1 - alpha[chain]) * level;
  }
  // Per-chain constants the network reads (rnn_inputs.h): how large the
  // chain's seasonal-naive error is next to its mean rate, and sigma.
  float noise_feature(std::size_t chain) const;
  float sigma_feature(std::size_t chain) const;
};

// A measured rate made usable: non-finite -> the last usable one (0 when
// none), negative -> 0.
inline double clean_rate(double rate, double last_usable) {
  if (!(rate == rate) || rate > 1e300 || rate < -1e300) return last_usable;
  return rate < 0 ? 0 : rate;
}

}  // namespace nfv
