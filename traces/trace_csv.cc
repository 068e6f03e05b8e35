// Our CSV rate-trace format (docs/traces.md): a `slot` or `timestamp`
// column, then one column per chain or SRC->DST pair; units in a
// "# units:" comment or in the column names ("video [Mbit/s]").
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "csv_table.h"
#include "iso_time.h"
#include "rate_trace.h"

namespace nfv {
namespace {

// A declared unit and the factor that brings it to the unit we store.
struct DeclaredUnit {
  RateUnit unit;
  double to_stored;
};

std::optional<DeclaredUnit> parse_unit(std::string_view text) {
  if (text == "Mbit/s" || text == "Mbps") return DeclaredUnit{RateUnit::mbit_per_s, 1.0};
  if (text == "kbit/s" || text == "kbps") return DeclaredUnit{RateUnit::mbit_per_s, 1e-3};
  if (text == "Gbit/s" || text == "Gbps") return DeclaredUnit{RateUnit::mbit_per_s, 1e3};
  if (text == "bit/s" || text == "bps") return DeclaredUnit{RateUnit::mbit_per_s, 1e-6};
  if (text == "req/s") return DeclaredUnit{RateUnit::requests_per_s, 1.0};
  if (text == "pkt/s") return DeclaredUnit{RateUnit::packets_per_s, 1.0};
  return std::nullopt;
}

constexpr const char* kUnitNames = "Mbit/s, kbit/s, Gbit/s, bit/s, req/s or pkt/s";

// "# key: value" comments.
std::optional<std::string> comment_value(const CsvTable& table, const std::string& key) {
  for (const std::string& comment : table.comments)
    if (comment.starts_with(key + ":")) {
      std::string value = comment.substr(key.size() + 1);
      value.erase(0, value.find_first_not_of(' '));
      return value;
    }
  return std::nullopt;
}

bool is_missing(const std::string& cell) {
  return cell.empty() || cell == "NaN" || cell == "nan" || cell == "NA" || cell == "N/A";
}

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

class TraceCsvReader {
 public:
  TraceCsvReader(const std::string& path, std::optional<RateUnit> default_unit)
      : table_(read_csv_table(path)), default_unit_(default_unit) {}

  RateTraceFile read() {
    const std::string& time_column = table_.header.front();
    by_timestamp_ = time_column == "timestamp";
    if (!by_timestamp_ && time_column != "slot")
      throw std::runtime_error(table_.file + ": expected 'slot' or 'timestamp' as the first column, got '" +
                               time_column + "'");
    if (table_.header.size() < 2) throw std::runtime_error(table_.file + ": expected at least one rate column");
    if (table_.rows.empty()) throw std::runtime_error(table_.file + ": expected at least one row of rates");
    read_columns();
    read_times();
    RateTraceFile out;
    std::size_t block_start = 0;
    for (std::size_t r = 1; r <= table_.rows.size(); ++r) {
      if (r < table_.rows.size() && times_[r] - times_[r - 1] == step_) continue;
      if (r < table_.rows.size())
        out.gaps.time_gaps.push_back({time_text(r - 1), time_text(r), (times_[r] - times_[r - 1]) / step_ - 1});
      out.blocks.push_back(block(block_start, r, out.gaps));
      block_start = r;
    }
    return out;
  }

 private:
  void read_columns() {
    std::optional<DeclaredUnit> file_unit;
    if (auto text = comment_value(table_, "units")) {
      file_unit = parse_unit(*text);
      if (!file_unit) throw std::runtime_error(table_.file + ": '# units:' expected one of " + kUnitNames + ", got '" + *text + "'");
    }
    for (std::size_t c = 1; c < table_.header.size(); ++c) {
      std::string name = table_.header[c];
      std::optional<DeclaredUnit> unit = file_unit;
      if (const auto open = name.rfind(" ["); open != std::string::npos && name.ends_with(']')) {
        const std::string text = name.substr(open + 2, name.size() - open - 3);
        unit = parse_unit(text);
        if (!unit) throw std::runtime_error(table_.file + ": column '" + name + "': expected a unit among " + kUnitNames);
        name.resize(open);
      }
      if (!unit && default_unit_) unit = DeclaredUnit{*default_unit_, 1.0};
      if (!unit)
        throw std::runtime_error(table_.file + ": column '" + name + "': expected units in a '# units: ...' comment line "
                                 "or in the name ('" + name + " [Mbit/s]')");
      if (c > 1 && unit->unit != units_.front().unit)
        throw std::runtime_error(table_.file + ": column '" + name + "': expected the same kind of unit as '" +
                                 names_.front() + "' (" + unit_name(units_.front().unit) + ")");
      names_.push_back(name);
      units_.push_back(*unit);
    }
  }

