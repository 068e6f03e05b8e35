#include "eal_args.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace nfv {

bool has_eal_flag(const std::vector<std::string>& args, const std::string& flag) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
    return a == flag || a.rfind(flag + "=", 0) == 0 || (flag.size() == 2 && a.rfind(flag, 0) == 0);
  });
}

std::vector<std::string> complete_eal_args(std::vector<std::string> args, const PortSet& ports) {
  if (!has_eal_flag(args, "--file-prefix") && !has_eal_flag(args, "--in-memory"))
    args.push_back("--file-prefix=" + ports.name);
  // Unlink hugepage files as soon as they are mapped: nothing is left behind
  // in hugetlbfs, even when a pod is killed.
  if (!has_eal_flag(args, "--huge-unlink") && !has_eal_flag(args, "--in-memory") && !has_eal_flag(args, "--no-huge"))
    args.push_back("--huge-unlink");
  const bool pci_listed = has_eal_flag(args, "-a") || has_eal_flag(args, "--allow") || has_eal_flag(args, "-b") ||
                          has_eal_flag(args, "--block") || has_eal_flag(args, "--no-pci");
  if (!ports.has_pci_ports() && !pci_listed) args.push_back("--no-pci");
  return args;
}

bool start_eal(const char* program, const std::vector<char*>& eal, const PortSet& ports) {
  std::vector<std::string> args = complete_eal_args({eal.begin() + 1, eal.end()}, ports);
  if (has_eal_flag(args, "--no-huge")) spdlog::warn("running without hugepages because --no-huge was given");
  std::vector<char*> argv{eal[0]};
  for (auto& a : args) argv.push_back(a.data());
  if (rte_eal_init(static_cast<int>(argv.size()), argv.data()) >= 0) return true;
  std::fprintf(stderr,
               "%s: EAL init failed (%s). Are hugepages reserved and mounted? Run `./nfv setup` as root, "
               "or pass --no-huge before -- to run without them.\n",
               program, rte_strerror(rte_errno));
  return false;
}

CommandLine split_command_line(int argc, char** argv) {
  CommandLine out;
  out.eal.push_back(argv[0]);
  bool after_separator = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!after_separator && arg == "--") {
      after_separator = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") out.help = true;
    (after_separator ? out.app : out.eal).push_back(argv[i]);
  }
  if (!after_separator) {
    out.app.assign(out.eal.begin() + 1, out.eal.end());
    out.eal.resize(1);
  }
  return out;
}

double parse_option_number(const std::string& flag, const char* value) {
  char* end = nullptr;
  const double v = value ? std::strtod(value, &end) : 0;
  if (!value || *end != '\0' || v < 0)
    throw std::invalid_argument(flag + ": expected a number >= 0, got '" + (value ? value : "") + "'");
  return v;
}

}  // namespace nfv
