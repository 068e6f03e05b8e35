// The decision journal: one JSON line per slot (proto/scaler.proto
// JournalEntry): the inputs, the forecast, the plan, the reason, the cost.
// A restarted scaler reads it back and resumes after its last slot.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "scaler.pb.h"

namespace nfv {

class Journal {
 public:
  // Appends to `path` (created if absent), after cutting off a last line
  // torn by a crash; throws naming the file when it cannot.
  explicit Journal(const std::string& path);
  // One line, flushed: a crash loses at most the line being written.
  void write(const scaler::JournalEntry& entry);

  // Every entry of the file; a torn last line (a crash mid-write) is left
  // out, any other bad line is an error naming the file and line.
  static std::vector<scaler::JournalEntry> read(const std::string& path);

 private:
  std::string path_;
  std::ofstream out_;
};

}  // namespace nfv
