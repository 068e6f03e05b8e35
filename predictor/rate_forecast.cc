// The helpers every predictor shares.
#include <stdexcept>

#include "predictor.h"

namespace nfv {

double row_start_unix_s(const RateTrace& trace, std::size_t row) {
  return static_cast<double>(trace.start_unix_s.value_or(0)) + static_cast<double>(row) * trace.step_seconds;
}

void observe_all(Predictor& predictor, const RateTrace& trace) {
  if (trace.columns.size() != predictor.chains())
    throw std::invalid_argument(predictor.name() + ": " + std::to_string(predictor.chains()) + " chains, trace " +
                                trace.label + " has " + std::to_string(trace.columns.size()));
  const std::size_t width = trace.columns.size();
  for (std::size_t r = 0; r < trace.rows(); ++r)
    predictor.observe(std::span<const double>(trace.values.data() + r * width, width), row_start_unix_s(trace, r));
}

}  // namespace nfv
