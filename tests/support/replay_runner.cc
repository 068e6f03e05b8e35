#include "replay_runner.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace nfv::test {
namespace {

std::vector<std::string> split_cells(const std::string& text) {
  std::vector<std::string> cells;
  std::stringstream s(text);
  std::string cell;
  while (std::getline(s, cell, ',')) cells.push_back(cell);
  if (!text.empty() && text.back() == ',') cells.push_back("");
  return cells;
}

}  // namespace

std::string ReplayRun::logs() const {
  return "---- " + name + " stdout ----\n" + read_file(dir + "/" + name + ".out") + "---- " + name + " stderr ----\n" +
         read_file(dir + "/" + name + ".err");
}

std::string memif_replay_yaml(const std::string& name, const std::string& dir, const std::string& trace,
                              const std::string& generator_rest) {
  return "name: " + name + "\nports:\n" +
         "  - {name: to_pod, driver: memif, memif_role: client, memif_socket: " + dir + "/in.sock}\n" +
         "  - {name: from_pod, driver: memif, memif_role: client, memif_socket: " + dir + "/out.sock}\n" +
         "generator:\n  port: to_pod\n  trace: " + trace + "\n" + generator_rest + "sink: {port: from_pod}\n";
}

ReplayRun start_replay(const std::string& dir, const std::string& name, const std::string& yaml, const std::string& lcores,
                       const std::vector<std::string>& options) {
  write_file(dir + "/" + name + ".yaml", yaml);
  const char* binary = std::getenv("NFV_REPLAY");
  if (!binary) throw std::runtime_error("NFV_REPLAY is not set (meson test sets it to the nfv-replay it built)");
  std::vector<std::string> argv{binary, "-l", lcores, "--log-level=lib.eal:warning", "--",
                                "--config", dir + "/" + name + ".yaml", "--csv", dir + "/" + name + ".csv"};
  argv.insert(argv.end(), options.begin(), options.end());
  ReplayRun run{dir, name, nullptr};
  run.process = std::make_unique<Subprocess>(argv, dir + "/" + name + ".out", dir + "/" + name + ".err");
  return run;
}

std::vector<CsvRow> read_csv_rows(const std::string& path) {
  std::istringstream in(read_file(path));
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) {
      header = split_cells(line);
      continue;
    }
    const auto cells = split_cells(line);
    CsvRow row;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

SlotCsv read_slot_csv(const std::string& path) {
  SlotCsv csv;
  std::istringstream in(read_file(path));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# start_unix_ns: ", 0) == 0) csv.start_ns = std::stoull(line.substr(17));
    else if (line.rfind("# slot_wall_seconds: ", 0) == 0) csv.slot_seconds = std::stod(line.substr(21));
  }
  csv.rows = read_csv_rows(path);
  return csv;
}

}  // namespace nfv::test
