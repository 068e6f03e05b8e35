// The EAL command line of a pod or nfv-replay: what the operator gave before `--`, plus
// the defaults that let several pods share a host.
#pragma once

#include <string>
#include <vector>

#include "port_set.h"

namespace nfv {

// Adds --file-prefix=<the set's name> unless a prefix or --in-memory is given
// (so processes on one host never share hugepage files), and --no-pci when
// the set has no PCI port and no PCI allow/block list is given, and --huge-unlink
// (no hugepage files left behind). Never adds --no-huge.
std::vector<std::string> complete_eal_args(std::vector<std::string> args, const PortSet& ports);

bool has_eal_flag(const std::vector<std::string>& args, const std::string& flag);

// Starts DPDK's EAL for `program` with the arguments before `--` (eal[0] is
// argv[0]), completed as above. On failure prints why, with the usual cause
// (no hugepages) and its remedy, and returns false.
bool start_eal(const char* program, const std::vector<char*>& eal, const PortSet& ports);

// A DPDK program's command line split at the first `--`: EAL arguments
// before it (eal[0] is the program name), the program's own after it; with
// no `--`, all are the program's. `help` is set by -h or --help anywhere.
struct CommandLine {
  std::vector<char*> eal;
  std::vector<char*> app;
  bool help = false;
};
CommandLine split_command_line(int argc, char** argv);

// The number after a command-line flag; throws std::invalid_argument naming
// the flag unless it is a number >= 0.
double parse_option_number(const std::string& flag, const char* value);

}  // namespace nfv
