// ISO-8601 timestamps of trace files ("2004-03-01T00:05:00", optional "Z",
// no other offsets) <-> seconds since 1970 (UTC, or whatever zone the file
// means: only differences matter to a trace).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nfv {

std::optional<std::int64_t> parse_iso_time(std::string_view text);
std::string format_iso_time(std::int64_t unix_seconds);

}  // namespace nfv
