#include "option_values.h"

#include <cmath>
#include <sstream>
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

std::size_t option_positive_count(const std::string& option, const std::string& text) {
  const std::size_t value = option_count(option, text);
  if (value == 0) throw std::invalid_argument(option + ": expected at least 1, got '" + text + "'");
  return value;
}

std::vector<std::string> option_list(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

std::optional<RateUnit> option_rate_unit(const std::string& option, const std::string& text) {
  if (text.empty()) return std::nullopt;
  for (RateUnit unit : {RateUnit::mbit_per_s, RateUnit::requests_per_s, RateUnit::packets_per_s})
    if (text == unit_name(unit)) return unit;
  throw std::invalid_argument(option + ": expected Mbit/s, req/s or pkt/s, got '" + text + "'");
}

ParamReader::ParamReader(std::string what, const NamedParams& params, std::set<std::string> known)
    : what_(std::move(what)), params_(params) {
  const auto is_known = [&](const std::string& key) {
    if (known.count(key) && (key.empty() || key.back() != '.')) return true;
    for (const std::string& k : known)
      if (!k.empty() && k.back() == '.' && key.size() > k.size() && key.compare(0, k.size(), k) == 0) return true;
    return false;
  };
  for (const auto& [key, value] : params)
    if (!is_known(key)) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      throw std::invalid_argument(what_ + ": unknown parameter '" + key + "' (known: " + (list.empty() ? "none" : list) +
                                  ")");
    }
}

NamedParams ParamReader::prefixed(const std::string& prefix) const {
  NamedParams out;
  for (const auto& [key, value] : params_)
    if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0) out[key.substr(prefix.size())] = value;
  return out;
}

double ParamReader::number(const std::string& key, double fallback) const {
  const auto it = params_.find(key);
  if (it == params_.end()) return fallback;
  return option_number(what_ + ": parameter '" + key + "'", it->second);
}

std::uint32_t ParamReader::count(const std::string& key, std::uint32_t fallback) const {
  const auto it = params_.find(key);
  if (it == params_.end()) return fallback;
  const std::size_t value = option_count(what_ + ": parameter '" + key + "'", it->second);
  if (value > UINT32_MAX)
    throw std::invalid_argument(what_ + ": parameter '" + key + "': expected at most " + std::to_string(UINT32_MAX));
  return static_cast<std::uint32_t>(value);
}

std::string ParamReader::text(const std::string& key, const std::string& fallback) const {
  const auto it = params_.find(key);
  return it == params_.end() ? fallback : it->second;
}

void add_named_param(const std::string& option, const std::string& pair, NamedParams& params) {
  const auto equals = pair.find('=');
  if (equals == std::string::npos || equals == 0)
    throw std::invalid_argument(option + ": expected KEY=VALUE, got '" + pair + "'");
  params[pair.substr(0, equals)] = pair.substr(equals + 1);
}

}  // namespace nfv
