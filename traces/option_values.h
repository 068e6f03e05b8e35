// Values of command-line options and config fields shared by the tools that
// read traces (nfv-sim, nfv-train, nfv-scaler): numbers and rate units,
// with errors that name the option.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "rate_trace.h"

namespace nfv {

// A finite number; throws std::invalid_argument "OPTION: expected a number, got 'TEXT'".
double option_number(const std::string& option, const std::string& text);
// A whole number >= 0.
std::size_t option_count(const std::string& option, const std::string& text);
// "Mbit/s", "req/s" or "pkt/s"; empty text = none given.
std::optional<RateUnit> option_rate_unit(const std::string& option, const std::string& text);

}  // namespace nfv
