// How a trace divides into the rows a model learns from (train) and the
// rows it is judged on (test), the same way in every tool that takes
// --split: nfv-sim, the benches, nfv-train.
//   blocks          train on the block before the test block (Abilene:
//                   March, then April);
//   none            test on the whole block, train on nothing;
//   fraction:F      the test block's first F of rows train, the rest test;
//   rows:N          its first N rows train, the rest test;
//   time:ISO        rows before that time train, the rest test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "rate_trace.h"

namespace nfv {

struct TraceSplit {
  enum class Kind { blocks, none, fraction, rows, time };
  Kind kind = Kind::blocks;
  double fraction = 0.75;
  std::size_t rows = 0;
  std::int64_t time_unix_s = 0;
};
// Throws std::invalid_argument naming the text.
TraceSplit parse_trace_split(const std::string& text);
std::string trace_split_text(const TraceSplit& split);

struct SplitTrace {
  RateTrace train, test;
  std::string description;  // for a run's header
};
// `test_block`: the block tested on (default the last). Throws naming what
// does not fit (no block before the first, a split leaving no rows).
SplitTrace split_trace(const RateTraceFile& file, const TraceSplit& split, std::optional<std::size_t> test_block = {});
// `blocks` where the file has two blocks or more; else fraction:0.75 when
// training rows are needed, none when not.
TraceSplit default_trace_split(const RateTraceFile& file, bool needs_training);

}  // namespace nfv
