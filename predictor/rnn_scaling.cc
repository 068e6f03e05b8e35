#include "rnn_scaling.h"

#include "predictor.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nfv {
namespace {

constexpr double kMinScale = 1e-6;   // a chain that never carried traffic
constexpr double kMinSigma = 0.05;   // a chain that carried constant traffic
constexpr double kMaxU = 700;        // expm1 stays finite in double

}  // namespace

RnnScaling RnnScaling::fit(const RateTrace& trace, std::size_t rows, std::size_t period_slots) {
  if (rows == 0 || rows > trace.rows()) throw std::invalid_argument("RnnScaling: no training rows in " + trace.label);
  const std::size_t chains = trace.columns.size();
  RnnScaling s;
  s.scale.assign(chains, 0);
  s.mu.assign(chains, 0);
  s.sigma.assign(chains, 0);
  for (std::size_t c = 0; c < chains; ++c) {
    double sum = 0, last = 0;
    for (std::size_t r = 0; r < rows; ++r) sum += last = clean_rate(trace.at(r, c), last);
    s.scale[c] = std::max(sum / rows, kMinScale);
    double u_sum = 0, u_sq = 0;
    last = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      last = clean_rate(trace.at(r, c), last);
      const double u = s.to_u(c, last);
      u_sum += u;
      u_sq += u * u;
    }
    s.mu[c] = u_sum / rows;
    s.sigma[c] = std::max(std::sqrt(std::max(u_sq / rows - s.mu[c] * s.mu[c], 0.0)), kMinSigma);
  }
  const RateTrace train = trace.slice(0, rows);
  s.alpha = fit_ewma(train);
  s.mase_scale = rows > period_slots ? seasonal_naive_scale(train, period_slots) : std::vector<double>(chains, 0.0);
  return s;
}

double RnnScaling::to_u(std::size_t chain, double rate) const { return std::log1p(rate / scale[chain]); }

double RnnScaling::to_z(std::size_t chain, double rate) const { return (to_u(chain, rate) - mu[chain]) / sigma[chain]; }

double RnnScaling::u_to_rate(std::size_t chain, double u) const {
  if (!(u == u)) return 0;  // the network should not, but NaN must not pass
  return std::max(0.0, scale[chain] * std::expm1(std::min(u, kMaxU)));
}

float RnnScaling::noise_feature(std::size_t chain) const {
  const double ratio = std::max(mase_scale[chain], 1e-9) / scale[chain];
  return static_cast<float>(std::clamp(std::log(ratio), -6.0, 3.0) / 3);
}

float RnnScaling::sigma_feature(std::size_t chain) const { return static_cast<float>(std::min(sigma[chain], 5.0)); }

}  // namespace nfv
