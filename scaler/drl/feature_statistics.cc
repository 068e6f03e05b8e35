#include "feature_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace nfv {

namespace {
// The features are already of order one (log1p rates, shares, relative
// prices): a column that barely moved while the statistics were taken
// (drops, queues in a calm start) must not blow up when it moves later.
constexpr double kMinStd = 0.1;
// Inputs beyond this many standard deviations are clipped.
constexpr double kMaxZ = 10;
}

FeatureStatistics::FeatureStatistics(std::size_t columns)
    : mean_(columns, 0.0), m2_(columns, 0.0), min_(columns, std::numeric_limits<double>::infinity()),
      max_(columns, -std::numeric_limits<double>::infinity()) {
  if (columns == 0) throw std::invalid_argument("feature statistics: 0 columns");
}

void FeatureStatistics::add(std::span<const float> rows) {
  const std::size_t n = columns();
  if (n == 0 || rows.size() % n != 0)
    throw std::invalid_argument("feature statistics: " + std::to_string(rows.size()) + " floats are not rows of " +
                                std::to_string(n));
  for (std::size_t r = 0; r < rows.size() / n; ++r) {
    ++rows_;
    for (std::size_t c = 0; c < n; ++c) {
      const double x = rows[r * n + c];
      const double delta = x - mean_[c];
      mean_[c] += delta / static_cast<double>(rows_);
      m2_[c] += delta * (x - mean_[c]);
      min_[c] = std::min(min_[c], x);
      max_[c] = std::max(max_[c], x);
    }
  }
}

void FeatureStatistics::widen(std::span<const float> rows) {
  const std::size_t n = columns();
  if (n == 0 || rows.size() % n != 0) throw std::invalid_argument("feature statistics: rows of the wrong size");
  for (std::size_t r = 0; r < rows.size() / n; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      const double x = rows[r * n + c];
      if (!std::isfinite(x)) continue;
      min_[c] = std::min(min_[c], x);
      max_[c] = std::max(max_[c], x);
    }
}

std::vector<double> FeatureStatistics::stddev() const {
  std::vector<double> s(columns(), 1.0);
  if (rows_ < 2) return s;
  for (std::size_t c = 0; c < columns(); ++c) s[c] = std::max(std::sqrt(m2_[c] / static_cast<double>(rows_ - 1)), kMinStd);
  return s;
}

void FeatureStatistics::normalize(std::span<float> rows) const {
  const std::size_t n = columns();
  if (n == 0 || rows.size() % n != 0) throw std::invalid_argument("feature statistics: rows of the wrong size");
  const std::vector<double> s = stddev();
  for (std::size_t r = 0; r < rows.size() / n; ++r)
    for (std::size_t c = 0; c < n; ++c)
      rows[r * n + c] = std::isnan(rows[r * n + c])
                            ? 0.0F
                            : static_cast<float>(std::clamp((rows[r * n + c] - mean_[c]) / s[c], -kMaxZ, kMaxZ));
}

std::size_t FeatureStatistics::out_of_range(std::span<const float> rows, double slack, double floor) const {
  const std::size_t n = columns();
  if (n == 0 || rows.size() % n != 0) throw std::invalid_argument("feature statistics: rows of the wrong size");
  if (rows_ == 0) return 0;
  std::size_t out = 0;
  for (std::size_t r = 0; r < rows.size() / n; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      const double x = rows[r * n + c];
      const double room = slack * std::max(max_[c] - min_[c], floor);
      if (!std::isfinite(x) || x < min_[c] - room || x > max_[c] + room) ++out;
    }
  return out;
}

std::vector<double> FeatureStatistics::to_numbers() const {
  std::vector<double> out{static_cast<double>(columns()), static_cast<double>(rows_)};
  for (const auto* v : {&mean_, &m2_, &min_, &max_}) out.insert(out.end(), v->begin(), v->end());
  return out;
}

FeatureStatistics FeatureStatistics::from_numbers(std::span<const double> numbers) {
  if (numbers.size() < 2) throw std::invalid_argument("feature statistics: too few numbers");
  const auto n = static_cast<std::size_t>(numbers[0]);
  if (n == 0 || numbers.size() != 2 + 4 * n)
    throw std::invalid_argument("feature statistics: " + std::to_string(numbers.size()) + " numbers for " +
                                std::to_string(n) + " columns");
  FeatureStatistics s(n);
  s.rows_ = static_cast<std::uint64_t>(numbers[1]);
  std::size_t at = 2;
  for (auto* v : {&s.mean_, &s.m2_, &s.min_, &s.max_})
    for (std::size_t c = 0; c < n; ++c) (*v)[c] = numbers[at++];
  return s;
}

}  // namespace nfv
