// Forecast accuracy: MAE, RMSE, MAPE and MASE per horizon, by walking a
// predictor through a test block exactly as the scaler would.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "predictor.h"
#include "rnn_scaling.h"

namespace nfv {

std::vector<double> seasonal_naive_scale(const RateTrace& train, std::size_t period_slots) {
  if (train.rows() <= period_slots)
    throw std::invalid_argument("MASE: " + train.label + " has " + std::to_string(train.rows()) +
                                " rows, not more than one period of " + std::to_string(period_slots));
  std::vector<double> scale(train.columns.size(), 0);
  for (std::size_t c = 0; c < train.columns.size(); ++c) {
    std::vector<double> y(train.rows());
    double last = 0;
    for (std::size_t r = 0; r < train.rows(); ++r) y[r] = last = clean_rate(train.at(r, c), last);
    double sum = 0;
    for (std::size_t r = period_slots; r < y.size(); ++r) sum += std::abs(y[r] - y[r - period_slots]);
    scale[c] = sum / double(y.size() - period_slots);
  }
  return scale;
}

std::vector<ForecastErrors> evaluate_forecasts(Predictor& predictor, const RateTrace& test,
                                               const std::vector<double>& mase_scale,
                                               const std::vector<double>& train_mean, const EvaluationSettings& settings,
                                               std::vector<double>* latency_us) {
  const std::size_t chains = test.columns.size();
  if (predictor.chains() != chains || mase_scale.size() != chains || train_mean.size() != chains)
    throw std::invalid_argument("evaluate_forecasts: chains of the predictor, the test trace and the scales differ");
  if (settings.horizons.empty()) throw std::invalid_argument("evaluate_forecasts: no horizon");
  const std::size_t longest = *std::max_element(settings.horizons.begin(), settings.horizons.end());
  const std::size_t n_h = settings.horizons.size();

  // Per horizon: sums over all points, and per chain for MASE.
  std::vector<double> abs_sum(n_h, 0), sq_sum(n_h, 0), ape_sum(n_h, 0);
  std::vector<std::size_t> points(n_h, 0), ape_points(n_h, 0);
  std::vector<double> chain_abs(n_h * chains, 0);
  std::vector<std::size_t> chain_points(n_h * chains, 0);

  std::vector<double> actual(test.rows() * chains);
  for (std::size_t c = 0; c < chains; ++c) {
    double last = 0;
    for (std::size_t r = 0; r < test.rows(); ++r) actual[r * chains + c] = last = clean_rate(test.at(r, c), last);
  }
  for (std::size_t row = 0; row < test.rows(); ++row) {
    const auto start = std::chrono::steady_clock::now();
    const RateForecast f = predictor.forecast(longest);
    const auto forecast_done = std::chrono::steady_clock::now();
    if (settings.on_forecast) settings.on_forecast(row, f);
    for (std::size_t i = 0; i < n_h; ++i) {
      const std::size_t target = row + settings.horizons[i] - 1;
      if (target >= test.rows() || (settings.skip_target && settings.skip_target(target))) continue;
      for (std::size_t c = 0; c < chains; ++c) {
        const double y = actual[target * chains + c];
        const double error = f.at(c, settings.horizons[i] - 1) - y;
        if (!std::isfinite(error)) throw std::runtime_error(predictor.name() + ": a non-finite forecast");
        abs_sum[i] += std::abs(error);
        sq_sum[i] += error * error;
        ++points[i];
        if (y >= settings.mape_floor * train_mean[c] && y > 0) {
          ape_sum[i] += std::abs(error) / y;
          ++ape_points[i];
        }
        chain_abs[i * chains + c] += std::abs(error);
        ++chain_points[i * chains + c];
      }
    }
    const auto observe_start = std::chrono::steady_clock::now();
    predictor.observe(std::span<const double>(test.values.data() + row * chains, chains), row_start_unix_s(test, row));
    const auto end = std::chrono::steady_clock::now();
    if (latency_us)
      latency_us->push_back(std::chrono::duration<double, std::micro>((forecast_done - start) + (end - observe_start)).count());
  }

  std::vector<ForecastErrors> result(n_h);
  for (std::size_t i = 0; i < n_h; ++i) {
    ForecastErrors& e = result[i];
    e.horizon = settings.horizons[i];
    e.points = points[i];
    e.mae = points[i] ? abs_sum[i] / double(points[i]) : 0;
    e.rmse = points[i] ? std::sqrt(sq_sum[i] / double(points[i])) : 0;
    e.mape_points = ape_points[i];
    e.mape = ape_points[i] ? 100 * ape_sum[i] / double(ape_points[i]) : 0;
    double mase_sum = 0;
    std::size_t mase_chains = 0;
    for (std::size_t c = 0; c < chains; ++c) {
      if (mase_scale[c] <= 0 || chain_points[i * chains + c] == 0) continue;
      mase_sum += chain_abs[i * chains + c] / double(chain_points[i * chains + c]) / mase_scale[c];
      ++mase_chains;
    }
    e.mase = mase_chains ? mase_sum / double(mase_chains) : 0;
  }
  return result;
}

}  // namespace nfv
