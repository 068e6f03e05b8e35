// A configuration mistake, located: the file, the line, the field path
// (e.g. "chains[0].hops[1].site") and what was expected there.
#pragma once

#include <stdexcept>
#include <string>

namespace nfv {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string field, std::string expected)
      : std::runtime_error(field + ": expected " + expected), field_(std::move(field)), expected_(std::move(expected)) {}

  const std::string& field() const { return field_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string field_;
  std::string expected_;
};

}  // namespace nfv
