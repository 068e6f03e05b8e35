#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "rate_trace.h"

namespace nfv {

std::string unit_name(RateUnit unit) {
  switch (unit) {
    case RateUnit::mbit_per_s: return "Mbit/s";
    case RateUnit::requests_per_s: return "req/s";
    case RateUnit::packets_per_s: return "pkt/s";
  }
  return "?";
}

std::size_t RateTrace::column_index(std::string_view name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) throw std::runtime_error("trace " + label + ": no column '" + std::string(name) + "'");
  return static_cast<std::size_t>(it - columns.begin());
}

std::vector<double> RateTrace::column(std::size_t c) const {
  std::vector<double> out(rows());
  for (std::size_t r = 0; r < out.size(); ++r) out[r] = at(r, c);
  return out;
}

std::vector<double> RateTrace::column_sums() const {
  std::vector<double> sums(columns.size(), 0.0);
  for (std::size_t r = 0; r < rows(); ++r)
    for (std::size_t c = 0; c < columns.size(); ++c) sums[c] += at(r, c);
  return sums;
}

std::vector<double> RateTrace::slot_totals() const {
  std::vector<double> totals(rows(), 0.0);
  for (std::size_t r = 0; r < totals.size(); ++r)
    for (std::size_t c = 0; c < columns.size(); ++c) totals[r] += at(r, c);
  return totals;
}

RateTrace RateTrace::slice(std::size_t first, std::size_t count) const {
  if (first + count > rows())
    throw std::out_of_range("trace " + label + ": rows " + std::to_string(first) + ".." +
                            std::to_string(first + count) + " past its " + std::to_string(rows()) + " rows");
  RateTrace out = *this;
  out.values.assign(values.begin() + static_cast<std::ptrdiff_t>(first * columns.size()),
                    values.begin() + static_cast<std::ptrdiff_t>((first + count) * columns.size()));
  if (start_unix_s) out.start_unix_s = *start_unix_s + static_cast<std::int64_t>(first * step_seconds);
  out.label = label + " rows " + std::to_string(first) + ".." + std::to_string(first + count - 1);
  return out;
}

RateTrace RateTrace::every(std::size_t stride) const {
  if (stride <= 1) return *this;
  RateTrace out = *this;
  out.values.clear();
  out.step_seconds = step_seconds * static_cast<double>(stride);
  for (std::size_t row = 0; row < rows(); row += stride)
    out.values.insert(out.values.end(), values.begin() + static_cast<std::ptrdiff_t>(row * columns.size()),
                      values.begin() + static_cast<std::ptrdiff_t>((row + 1) * columns.size()));
  return out;
}

RateTrace RateTrace::resampled(double new_step_seconds) const {
  const double ratio = new_step_seconds / step_seconds;
  const auto k = static_cast<std::size_t>(std::llround(ratio));
  if (k < 1 || std::abs(ratio - static_cast<double>(k)) > 1e-9 * ratio)
    throw std::invalid_argument("trace " + label + ": steps of " + std::to_string(new_step_seconds) +
                                " s are not a whole multiple of its " + std::to_string(step_seconds) + " s");
  if (k == 1) return *this;
  RateTrace out = *this;
  out.step_seconds = new_step_seconds;
  out.values.clear();
  const std::size_t width = columns.size();
  for (std::size_t row = 0; row + k <= rows(); row += k)
    for (std::size_t c = 0; c < width; ++c) {
      double sum = 0;
      for (std::size_t i = 0; i < k; ++i) sum += at(row + i, c);
      out.values.push_back(sum / static_cast<double>(k));
    }
  return out;
}

std::vector<Outage> find_outages(const RateTrace& trace, std::size_t min_rows) {
  std::vector<Outage> outages;
  const auto totals = trace.slot_totals();
  std::size_t run_start = 0;
  for (std::size_t r = 0; r <= totals.size(); ++r) {
    const bool silent = r < totals.size() && totals[r] == 0.0;
    if (silent) continue;
    if (r - run_start >= min_rows && r > run_start) outages.push_back({run_start, r - run_start});
    run_start = r + 1;
  }
  return outages;
}

std::size_t daily_period_slots(double step_seconds) {
  if (!(step_seconds > 0)) throw std::invalid_argument("a trace step must be > 0 seconds, got " + std::to_string(step_seconds));
  return static_cast<std::size_t>(std::max(1.0, std::round(86400.0 / step_seconds)));
}

}  // namespace nfv
