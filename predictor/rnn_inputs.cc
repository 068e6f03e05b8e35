#include "rnn_inputs.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace nfv {
namespace {

constexpr double kDaySeconds = 86400;
constexpr double kWeekDays = 7;
constexpr double kEpochWeekday = 4;  // 1970-01-01 was a Thursday (Monday = 0)
constexpr double kChangeLimit = 6;   // z units

}  // namespace

void write_rnn_inputs(float* out, const RnnConfig& config, const RnnScaling& scaling, std::size_t chain, float z_now,
                      float z_before, const float* lagged, float lag_origin, float u_base, double next_slot_unix_s) {
  const double two_pi = 2 * std::numbers::pi;
  const double day = std::floor(next_slot_unix_s / kDaySeconds);
  const double time_of_day = (next_slot_unix_s - day * kDaySeconds) / kDaySeconds;
  const double weekday = std::fmod(std::fmod(day + kEpochWeekday, kWeekDays) + kWeekDays, kWeekDays);
  auto change = [](double d) { return static_cast<float>(std::clamp(d, -kChangeLimit, kChangeLimit)); };
  out[0] = change(double(z_now) - z_before);
  out[1] = static_cast<float>(std::sin(two_pi * time_of_day));
  out[2] = static_cast<float>(std::cos(two_pi * time_of_day));
  out[3] = static_cast<float>(std::sin(two_pi * weekday / kWeekDays));
  out[4] = static_cast<float>(std::cos(two_pi * weekday / kWeekDays));
  for (std::size_t h = 0; h < config.horizon; ++h) out[1 + kRnnTimeFeatures + h] = change(double(lagged[h]) - lag_origin);
  float* tail = out + 1 + kRnnTimeFeatures + config.horizon;
  tail[0] = change(z_now - (u_base - scaling.mu[chain]) / scaling.sigma[chain]);
  tail[1] = scaling.noise_feature(chain);
  tail[2] = scaling.sigma_feature(chain);
  tail[kRnnChainFeatures] = u_base;
}

RnnDataset build_rnn_dataset(const RateTrace& trace, const RnnScaling& scaling, const RnnConfig& config) {
  RnnDataset d;
  d.rows = trace.rows();
  d.chains = trace.columns.size();
  d.inputs = rnn_input_size(config);
  d.horizon = config.horizon;
  d.first_row = config.period_slots;
  std::vector<float> z(d.rows * d.chains), ub(d.rows * d.chains);
  std::vector<double> rate(d.rows * d.chains);
  for (std::size_t c = 0; c < d.chains; ++c) {
    double last = 0, level = 0;
    for (std::size_t r = 0; r < d.rows; ++r) {
      last = clean_rate(trace.at(r, c), last);
      level = scaling.next_level(c, level, last, r == 0);
      rate[r * d.chains + c] = last;
      z[r * d.chains + c] = static_cast<float>(scaling.to_z(c, last));
      ub[r * d.chains + c] = static_cast<float>(scaling.to_u(c, level));
    }
  }
  d.loss_constants.assign(d.chains * kRnnLossConstants, 0);
  std::vector<double> inverse_scale(d.chains, 0);
  for (std::size_t c = 0; c < d.chains; ++c) {
    float* k = &d.loss_constants[c * kRnnLossConstants];
    const double s = scaling.mase_scale[c];
    inverse_scale[c] = s > 0 ? 1 / s : 0;
    k[0] = static_cast<float>(scaling.scale[c] * inverse_scale[c]);
  }
  d.x.assign(d.rows * d.chains * d.inputs, 0);
  d.y.assign(d.rows * d.chains * d.horizon, 0);
  std::vector<float> lagged(d.horizon);
  for (std::size_t r = 0; r < d.rows; ++r) {
    const double next_start = row_start_unix_s(trace, r) + config.step_seconds;
    for (std::size_t c = 0; c < d.chains; ++c) {
      const float z_now = z[r * d.chains + c];
      const float z_before = r > 0 ? z[(r - 1) * d.chains + c] : z_now;
      const float lag_origin = r >= config.period_slots ? z[(r - config.period_slots) * d.chains + c] : z_now;
      for (std::size_t h = 0; h < d.horizon; ++h) {
        const std::size_t ahead = r + 1 + h;
        lagged[h] = r >= config.period_slots ? z[(ahead - config.period_slots) * d.chains + c] : z_now;
        if (ahead < d.rows)
          d.y[(r * d.chains + c) * d.horizon + h] = static_cast<float>(rate[ahead * d.chains + c] * inverse_scale[c]);
      }
      write_rnn_inputs(&d.x[(r * d.chains + c) * d.inputs], config, scaling, c, z_now, z_before, lagged.data(),
                       lag_origin, ub[r * d.chains + c], next_start);
    }
  }
  return d;
}

}  // namespace nfv
