// nfv-train's subcommands: each trainer's file registers itself
// (`nfv-train predictor`, `nfv-train drl`), and nfv-train runs the one
// named first on its command line.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace nfv {

// argv[0] is the subcommand's name; argv[1..] its options.
using TrainCommand = std::function<int(int argc, char** argv)>;

struct TrainCommandRegistration {
  TrainCommandRegistration(std::string name, std::string summary, TrainCommand run);
};

// name -> summary
std::map<std::string, std::string> train_commands();
// Runs nfv-train's command line: usage without a subcommand, an error naming the known ones.
int run_train_command(int argc, char** argv);

}  // namespace nfv
