// How the RNN sees a rate: u = log1p(rate / scale) squeezes the heavy upper
// tail and makes chains of very different size look alike, and
// z = (u - mu) / sigma normalizes per chain. Fitted once on the training
// rows and kept (in the checkpoint) so that fine-tuning and inference use
// the same transform. Both directions clamp, so zeros, outages and outliers
// never reach the network as extreme values and no output is NaN,
// infinite or negative.
#pragma once

#include <cstddef>
#include <vector>

#include "rate_trace.h"

namespace nfv {

struct RnnScaling {
  std::vector<double> scale;   // per chain: mean training rate (> 0)
  std::vector<double> mu;      // mean of u over the training rows
  std::vector<double> sigma;   // its standard deviation (floored)
  std::vector<double> z_min;   // range of z seen in training
  std::vector<double> z_max;

  // Fitted on rows [0, rows) of `trace`.
  static RnnScaling fit(const RateTrace& trace, std::size_t rows);
  std::size_t chains() const { return scale.size(); }
  // `rate` must be finite and >= 0 (see clean_rate).
  float to_z(std::size_t chain, double rate) const;
  // Never NaN, never negative, never beyond the training range by more than a margin.
  double to_rate(std::size_t chain, double z) const;
};

// A measured rate made usable: non-finite -> the last usable one (0 when
// none), negative -> 0.
inline double clean_rate(double rate, double last_usable) {
  if (!(rate == rate) || rate > 1e300 || rate < -1e300) return last_usable;
  return rate < 0 ? 0 : rate;
}

}  // namespace nfv
