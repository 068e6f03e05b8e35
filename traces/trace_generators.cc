// Synthetic rate traces for tests and experiments: a day's cycle, a step,
// a flash crowd. Deterministic for a seed (std::mt19937_64 is specified
// exactly; the normal distribution is libstdc++'s, fixed on one toolchain).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "rate_trace.h"

namespace nfv {
namespace {

RateTrace one_column(const std::string& label, const std::string& column, std::size_t rows, double step_seconds,
                     RateUnit unit) {
  RateTrace trace;
  trace.label = label;
  trace.step_seconds = step_seconds;
  trace.unit = unit;
  trace.columns = {column};
  trace.values.reserve(rows);
  return trace;
}

}  // namespace

RateTrace diurnal_trace(const std::string& column, const DiurnalShape& shape, RateUnit unit) {
  RateTrace trace = one_column("diurnal", column, shape.rows, shape.step_seconds, unit);
  std::mt19937_64 random(shape.seed);
  std::normal_distribution<double> noise(0.0, shape.noise_stddev);
  for (std::size_t r = 0; r < shape.rows; ++r) {
    const double phase = 2 * std::numbers::pi * static_cast<double>(r) * shape.step_seconds / shape.period_seconds;
    double rate = shape.mean + shape.amplitude * std::sin(phase);
    if (shape.noise_stddev > 0) rate += noise(random);
    trace.values.push_back(std::max(0.0, rate));
  }
  return trace;
}

RateTrace step_trace(const std::string& column, const StepShape& shape, RateUnit unit) {
  RateTrace trace = one_column("step", column, shape.rows, shape.step_seconds, unit);
  for (std::size_t r = 0; r < shape.rows; ++r) trace.values.push_back(r < shape.step_row ? shape.before : shape.after);
  return trace;
}

RateTrace flash_crowd_trace(const std::string& column, const FlashCrowdShape& shape, RateUnit unit) {
  RateTrace trace = one_column("flash crowd", column, shape.rows, shape.step_seconds, unit);
  const std::size_t peak_from = shape.start_row + shape.ramp_rows;
  const std::size_t decay_from = peak_from + shape.hold_rows;
  for (std::size_t r = 0; r < shape.rows; ++r) {
    double rate = shape.base;
    if (r >= shape.start_row && r < peak_from)  // reaches the peak on the ramp's last row
      rate = shape.base + (shape.peak - shape.base) * static_cast<double>(r - shape.start_row + 1) /
                              static_cast<double>(shape.ramp_rows);
    else if (r >= peak_from && r < decay_from)
      rate = shape.peak;
    else if (r >= decay_from)
      rate = shape.base + (shape.peak - shape.base) * std::exp(-static_cast<double>(r - decay_from + 1) / shape.decay_rows);
    trace.values.push_back(rate);
  }
  return trace;
}

}  // namespace nfv
