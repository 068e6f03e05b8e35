// The forecast each decision plans for: persistence, or a predictor from
// predictor/ (a baseline or the LibTorch RNN, optionally fine-tuned online
// on a background thread). The predictors work in the trace's unit (e.g.
// Mbit/s, what the RNN was trained on) and in trace time (time-of-day
// features); the scaler observes emulated packets/s in slots, so the
// forecaster maps both ways with the setup's emulation scale.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "plan.h"
#include "scaler_setup.h"

namespace nfv {

class Predictor;

class Forecaster {
 public:
  // Throws std::runtime_error naming the config field on a bad choice.
  explicit Forecaster(const ScalerSetup& setup);
  ~Forecaster();

  // Feeds the measured slot `slot - 1` (the observation) and forecasts
  // `horizon` slots from `slot` on.
  Forecast forecast(const Observation& observation, std::size_t horizon, std::uint64_t slot);
  std::string name() const { return name_; }
  // What the model did lately (fine-tunings), for the reason; empty when nothing.
  std::string note() const;

 private:
  std::string name_;
  std::unique_ptr<Predictor> predictor_;
  class RnnPredictor* rnn_ = nullptr;  // predictor_, when it is the RNN
  double pps_per_unit_ = 1;            // emulated packets/s per trace unit
  double start_unix_s_ = 0;            // trace time of slot 0
  double step_seconds_ = 300;          // trace time per slot
  std::size_t chains_ = 0;
  std::vector<double> rates_;
};

}  // namespace nfv
