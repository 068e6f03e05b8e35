#include "rnn_scaling.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nfv {
namespace {

constexpr double kMinScale = 1e-6;      // a chain that never carried traffic
constexpr double kMinSigma = 0.05;      // a chain that carried constant traffic
constexpr double kInputLimit = 6;       // |z| fed to the network
constexpr double kOutputMargin = 1;     // z beyond the training range a forecast may reach

}  // namespace

RnnScaling RnnScaling::fit(const RateTrace& trace, std::size_t rows) {
  if (rows == 0 || rows > trace.rows()) throw std::invalid_argument("RnnScaling: no training rows in " + trace.label);
  const std::size_t chains = trace.columns.size();
  RnnScaling s;
  s.scale.assign(chains, 0);
  s.mu.assign(chains, 0);
  s.sigma.assign(chains, 0);
  s.z_min.assign(chains, 0);
  s.z_max.assign(chains, 0);
  for (std::size_t c = 0; c < chains; ++c) {
    double sum = 0, last = 0;
    for (std::size_t r = 0; r < rows; ++r) sum += last = clean_rate(trace.at(r, c), last);
    s.scale[c] = std::max(sum / rows, kMinScale);
    double u_sum = 0, u_sq = 0;
    last = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      last = clean_rate(trace.at(r, c), last);
      const double u = std::log1p(last / s.scale[c]);
      u_sum += u;
      u_sq += u * u;
    }
    s.mu[c] = u_sum / rows;
    s.sigma[c] = std::max(std::sqrt(std::max(u_sq / rows - s.mu[c] * s.mu[c], 0.0)), kMinSigma);
    double lo = kInputLimit, hi = -kInputLimit;
    last = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      last = clean_rate(trace.at(r, c), last);
      const double z = s.to_z(c, last);
      lo = std::min(lo, z);
      hi = std::max(hi, z);
    }
    s.z_min[c] = lo;
    s.z_max[c] = hi;
  }
  return s;
}

float RnnScaling::to_z(std::size_t chain, double rate) const {
  const double z = (std::log1p(rate / scale[chain]) - mu[chain]) / sigma[chain];
  return static_cast<float>(std::clamp(z, -kInputLimit, kInputLimit));
}

double RnnScaling::to_rate(std::size_t chain, double z) const {
  if (!std::isfinite(z)) z = 0;  // the chain's typical rate: the network should not, but NaN must not pass
  z = std::clamp(z, z_min[chain] - kOutputMargin, z_max[chain] + kOutputMargin);
  return std::max(0.0, scale[chain] * std::expm1(z * sigma[chain] + mu[chain]));
}

}  // namespace nfv
