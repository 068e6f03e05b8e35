#include "train_command.h"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <utility>

namespace nfv {

namespace {

struct Entry {
  std::string summary;
  TrainCommand run;
};

std::map<std::string, Entry>& table() {
  static std::map<std::string, Entry> commands;
  return commands;
}

void usage(std::FILE* out) {
  std::fprintf(out, "usage: nfv-train COMMAND [options]   (nfv-train COMMAND --help for its options)\n\n");
  for (const auto& [name, entry] : table()) std::fprintf(out, "  %-10s %s\n", name.c_str(), entry.summary.c_str());
}

}  // namespace

TrainCommandRegistration::TrainCommandRegistration(std::string name, std::string summary, TrainCommand run) {
  table().emplace(std::move(name), Entry{std::move(summary), std::move(run)});
}

std::map<std::string, std::string> train_commands() {
  std::map<std::string, std::string> out;
  for (const auto& [name, entry] : table()) out.emplace(name, entry.summary);
  return out;
}

int run_train_command(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h") {
    usage(stdout);
    return 0;
  }
  const auto it = table().find(name);
  if (it == table().end()) {
    std::string known;
    for (const auto& [n, entry] : table()) known += (known.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "nfv-train: unknown command '%s' (known: %s)\n", name.c_str(), known.c_str());
    return 2;
  }
  try {
    return it->second.run(argc - 1, argv + 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfv-train %s: %s\n", name.c_str(), e.what());
    return 1;
  }
}

}  // namespace nfv

int main(int argc, char** argv) { return nfv::run_train_command(argc, argv); }
