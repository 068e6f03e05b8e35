#include "iso_time.h"

#include <charconv>
#include <chrono>
#include <cstdio>

namespace nfv {
namespace {

bool read_int(std::string_view text, std::size_t at, std::size_t width, int& out) {
  if (at + width > text.size()) return false;
  const char* first = text.data() + at;
  auto [end, ec] = std::from_chars(first, first + width, out);
  return ec == std::errc() && end == first + width;
}

}  // namespace

std::optional<std::int64_t> parse_iso_time(std::string_view text) {
  if (text.ends_with('Z')) text.remove_suffix(1);
  int year, month, day, hour, minute, second = 0;
  const bool date_ok = text.size() >= 16 && read_int(text, 0, 4, year) && text[4] == '-' &&
                       read_int(text, 5, 2, month) && text[7] == '-' && read_int(text, 8, 2, day) &&
                       (text[10] == 'T' || text[10] == ' ') && read_int(text, 11, 2, hour) && text[13] == ':' &&
                       read_int(text, 14, 2, minute);
  if (!date_ok) return std::nullopt;
  if (text.size() != 16 && !(text.size() == 19 && text[16] == ':' && read_int(text, 17, 2, second)))
    return std::nullopt;
  using namespace std::chrono;
  const year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                            std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  return sys_days(date).time_since_epoch().count() * 86400LL + hour * 3600LL + minute * 60LL + second;
}

std::string format_iso_time(std::int64_t unix_seconds) {
  using namespace std::chrono;
  const auto days = static_cast<int>(unix_seconds >= 0 ? unix_seconds / 86400 : (unix_seconds - 86399) / 86400);
  const std::int64_t in_day = unix_seconds - static_cast<std::int64_t>(days) * 86400;
  const year_month_day date{sys_days{std::chrono::days{days}}};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), static_cast<int>(in_day / 3600),
                static_cast<int>(in_day / 60 % 60), static_cast<int>(in_day % 60));
  return text;
}

}  // namespace nfv
