// Per-column statistics of the features the agent trained on: mean and
// standard deviation (the network's input normalisation) and the range
// seen (the guard's test for inputs outside the training range). Gathered
// while training collects its first transitions, then frozen, so that the
// network's inputs mean the same thing for the rest of the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace nfv {

class FeatureStatistics {
 public:
  FeatureStatistics() = default;
  explicit FeatureStatistics(std::size_t columns);
  std::size_t columns() const { return mean_.size(); }
  std::uint64_t rows() const { return rows_; }

  // Adds rows of columns() floats each (Welford's update, in double).
  void add(std::span<const float> rows);
  // Widens the range seen by these rows; mean and std stay (frozen normalisation).
  void widen(std::span<const float> rows);
  // (x - mean) / std in place, std floored at 0.1 (the features are of
  // order one) and the result clipped to [-10, 10]; NaN reads as the mean.
  void normalize(std::span<float> rows) const;
  // Columns of `rows` outside [min - slack x range, max + slack x range]
  // (range = max - min, at least `floor`); 0 when none.
  std::size_t out_of_range(std::span<const float> rows, double slack, double floor) const;

  const std::vector<double>& mean() const { return mean_; }
  std::vector<double> stddev() const;
  const std::vector<double>& min() const { return min_; }
  const std::vector<double>& max() const { return max_; }
  // For a checkpoint: every number, and back (throws std::invalid_argument on a bad size).
  std::vector<double> to_numbers() const;
  static FeatureStatistics from_numbers(std::span<const double> numbers);

 private:
  std::uint64_t rows_ = 0;
  std::vector<double> mean_, m2_, min_, max_;
};

}  // namespace nfv
