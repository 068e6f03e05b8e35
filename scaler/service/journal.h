// The decision journal: one JSON line per slot (proto/scaler.proto
// JournalEntry): the inputs, the forecast, the plan, the reason, the cost.
// A restarted scaler reads it back and resumes after its last slot. It is
// bounded: past a size the file rotates to PATH.1.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "scaler.pb.h"

namespace nfv {

class Journal {
 public:
  // Appends to `path` (created if absent), after cutting off a last line
  // torn by a crash; throws naming the file when it cannot. Once the file
  // holds `rotate_bytes` or more (0: never), it is renamed to path.1,
  // replacing the one before, and a new file starts.
  explicit Journal(const std::string& path, std::uint64_t rotate_bytes = 0);
  // One line, flushed: a crash loses at most the line being written.
  void write(const scaler::JournalEntry& entry);

  // Every entry of the journal, oldest first: path.1's, then path's. A torn
  // last line (a crash mid-write) is left out, any other bad line is an
  // error naming the file and line.
  static std::vector<scaler::JournalEntry> read(const std::string& path);
  // Where a rotated journal's older part is.
  static std::string rotated_path(const std::string& path) { return path + ".1"; }

 private:
  void rotate();

  std::string path_;
  std::uint64_t rotate_bytes_;
  std::uint64_t bytes_ = 0;  // in the file now
  std::ofstream out_;
};

}  // namespace nfv
