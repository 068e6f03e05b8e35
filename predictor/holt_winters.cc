// Additive Holt-Winters (level, trend, season of one period) per chain, and
// its parameters fitted per chain on a training trace by grid search.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "predictor.h"
#include "rnn_scaling.h"

namespace nfv {
namespace {

// One chain. Until two periods have been seen it forecasts the last value;
// then level, trend and season start from those two periods (the classical
// initialization: season = mean deviation from each period's mean).
class HoltWintersChain {
 public:
  HoltWintersChain(HoltWintersParams params, std::size_t period)
      : p_(params), period_(period), season_(period, 0) {
    first_periods_.reserve(2 * period);
  }

  void observe(double y) {
    last_ = y;
    if (seen_ < 2 * period_) {
      first_periods_.push_back(y);
      if (++seen_ == 2 * period_) initialize();
      return;
    }
    double& s = season_[seen_ % period_];
    const double level = p_.alpha * (y - s) + (1 - p_.alpha) * (level_ + trend_);
    trend_ = p_.beta * (level - level_) + (1 - p_.beta) * trend_;
    s = p_.gamma * (y - level) + (1 - p_.gamma) * s;
    level_ = level;
    ++seen_;
  }

  // Step h (1-based) after the last slot observed; never negative.
  double forecast(std::size_t h) const {
    if (seen_ < 2 * period_) return last_;
    const double y = level_ + static_cast<double>(h) * trend_ + season_[(seen_ - 1 + h) % period_];
    return std::isfinite(y) && y > 0 ? y : 0;
  }
  bool ready() const { return seen_ >= 2 * period_; }

 private:
  void initialize() {
    const std::size_t m = period_;
    double mean1 = 0, mean2 = 0;
    for (std::size_t i = 0; i < m; ++i) {
      mean1 += first_periods_[i] / double(m);
      mean2 += first_periods_[m + i] / double(m);
    }
    trend_ = (mean2 - mean1) / double(m);
    level_ = mean2 + trend_ * double(m - 1) / 2;  // the level at the last slot of period 2
    for (std::size_t i = 0; i < m; ++i) season_[i] = ((first_periods_[i] - mean1) + (first_periods_[m + i] - mean2)) / 2;
    first_periods_.clear();
    first_periods_.shrink_to_fit();
  }

  HoltWintersParams p_;
  std::size_t period_;
  std::vector<double> season_;  // by slot mod period
  std::vector<double> first_periods_;
  double level_ = 0, trend_ = 0, last_ = 0;
  std::size_t seen_ = 0;
};

class HoltWinters final : public Predictor {
 public:
  HoltWinters(std::vector<HoltWintersParams> params, std::size_t chains, std::size_t period) : last_(chains, 0) {
    if (period == 0) throw std::invalid_argument("holt-winters: the period must be at least one slot");
    if (params.size() == 1) params.assign(chains, params[0]);
    if (params.size() != chains) throw std::invalid_argument("holt-winters: one parameter set or one per chain");
    for (const HoltWintersParams& p : params) chains_.emplace_back(p, period);
  }
  std::string name() const override { return "holt-winters"; }
  std::size_t chains() const override { return chains_.size(); }
  void observe(std::span<const double> rates, double) override {
    if (rates.size() != chains_.size())
      throw std::invalid_argument(name() + ": a row of " + std::to_string(rates.size()) + " rates, expected " +
                                  std::to_string(chains_.size()));
    for (std::size_t c = 0; c < chains_.size(); ++c) chains_[c].observe(last_[c] = clean_rate(rates[c], last_[c]));
    seen_ = true;
  }
  RateForecast forecast(std::size_t horizon) override {
    if (!seen_) throw std::logic_error(name() + ": forecast before the first observe");
    RateForecast f;
    f.chains = chains_.size();
    f.horizon = horizon;
    f.mean.resize(f.chains * horizon);
    for (std::size_t c = 0; c < f.chains; ++c)
      for (std::size_t h = 0; h < horizon; ++h) f.mean[c * horizon + h] = chains_[c].forecast(h + 1);
    return f;
  }

 private:
  std::vector<HoltWintersChain> chains_;
  std::vector<double> last_;
  bool seen_ = false;
};

}  // namespace

std::unique_ptr<Predictor> make_holt_winters(std::vector<HoltWintersParams> params, std::size_t chains,
                                             std::size_t period_slots) {
  return std::make_unique<HoltWinters>(std::move(params), chains, period_slots);
}

std::vector<HoltWintersParams> fit_holt_winters(const RateTrace& trace, std::size_t period_slots) {
  static constexpr double kAlpha[] = {0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9};
  static constexpr double kBeta[] = {0, 0.005, 0.02};
  static constexpr double kGamma[] = {0.02, 0.05, 0.1, 0.2, 0.4};
  std::vector<HoltWintersParams> best(trace.columns.size());
  std::vector<double> y(trace.rows());
  for (std::size_t c = 0; c < trace.columns.size(); ++c) {
    double last = 0;
    for (std::size_t r = 0; r < trace.rows(); ++r) y[r] = last = clean_rate(trace.at(r, c), last);
    double best_error = INFINITY;
    for (double alpha : kAlpha)
      for (double beta : kBeta)
        for (double gamma : kGamma) {
          HoltWintersChain model({alpha, beta, gamma}, period_slots);
          double error = 0;
          for (double value : y) {
            if (model.ready()) error += (value - model.forecast(1)) * (value - model.forecast(1));
            model.observe(value);
          }
          if (error < best_error) {
            best_error = error;
            best[c] = {alpha, beta, gamma};
          }
        }
  }
  return best;
}

namespace {

const PredictorRegistration kHoltWinters{
    "holt_winters", "additive Holt-Winters (season, default one day of trace steps; alpha, beta, gamma)",
    {"season", "alpha", "beta", "gamma"},
    [](const ParamReader& params, const PredictorContext& context) {
      const std::uint32_t season =
          params.count("season", static_cast<std::uint32_t>(daily_period_slots(context.step_seconds)));
      if (season == 0) throw std::invalid_argument(params.what() + ": parameter 'season': at least 1 slot");
      const HoltWintersParams defaults;
      HoltWintersParams p{params.number("alpha", defaults.alpha), params.number("beta", defaults.beta),
                          params.number("gamma", defaults.gamma)};
      for (const auto& [key, value] : {std::pair{"alpha", p.alpha}, {"beta", p.beta}, {"gamma", p.gamma}})
        if (!(value >= 0 && value <= 1))
          throw std::invalid_argument(params.what() + ": parameter '" + key + "': a weight in [0, 1]");
      return make_holt_winters({p}, context.chain_names.size(), season);
    }};

}  // namespace

}  // namespace nfv
