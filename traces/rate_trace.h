// Rate traces: how much traffic each chain (or SRC->DST pair) offers in
// each trace step, read from CSV (docs/traces.md), from the real traces in
// ../shared/data/traffic (Abilene OD matrices, NASA HTTP requests), or made
// by generators for tests; and the one mapping from trace time and volume
// onto the emulation's slots, wall seconds and packets/s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology.h"

namespace nfv {

enum class RateUnit { mbit_per_s, requests_per_s, packets_per_s };
std::string unit_name(RateUnit unit);  // "Mbit/s", "req/s", "pkt/s"

// A contiguous stretch of a trace: every row is one step after the previous.
struct RateTrace {
  std::string label;            // e.g. "2004-03-01T00:00:00..2004-03-14T23:55:00" or "aug"
  double step_seconds = 1;      // trace time covered by one row
  std::optional<std::int64_t> start_unix_s;  // start of the first row, when the file had timestamps
  RateUnit unit = RateUnit::mbit_per_s;
  std::vector<std::string> columns;  // chain names or "SRC->DST"
  std::vector<double> values;        // row-major: values[row * columns.size() + column]

  std::size_t rows() const { return columns.empty() ? 0 : values.size() / columns.size(); }
  double at(std::size_t row, std::size_t column) const { return values[row * columns.size() + column]; }
  // Throws naming the column and the trace when absent.
  std::size_t column_index(std::string_view name) const;
  std::vector<double> column(std::size_t column) const;
  std::vector<double> column_sums() const;  // per column, over all rows
  std::vector<double> slot_totals() const;  // per row, over all columns
  // Rows [first, first + count), with the start time moved along.
  RateTrace slice(std::size_t first, std::size_t count) const;
  // Every `stride`th row from the first (time compression: a row then covers
  // stride x step_seconds of the original).
  RateTrace every(std::size_t stride) const;
  // Rates averaged over steps of `step_seconds`, a whole multiple of this
  // trace's step (e.g. 5-minute rows into 15-minute or hourly ones); a last
  // partial step is left out. Throws naming the steps otherwise.
  RateTrace resampled(double new_step_seconds) const;
};

// Slots in one day of trace steps (the daily period of a diurnal trace):
// 288 for 5-minute steps, 96 for 15 minutes, 24 for hours; 1 for steps of a
// day or more. Every default that speaks of days (predictor periods,
// validation windows, warm-ups) is counted through this, never as 288.
std::size_t daily_period_slots(double step_seconds);

// What a loader found missing, so that nothing becomes NaN silently.
struct TraceGaps {
  // Empty, NaN or NA cells: they read as 0 and are counted here.
  std::size_t missing_values = 0;
  std::vector<std::string> first_missing;  // "file:line: column 'X'" for up to 10
  // Breaks in time between consecutive rows: the trace is split there.
  struct TimeGap {
    std::string after;   // timestamp (or slot) of the last row before the gap
    std::string before;  // first row after it
    double missing_steps = 0;
  };
  std::vector<TimeGap> time_gaps;
};

// A trace file: contiguous blocks (split at every time gap) and what was missing.
struct RateTraceFile {
  std::vector<RateTrace> blocks;
  TraceGaps gaps;
};

// Reads our CSV rate-trace format (docs/traces.md). `default_unit` applies
// when neither a "# units:" comment nor the column names declare one; with
// neither, it is an error. Errors name the file, the line and the column.
RateTraceFile read_rate_trace_csv(const std::string& path, std::optional<RateUnit> default_unit = std::nullopt);
// Writes `trace` in the same format (slot column, units and step comments).
// With a timestamp column when the trace has a start time, else slots.
std::string rate_trace_to_csv(const RateTrace& trace);
// Several blocks of one file (same columns, unit and step, timestamped):
// the gaps between them stay gaps.
std::string rate_trace_to_csv(const std::vector<RateTrace>& blocks);

// --- Abilene origin-destination matrices (traffic/abilene) -----------------

// The Abilene file is our format with timestamps and SRC->DST columns in
// Mbit/s; its blocks are the contiguous stretches (March, April).
RateTraceFile load_abilene_traffic(const std::string& csv_path);

// "ATLAM5->CHINng" -> {"ATLAM5", "CHINng"}; nullopt when not a pair.
std::optional<std::pair<std::string, std::string>> od_pair(std::string_view column);
// Whether every column of `trace` is a SRC->DST pair (and it has some).
bool all_od_pairs(const RateTrace& trace);
// One chain per SRC->DST column, named like the column, from the ingress
// site SRC to the egress site DST of `topology`, through `vnfs` (VNF type
// names) with `sla_latency_ms`. Throws naming a column whose site or a VNF
// type the topology lacks.
std::vector<Chain> chains_for_od_pairs(const RateTrace& trace, const Topology& topology,
                                       const std::vector<std::string>& vnfs, double sla_latency_ms);
// Per-site ingress: one column per source site (first-seen order), each row
// the sum of that site's SITE->* columns.
RateTrace ingress_per_site(const RateTrace& od_trace);

// --- NASA-KSC HTTP requests (traffic/nasa) ----------------------------------

// A stretch with no requests at all for a long time: the server was down.
struct Outage {
  std::size_t first_row = 0;
  std::size_t rows = 0;
};
// Runs of at least `min_rows` rows whose every column is 0.
std::vector<Outage> find_outages(const RateTrace& trace, std::size_t min_rows);

struct NasaSegment {
  RateTrace requests;            // one column "requests", req/s, 300-s steps; label = segment name
  std::vector<Outage> outages;   // zero runs of an hour or more
};
// One segment per log file (jul, aug), never joined: the July log ends days
// before the August one starts. Rates are requests_in_bin / bin_seconds, so
// the short last bin of each segment is a true rate too.
std::vector<NasaSegment> load_nasa_requests(const std::string& csv_path);

// --- Generators for tests (deterministic for a seed) -------------------------

struct DiurnalShape {
  std::size_t rows = 288;
  double step_seconds = 300;
  double period_seconds = 86400;
  double mean = 1;
  double amplitude = 0.5;       // peak = mean + amplitude (before noise)
  double noise_stddev = 0;      // Gaussian, absolute; rates never go below 0
  std::uint64_t seed = 1;
};
RateTrace diurnal_trace(const std::string& column, const DiurnalShape& shape, RateUnit unit);

struct StepShape {
  std::size_t rows = 100;
  double step_seconds = 1;
  double before = 1;
  double after = 2;
  std::size_t step_row = 50;    // first row at `after`
};
RateTrace step_trace(const std::string& column, const StepShape& shape, RateUnit unit);

struct FlashCrowdShape {
  std::size_t rows = 200;
  double step_seconds = 1;
  double base = 1;
  double peak = 10;
  std::size_t start_row = 50;   // the ramp starts here
  std::size_t ramp_rows = 10;   // linear rise from base to peak
  std::size_t hold_rows = 20;   // at peak
  double decay_rows = 20;       // then exponential decay towards base, this time constant
};
RateTrace flash_crowd_trace(const std::string& column, const FlashCrowdShape& shape, RateUnit unit);

// --- Emulation mapping --------------------------------------------------------

// One trace step becomes one slot of the scaler, which lasts slot_wall_seconds
// of wall time; rates become packets/s through a packet size and a volume scale.
struct EmulationScale {
  double trace_step_seconds = 300;
  double slot_wall_seconds = 1;
  double mean_packet_bytes = 1024;    // for Mbit/s
  double bytes_per_request = 10240;   // for req/s: mean response size
  double volume_scale = 1;            // emulated / real traffic

  double wall_seconds_of_slot(std::size_t slot) const { return static_cast<double>(slot) * slot_wall_seconds; }
  double trace_seconds_of_slot(std::size_t slot) const { return static_cast<double>(slot) * trace_step_seconds; }
  std::size_t slot_of_wall_seconds(double wall_seconds) const;
  // Packets/s of the real traffic for one unit of `unit`, before the scale.
  double real_packets_per_s_per_unit(RateUnit unit) const;
  // Packets/s the emulation sends for `rate` in `unit`.
  double emulated_packets_per_s(double rate, RateUnit unit) const;
  // The line printed at start, e.g. "1 trace step (300 s) = 1 slot = 2.0 s
  // wall; 1 Mbit/s = 122.07 pkt/s at 1024 B x scale 0.01 = 1.2207 pkt/s emulated".
  std::string describe(RateUnit unit) const;
};

}  // namespace nfv