  // Row times in seconds; the step is the first difference (timestamps) or
  // "# step_seconds:" (slots, default 1).
  void read_times() {
    for (std::size_t r = 0; r < table_.rows.size(); ++r) {
      if (by_timestamp_) {
        const auto t = parse_iso_time(table_.rows[r][0]);
        if (!t) table_.fail(r, 0, "an ISO-8601 time like 2004-03-01T00:05:00");
        times_.push_back(static_cast<double>(*t));
      } else {
        const double slot = table_.number(r, 0);
        if (slot != std::floor(slot)) table_.fail(r, 0, "an integer slot");
        times_.push_back(slot);
      }
      if (r > 0 && times_[r] <= times_[r - 1]) table_.fail(r, 0, "a time after the previous row's");
    }
    if (by_timestamp_) {
      step_ = table_.rows.size() > 1 ? times_[1] - times_[0] : 1;
      step_seconds_ = step_;
    } else {
      step_ = 1;
      if (auto text = comment_value(table_, "step_seconds")) {
        step_seconds_ = std::strtod(text->c_str(), nullptr);
        if (!(step_seconds_ > 0)) throw std::runtime_error(table_.file + ": '# step_seconds:' expected a number > 0, got '" + *text + "'");
      }
    }
    for (std::size_t r = 1; r < times_.size(); ++r) {
      const double steps = (times_[r] - times_[r - 1]) / step_;
      if (steps != std::floor(steps))
        table_.fail(r, 0, "a whole number of " + format_number(step_seconds_) + "-s steps after the previous row");
    }
  }

  std::string time_text(std::size_t r) const { return table_.rows[r][0]; }

  RateTrace block(std::size_t first, std::size_t end, TraceGaps& gaps) const {
    RateTrace trace;
    trace.label = time_text(first) + ".." + time_text(end - 1);
    trace.step_seconds = step_seconds_;
    if (by_timestamp_) trace.start_unix_s = static_cast<std::int64_t>(times_[first]);
    trace.unit = units_.front().unit;
    trace.columns = names_;
    trace.values.reserve((end - first) * names_.size());
    for (std::size_t r = first; r < end; ++r) {
      for (std::size_t c = 1; c < table_.header.size(); ++c) {
        const std::string& cell = table_.rows[r][c];
        if (is_missing(cell)) {
          if (gaps.first_missing.size() < 10)
            gaps.first_missing.push_back(table_.file + ":" + std::to_string(table_.row_lines[r]) + ": column '" +
                                         table_.header[c] + "'");
          ++gaps.missing_values;
          trace.values.push_back(0.0);
          continue;
        }
        const double value = table_.number(r, c);
        if (value < 0) table_.fail(r, c, "a rate >= 0");
        trace.values.push_back(value * units_[c - 1].to_stored);
      }
    }
    return trace;
  }

  CsvTable table_;
  std::optional<RateUnit> default_unit_;
  bool by_timestamp_ = false;
  std::vector<std::string> names_;
  std::vector<DeclaredUnit> units_;
  std::vector<double> times_;
  double step_ = 1;          // in the time column's own units
  double step_seconds_ = 1;  // trace time per row
};

}  // namespace

RateTraceFile read_rate_trace_csv(const std::string& path, std::optional<RateUnit> default_unit) {
  return TraceCsvReader(path, default_unit).read();
}

std::string rate_trace_to_csv(const RateTrace& trace) { return rate_trace_to_csv(std::vector<RateTrace>{trace}); }

std::string rate_trace_to_csv(const std::vector<RateTrace>& blocks) {
  if (blocks.empty()) throw std::invalid_argument("rate_trace_to_csv: no rows to write");
  const RateTrace& first = blocks.front();
  const bool timed = first.start_unix_s.has_value();
  for (const RateTrace& block : blocks)
    if (block.columns != first.columns || block.unit != first.unit || block.step_seconds != first.step_seconds ||
        block.start_unix_s.has_value() != timed || (blocks.size() > 1 && !timed))
      throw std::invalid_argument("rate_trace_to_csv: blocks of one file need the same columns, unit, step and timestamps");
  std::ostringstream out;
  out << "# units: " << unit_name(first.unit) << "\n# step_seconds: " << format_number(first.step_seconds) << "\n"
      << (timed ? "timestamp" : "slot");
  for (const std::string& column : first.columns) out << "," << column;
  out << "\n";
  for (const RateTrace& trace : blocks)
    for (std::size_t r = 0; r < trace.rows(); ++r) {
      if (timed) out << format_iso_time(*trace.start_unix_s + static_cast<std::int64_t>(std::llround(static_cast<double>(r) * trace.step_seconds)));
      else out << r;
      for (std::size_t c = 0; c < trace.columns.size(); ++c) out << "," << format_number(trace.at(r, c));
      out << "\n";
    }
  return out.str();
}

}  // namespace nfv
