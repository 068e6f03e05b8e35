// Runs nfv-replay (traces/replay/) from integration tests and reads its
// per-slot CSV back; plus a reader for any CSV with a header line (e.g.
// nfv-sim's per-chain slot figures).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "subprocess.h"

namespace nfv::test {

struct ReplayRun {
  std::string dir, name;
  std::unique_ptr<Subprocess> process;
  std::string logs() const;  // stdout and stderr
  std::string csv() const { return dir + "/" + name + ".csv"; }
};

// Writes dir/<name>.yaml and starts the binary of $NFV_REPLAY on it with the
// EAL lcores given, writing dir/<name>.csv.
ReplayRun start_replay(const std::string& dir, const std::string& name, const std::string& yaml, const std::string& lcores,
                       const std::vector<std::string>& options = {});

// A replay config whose generator sends into dir/in.sock and whose sink
// reads dir/out.sock (both memif clients of a pod): its name, the trace
// (a flow mapping, e.g. "{csv: t.csv}") and the generator's other fields
// and the rest (YAML lines, indented for inside `generator:`) given.
std::string memif_replay_yaml(const std::string& name, const std::string& dir, const std::string& trace,
                              const std::string& generator_rest);

// One CSV row, by column name.
using CsvRow = std::map<std::string, std::string>;
// A header line, then rows; lines starting with '#' are skipped.
std::vector<CsvRow> read_csv_rows(const std::string& path);

// nfv-replay's per-slot CSV (docs/replay.md): two comment lines, then rows.
struct SlotCsv {
  uint64_t start_ns = 0;
  double slot_seconds = 0;
  std::vector<CsvRow> rows;
};
SlotCsv read_slot_csv(const std::string& path);

}  // namespace nfv::test
