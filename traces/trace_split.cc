#include "trace_split.h"

#include <cmath>
#include <stdexcept>

#include "iso_time.h"
#include "option_values.h"

namespace nfv {

TraceSplit parse_trace_split(const std::string& text) {
  TraceSplit split;
  const auto colon = text.find(':');
  const std::string kind = text.substr(0, colon), value = colon == std::string::npos ? "" : text.substr(colon + 1);
  const std::string expected = "--split: expected blocks, none, fraction:F, rows:N or time:YYYY-MM-DDTHH:MM:SS, got '" + text + "'";
  if (kind == "blocks" && value.empty()) {
    split.kind = TraceSplit::Kind::blocks;
  } else if (kind == "none" && value.empty()) {
    split.kind = TraceSplit::Kind::none;
  } else if (kind == "fraction" && !value.empty()) {
    split.kind = TraceSplit::Kind::fraction;
    split.fraction = option_number("--split fraction", value);
    if (!(split.fraction > 0 && split.fraction < 1)) throw std::invalid_argument("--split fraction: expected a share in (0, 1), got '" + value + "'");
  } else if (kind == "rows" && !value.empty()) {
    split.kind = TraceSplit::Kind::rows;
    split.rows = option_count("--split rows", value);
  } else if (kind == "time" && !value.empty()) {
    split.kind = TraceSplit::Kind::time;
    const auto time = parse_iso_time(value);
    if (!time) throw std::invalid_argument(expected);
    split.time_unix_s = *time;
  } else {
    throw std::invalid_argument(expected);
  }
  return split;
}

std::string trace_split_text(const TraceSplit& split) {
  switch (split.kind) {
    case TraceSplit::Kind::blocks: return "blocks";
    case TraceSplit::Kind::none: return "none";
    case TraceSplit::Kind::fraction: {
      char text[32];
      std::snprintf(text, sizeof text, "fraction:%g", split.fraction);
      return text;
    }
    case TraceSplit::Kind::rows: return "rows:" + std::to_string(split.rows);
    case TraceSplit::Kind::time: return "time:" + format_iso_time(split.time_unix_s);
  }
  return "?";
}

TraceSplit default_trace_split(const RateTraceFile& file, bool needs_training) {
  TraceSplit split;
  if (file.blocks.size() >= 2) return split;
  split.kind = needs_training ? TraceSplit::Kind::fraction : TraceSplit::Kind::none;
  return split;
}

SplitTrace split_trace(const RateTraceFile& file, const TraceSplit& split, std::optional<std::size_t> test_block) {
  if (file.blocks.empty()) throw std::invalid_argument("the trace has no rows");
  const std::size_t block = test_block.value_or(file.blocks.size() - 1);
  if (block >= file.blocks.size())
    throw std::invalid_argument("--block: " + std::to_string(block) + ", the trace has " + std::to_string(file.blocks.size()) +
                                " blocks (0-based)");
  const RateTrace& tested = file.blocks[block];
  SplitTrace out;
  std::size_t cut = 0;
  switch (split.kind) {
    case TraceSplit::Kind::blocks:
      if (block == 0)
        throw std::invalid_argument("--split blocks: no block before block 0 to train on (the trace has " +
                                    std::to_string(file.blocks.size()) + "; try --split fraction:0.75)");
      out.train = file.blocks[block - 1];
      out.test = tested;
      out.description = "train on block " + std::to_string(block - 1) + " (" + out.train.label + ", " +
                        std::to_string(out.train.rows()) + " rows), test on block " + std::to_string(block) + " (" +
                        out.test.label + ", " + std::to_string(out.test.rows()) + " rows)";
      return out;
    case TraceSplit::Kind::none:
      out.test = tested;
      out.train = tested;
      out.train.values.clear();
      out.train.label = "no rows";
      out.description = "test on block " + std::to_string(block) + " (" + tested.label + ", " +
                        std::to_string(tested.rows()) + " rows), no training rows";
      return out;
    case TraceSplit::Kind::fraction:
      cut = static_cast<std::size_t>(std::llround(split.fraction * static_cast<double>(tested.rows())));
      break;
    case TraceSplit::Kind::rows:
      cut = split.rows;
      break;
    case TraceSplit::Kind::time: {
      if (!tested.start_unix_s) throw std::invalid_argument("--split time: the trace has no timestamps");
      const double rows = (static_cast<double>(split.time_unix_s - *tested.start_unix_s)) / tested.step_seconds;
      cut = rows <= 0 ? 0 : static_cast<std::size_t>(std::ceil(rows));
      break;
    }
  }
  if (cut == 0 || cut >= tested.rows())
    throw std::invalid_argument("--split " + trace_split_text(split) + ": block " + std::to_string(block) + " has " +
                                std::to_string(tested.rows()) + " rows; the split leaves " + std::to_string(std::min(cut, tested.rows())) +
                                " to train and " + std::to_string(tested.rows() - std::min(cut, tested.rows())) +
                                " to test: both need at least one");
  out.train = tested.slice(0, cut);
  out.test = tested.slice(cut, tested.rows() - cut);
  out.description = "block " + std::to_string(block) + " (" + tested.label + ") split " + trace_split_text(split) + ": " +
                    std::to_string(out.train.rows()) + " rows train, " + std::to_string(out.test.rows()) + " rows test";
  return out;
}

}  // namespace nfv
