// The forecast each decision plans for, the same in nfv-sim, the benches,
// the environments the learning policies train in and nfv-scaler:
//   persistence   the last measured rate (the reference any predictor must beat);
//   oracle        the true arrivals of the slots ahead (simulated systems
//                 only): what perfect prediction would be worth;
//   any predictor of predictor/ by name (last_value, ewma, seasonal_naive,
//                 holt_winters, rnn, ...), with its parameters.
// Predictors work in the trace's unit and time (Mbit/s, time of day); the
// forecaster maps the measured packets/s back through the trace mapping,
// feeds each slot at its trace time, and maps the forecast to packets/s.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "arrival_schedule.h"
#include "option_values.h"
#include "plan.h"
#include "system_model.h"

namespace nfv {

class Predictor;

struct ForecastSpec {
  std::string model = "persistence";
  NamedParams params;  // the predictor's
};
// "MODEL" or "MODEL:key=value,key=value" (the command lines' --forecast).
ForecastSpec parse_forecast_spec(const std::string& text);
std::string forecast_spec_text(const ForecastSpec& spec);

class Forecaster {
 public:
  // `truth`: the arrivals, for `oracle` (an error without them). Throws
  // std::invalid_argument naming an unknown model or parameter.
  Forecaster(const ForecastSpec& spec, const SystemModel& model, const TraceMapping& mapping,
             std::shared_ptr<const ArrivalSchedule> truth = nullptr);
  ~Forecaster();
  Forecaster(const Forecaster&) = delete;
  Forecaster& operator=(const Forecaster&) = delete;

  // What slot `slot` measured, packets/s per chain (missing chains read 0).
  void observe(std::span<const double> arrival_pps, std::size_t slot);
  // Rates of slots slot .. slot + horizon - 1 (at least one step). Before
  // anything was observed every forecast is 0.
  Forecast forecast(std::size_t slot, std::size_t horizon);
  // Forgets every observation (a new episode); the model's weights stay.
  void reset();
  // Observes the last `rows` slots of `history` (e.g. the trace's training
  // rows), each at its own trace time, before the first slot is measured.
  void warm_up(const ArrivalSchedule& history, std::size_t rows);

  const std::string& name() const { return name_; }
  // What the model did lately (fine-tunings), for the decision's reason.
  std::string note() const;

 private:
  void observe_at(std::span<const double> arrival_pps, double unix_s);

  ForecastSpec spec_;
  const SystemModel* model_;
  TraceMapping mapping_;
  std::shared_ptr<const ArrivalSchedule> truth_;
  std::string name_;
  std::unique_ptr<Predictor> predictor_;
  std::vector<double> last_pps_;  // persistence
  std::vector<double> rates_;     // in trace units
  bool observed_ = false;
};

// The history a forecaster learns before the first slot by default: a week of trace steps.
std::size_t default_warm_up_slots(double step_seconds);

// persistence, oracle and every registered predictor, with a description.
std::vector<std::pair<std::string, std::string>> forecast_models();

}  // namespace nfv
