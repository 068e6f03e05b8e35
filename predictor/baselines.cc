// The simple baselines every learned predictor must beat: last value, EWMA
// and seasonal naive. Holt-Winters has its own file.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "predictor.h"
#include "rnn_scaling.h"

namespace nfv {
namespace {

void check_row(const Predictor& p, std::span<const double> rates) {
  if (rates.size() != p.chains())
    throw std::invalid_argument(p.name() + ": a row of " + std::to_string(rates.size()) + " rates, expected " +
                                std::to_string(p.chains()));
}

RateForecast flat_forecast(std::size_t chains, std::size_t horizon) {
  RateForecast f;
  f.chains = chains;
  f.horizon = horizon;
  f.mean.assign(chains * horizon, 0);
  return f;
}

class LastValue final : public Predictor {
 public:
  explicit LastValue(std::size_t chains) : last_(chains, 0) {}
  std::string name() const override { return "last-value"; }
  std::size_t chains() const override { return last_.size(); }
  void observe(std::span<const double> rates, double) override {
    check_row(*this, rates);
    for (std::size_t c = 0; c < last_.size(); ++c) last_[c] = clean_rate(rates[c], last_[c]);
    seen_ = true;
  }
  RateForecast forecast(std::size_t horizon) override {
    if (!seen_) throw std::logic_error(name() + ": forecast before the first observe");
    RateForecast f = flat_forecast(last_.size(), horizon);
    for (std::size_t c = 0; c < last_.size(); ++c) std::fill_n(f.mean.begin() + c * horizon, horizon, last_[c]);
    return f;
  }

 private:
  std::vector<double> last_;
  bool seen_ = false;
};

class Ewma final : public Predictor {
 public:
  Ewma(std::vector<double> alpha, std::size_t chains) : alpha_(std::move(alpha)), level_(chains, 0), last_(chains, 0) {
    if (alpha_.size() == 1) alpha_.assign(chains, alpha_[0]);
    if (alpha_.size() != chains) throw std::invalid_argument("ewma: one alpha or one per chain");
    for (double a : alpha_)
      if (!(a > 0 && a <= 1)) throw std::invalid_argument("ewma: alpha must be in (0, 1], got " + std::to_string(a));
  }
  std::string name() const override { return "ewma"; }
  std::size_t chains() const override { return level_.size(); }
  void observe(std::span<const double> rates, double) override {
    check_row(*this, rates);
    for (std::size_t c = 0; c < level_.size(); ++c) {
      last_[c] = clean_rate(rates[c], last_[c]);
      level_[c] = seen_ ? alpha_[c] * last_[c] + (1 - alpha_[c]) * level_[c] : last_[c];
    }
    seen_ = true;
  }
  RateForecast forecast(std::size_t horizon) override {
    if (!seen_) throw std::logic_error(name() + ": forecast before the first observe");
    RateForecast f = flat_forecast(level_.size(), horizon);
    for (std::size_t c = 0; c < level_.size(); ++c) std::fill_n(f.mean.begin() + c * horizon, horizon, level_[c]);
    return f;
  }

 private:
  std::vector<double> alpha_;
  std::vector<double> level_;
  std::vector<double> last_;
  bool seen_ = false;
};

class SeasonalNaive final : public Predictor {
 public:
  SeasonalNaive(std::size_t chains, std::size_t period)
      : chains_(chains), period_(period), ring_(chains * period, 0), last_(chains, 0) {
    if (period == 0) throw std::invalid_argument("seasonal-naive: the period must be at least one slot");
  }
  std::string name() const override { return "seasonal-naive"; }
  std::size_t chains() const override { return chains_; }
  void observe(std::span<const double> rates, double) override {
    check_row(*this, rates);
    const std::size_t slot = seen_ % period_;
    for (std::size_t c = 0; c < chains_; ++c) ring_[slot * chains_ + c] = last_[c] = clean_rate(rates[c], last_[c]);
    ++seen_;
  }
  // Step h (0-based) is slot seen_ + h, whose value one period earlier is
  // in the ring at (seen_ + h) mod period while h < period; further ahead,
  // the same slot of the last period seen.
  RateForecast forecast(std::size_t horizon) override {
    if (seen_ == 0) throw std::logic_error(name() + ": forecast before the first observe");
    RateForecast f = flat_forecast(chains_, horizon);
    for (std::size_t c = 0; c < chains_; ++c)
      for (std::size_t h = 0; h < horizon; ++h)
        f.mean[c * horizon + h] = seen_ >= period_ ? ring_[((seen_ + h) % period_) * chains_ + c] : last_[c];
    return f;
  }

