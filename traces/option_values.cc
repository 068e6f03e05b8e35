#include "option_values.h"

#include <cmath>
#include <stdexcept>

namespace nfv {

double option_number(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(option + ": expected a number, got '" + text + "'");
}

std::size_t option_count(const std::string& option, const std::string& text) {
  const double value = option_number(option, text);
  if (value < 0 || value != std::floor(value))
    throw std::invalid_argument(option + ": expected a whole number >= 0, got '" + text + "'");
  return static_cast<std::size_t>(value);
}

std::optional<RateUnit> option_rate_unit(const std::string& option, const std::string& text) {
  if (text.empty()) return std::nullopt;
  for (RateUnit unit : {RateUnit::mbit_per_s, RateUnit::requests_per_s, RateUnit::packets_per_s})
    if (text == unit_name(unit)) return unit;
  throw std::invalid_argument(option + ": expected Mbit/s, req/s or pkt/s, got '" + text + "'");
}

}  // namespace nfv
