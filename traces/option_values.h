// Values of command-line options and config fields shared by the tools that
// read traces (nfv-sim, nfv-train, nfv-scaler): numbers and rate units,
// with errors that name the option.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rate_trace.h"

namespace nfv {

// A finite number; throws std::invalid_argument "OPTION: expected a number, got 'TEXT'".
double option_number(const std::string& option, const std::string& text);
// A whole number >= 0.
std::size_t option_count(const std::string& option, const std::string& text);
// A whole number >= 1.
std::size_t option_positive_count(const std::string& option, const std::string& text);
// "a,b,,c" -> {"a", "b", "c"}.
std::vector<std::string> option_list(const std::string& text);
// "Mbit/s", "req/s" or "pkt/s"; empty text = none given.
std::optional<RateUnit> option_rate_unit(const std::string& option, const std::string& text);

// KEY=VALUE parameters of a component chosen by name (a policy, a
// predictor), as `--param KEY=VALUE` and config maps give them.
using NamedParams = std::map<std::string, std::string>;

// Reads the parameters of one component, rejecting any it does not know so
// that a typo never silently keeps a default. Errors name the component and
// the parameter: "policy online: parameter 'eta': expected a number, got 'x'".
class ParamReader {
 public:
  // `what`: e.g. "policy online"; `known`: every parameter it takes; one
  // ending in '.' takes every key it begins (another component's parameters).
  ParamReader(std::string what, const NamedParams& params, std::set<std::string> known);

  double number(const std::string& key, double fallback) const;
  std::uint32_t count(const std::string& key, std::uint32_t fallback) const;  // whole, >= 0
  std::string text(const std::string& key, const std::string& fallback) const;
  bool has(const std::string& key) const { return params_.count(key) != 0; }
  // The parameters whose keys begin with `prefix`, the prefix cut off.
  NamedParams prefixed(const std::string& prefix) const;
  const std::string& what() const { return what_; }

 private:
  std::string what_;
  const NamedParams& params_;
};

// "KEY=VALUE" -> params[KEY] = VALUE; throws naming `option` otherwise.
void add_named_param(const std::string& option, const std::string& pair, NamedParams& params);

}  // namespace nfv
