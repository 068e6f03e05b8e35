#include "text_file.h"

#include <arpa/inet.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace nfv {

void TextLine::fail(const std::string& param, const std::string& expected) const {
  throw VnfConfigError(param, file + ":" + std::to_string(number) + ": " + expected + " (line: '" + text + "')");
}

void read_text_file(const std::string& param, const std::string& path, const std::function<void(const TextLine&)>& handle) {
  std::ifstream in(path);
  if (!in) throw VnfConfigError(param, "a readable file, cannot open '" + path + "'");
  TextLine line;
  line.file = path;
  std::string raw;
  while (std::getline(in, raw)) {
    ++line.number;
    // A '#' inside double quotes (signature contents) is not a comment.
    bool quoted = false;
    size_t end = raw.size();
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && quoted) { ++i; continue; }
      if (raw[i] == '"') quoted = !quoted;
      if (raw[i] == '#' && !quoted) { end = i; break; }
    }
    line.text = raw.substr(0, end);
    while (!line.text.empty() && std::isspace(static_cast<unsigned char>(line.text.back()))) line.text.pop_back();
    std::istringstream fields(line.text);
    line.fields.clear();
    for (std::string f; fields >> f;) line.fields.push_back(f);
    if (!line.fields.empty()) handle(line);
  }
}

static bool parse_int(const std::string& text, int min, int max, int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= min && out <= max;
}

bool parse_prefix(const std::string& text, Prefix& out) {
  out = Prefix{};
  if (text == "any") return true;
  const size_t slash = text.find('/');
  const std::string addr = text.substr(0, slash);
  if (inet_pton(AF_INET, addr.c_str(), out.addr) == 1) out.family = 4;
  else if (inet_pton(AF_INET6, addr.c_str(), out.addr) == 1) out.family = 6;
  else return false;
  const int max = out.family == 4 ? 32 : 128;
  out.length = max;
  if (slash != std::string::npos && !parse_int(text.substr(slash + 1), 0, max, out.length)) return false;
  // Bits past the length are cleared so equal prefixes compare equal.
  for (int bit = out.length; bit < max; ++bit) out.addr[bit / 8] &= static_cast<uint8_t>(~(0x80 >> (bit % 8)));
  return true;
}

bool parse_port_range(const std::string& text, uint16_t& low, uint16_t& high) {
  if (text == "any") {
    low = 0;
    high = 65535;
    return true;
  }
  const size_t dash = text.find('-');
  int lo, hi;
  if (!parse_int(text.substr(0, dash), 0, 65535, lo)) return false;
  hi = lo;
  if (dash != std::string::npos && !parse_int(text.substr(dash + 1), 0, 65535, hi)) return false;
  if (hi < lo) return false;
  low = static_cast<uint16_t>(lo);
  high = static_cast<uint16_t>(hi);
  return true;
}

bool parse_mac(const std::string& text, uint8_t out[6]) {
  unsigned b[6];
  char tail;
  if (std::sscanf(text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6) return false;
  for (int i = 0; i < 6; ++i) out[i] = static_cast<uint8_t>(b[i]);
  return true;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::string piece;
  std::istringstream in(text);
  while (std::getline(in, piece, separator))
    if (!piece.empty()) out.push_back(piece);
  return out;
}

}  // namespace nfv
