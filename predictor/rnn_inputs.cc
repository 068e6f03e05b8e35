#include "rnn_inputs.h"

#include <cmath>
#include <numbers>

namespace nfv {
namespace {

constexpr double kDaySeconds = 86400;
constexpr double kWeekDays = 7;
constexpr double kEpochWeekday = 4;  // 1970-01-01 was a Thursday (Monday = 0)

}  // namespace

void write_rnn_inputs(float* out, const RnnConfig& config, float z_now, float z_before, const float* lagged,
                      float lag_origin, double next_slot_unix_s) {
  const double two_pi = 2 * std::numbers::pi;
  const double day = std::floor(next_slot_unix_s / kDaySeconds);
  const double time_of_day = (next_slot_unix_s - day * kDaySeconds) / kDaySeconds;
  const double weekday = std::fmod(std::fmod(day + kEpochWeekday, kWeekDays) + kWeekDays, kWeekDays);
  out[0] = z_now - z_before;
  out[1] = static_cast<float>(std::sin(two_pi * time_of_day));
  out[2] = static_cast<float>(std::cos(two_pi * time_of_day));
  out[3] = static_cast<float>(std::sin(two_pi * weekday / kWeekDays));
  out[4] = static_cast<float>(std::cos(two_pi * weekday / kWeekDays));
  for (std::size_t h = 0; h < config.horizon; ++h) out[1 + kRnnTimeFeatures + h] = lagged[h] - lag_origin;
  out[1 + kRnnTimeFeatures + config.horizon] = z_now;
}

RnnDataset build_rnn_dataset(const RateTrace& trace, const RnnScaling& scaling, const RnnConfig& config) {
  RnnDataset d;
  d.rows = trace.rows();
  d.chains = trace.columns.size();
  d.inputs = rnn_input_size(config);
  d.horizon = config.horizon;
  d.first_row = config.period_slots;
  std::vector<float> z(d.rows * d.chains);
  for (std::size_t c = 0; c < d.chains; ++c) {
    double last = 0;
    for (std::size_t r = 0; r < d.rows; ++r) {
      last = clean_rate(trace.at(r, c), last);
      z[r * d.chains + c] = scaling.to_z(c, last);
    }
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
        if (ahead < d.rows) d.y[(r * d.chains + c) * d.horizon + h] = z[ahead * d.chains + c];
      }
      write_rnn_inputs(&d.x[(r * d.chains + c) * d.inputs], config, z_now, z_before, lagged.data(), lag_origin,
                       next_start);
    }
  }
  return d;
}

}  // namespace nfv