 private:
  std::size_t chains_;
  std::size_t period_;
  std::vector<double> ring_;  // [slot mod period][chain]
  std::vector<double> last_;
  std::size_t seen_ = 0;
};

}  // namespace

std::unique_ptr<Predictor> make_last_value(std::size_t chains) { return std::make_unique<LastValue>(chains); }

std::unique_ptr<Predictor> make_ewma(std::vector<double> alpha, std::size_t chains) {
  return std::make_unique<Ewma>(std::move(alpha), chains);
}

std::unique_ptr<Predictor> make_seasonal_naive(std::size_t chains, std::size_t period_slots) {
  return std::make_unique<SeasonalNaive>(chains, period_slots);
}

std::vector<double> fit_ewma(const RateTrace& trace) {
  static constexpr double kGrid[] = {0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
  std::vector<double> best(trace.columns.size(), 1.0);
  for (std::size_t c = 0; c < trace.columns.size(); ++c) {
    double best_error = INFINITY;
    for (double alpha : kGrid) {
      double level = 0, last = 0, error = 0;
      for (std::size_t r = 0; r < trace.rows(); ++r) {
        last = clean_rate(trace.at(r, c), last);
        if (r > 0) error += (last - level) * (last - level);
        level = r > 0 ? alpha * last + (1 - alpha) * level : last;
      }
      if (error < best_error) {
        best_error = error;
        best[c] = alpha;
      }
    }
  }
  return best;
}

namespace {

const PredictorRegistration kLastValue{"last_value", "the last measured rate", {},
                                       [](const ParamReader&, const PredictorContext& context) {
                                         return make_last_value(context.chain_names.size());
                                       }};

// alpha: one weight for every chain, or one per chain separated by commas
// (e.g. fit_ewma's on a training block).
const PredictorRegistration kEwma{
    "ewma", "exponentially weighted moving average (alpha, default 0.5; or one per chain, comma-separated)", {"alpha"},
    [](const ParamReader& params, const PredictorContext& context) {
      std::vector<double> alpha;
      for (const std::string& text : option_list(params.text("alpha", "0.5")))
        alpha.push_back(option_number(params.what() + ": parameter 'alpha'", text));
      if (alpha.size() != 1 && alpha.size() != context.chain_names.size())
        throw std::invalid_argument(params.what() + ": parameter 'alpha': one weight, or one per chain (" +
                                    std::to_string(context.chain_names.size()) + "), not " + std::to_string(alpha.size()));
      for (double a : alpha)
        if (!(a > 0 && a <= 1)) throw std::invalid_argument(params.what() + ": parameter 'alpha': weights in (0, 1]");
      return make_ewma(std::move(alpha), context.chain_names.size());
    }};

const PredictorRegistration kSeasonalNaive{
    "seasonal_naive", "the rate one period earlier (season, default one day of trace steps)", {"season"},
    [](const ParamReader& params, const PredictorContext& context) {
      const std::uint32_t season =
          params.count("season", static_cast<std::uint32_t>(daily_period_slots(context.step_seconds)));
      if (season == 0) throw std::invalid_argument(params.what() + ": parameter 'season': at least 1 slot");
      return make_seasonal_naive(context.chain_names.size(), season);
    }};

}  // namespace

}  // namespace nfv
