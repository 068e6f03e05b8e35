// Line-oriented config files (rules, routes, signatures): '#' starts a
// comment, blank lines are skipped, fields are separated by whitespace.
// Errors name file:line and what was expected.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vnf.h"

namespace nfv {

struct TextLine {
  std::string file;
  int number = 0;
  std::string text;                 // without the comment
  std::vector<std::string> fields;  // whitespace-separated

  // A VnfConfigError for `param` naming file:line.
  [[noreturn]] void fail(const std::string& param, const std::string& expected) const;
};

// Calls `handle` for each non-empty line of `path`; a missing file is a VnfConfigError on `param`.
void read_text_file(const std::string& param, const std::string& path, const std::function<void(const TextLine&)>& handle);

// "10.0.0.0/8", "2001:db8::/32", a bare address (full length) or "any".
// Returns false when `text` is none of these. `family` is 4, 6, or 0 for "any".
struct Prefix {
  int family = 0;
  uint8_t addr[16] = {};  // network order
  int length = 0;
};
bool parse_prefix(const std::string& text, Prefix& out);

// "N", "N-M" or "any" (0-65535).
bool parse_port_range(const std::string& text, uint16_t& low, uint16_t& high);

// "aa:bb:cc:dd:ee:ff".
bool parse_mac(const std::string& text, uint8_t out[6]);

// Splits on `separator`, keeping empty pieces out.
std::vector<std::string> split(const std::string& text, char separator);

}  // namespace nfv
