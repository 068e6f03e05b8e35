// NASA-KSC HTTP request counts per 5-minute bin (traffic/nasa), read as a
// request rate per log segment, with the server's outages found.
#include <stdexcept>

#include "csv_table.h"
#include "iso_time.h"
#include "rate_trace.h"

namespace nfv {
namespace {

// A server answering nobody for an hour is down, not quiet: the quietest
// night hours of this log still see requests.
constexpr double kOutageSeconds = 3600;

}  // namespace

std::vector<NasaSegment> load_nasa_requests(const std::string& csv_path) {
  const CsvTable table = read_csv_table(csv_path);
  const std::size_t time = table.column("approx_bin_start_edt");
  const std::size_t segment = table.column("segment");
  const std::size_t requests = table.column("requests_in_bin");
  const std::size_t seconds = table.column("bin_seconds");
  if (table.rows.empty()) throw std::runtime_error(csv_path + ": expected rows of request counts");

  std::vector<NasaSegment> segments;
  double full_bin_seconds = 0;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const std::string& name = table.rows[r][segment];
    if (segments.empty() || segments.back().requests.label != name) {
      for (const NasaSegment& earlier : segments)
        if (earlier.requests.label == name) table.fail(r, segment, "each segment in one run of rows");
      NasaSegment next;
      next.requests.label = name;
      next.requests.unit = RateUnit::requests_per_s;
      next.requests.columns = {"requests"};
      const auto start = parse_iso_time(table.rows[r][time]);
      if (!start) table.fail(r, time, "an ISO-8601 time");
      next.requests.start_unix_s = *start;
      segments.push_back(next);
    }
    const double count = table.number(r, requests);
    const double bin = table.number(r, seconds);
    if (count < 0) table.fail(r, requests, "a count >= 0");
    if (!(bin > 0)) table.fail(r, seconds, "a bin length > 0");
    if (full_bin_seconds == 0) full_bin_seconds = bin;
    segments.back().requests.values.push_back(count / bin);
  }
  for (NasaSegment& s : segments) {
    s.requests.step_seconds = full_bin_seconds;
    s.outages = find_outages(s.requests, static_cast<std::size_t>(kOutageSeconds / full_bin_seconds));
  }
  return segments;
}

}  // namespace nfv
