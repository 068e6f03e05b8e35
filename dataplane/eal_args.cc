#include "eal_args.h"

#include <algorithm>

namespace nfv {

bool has_eal_flag(const std::vector<std::string>& args, const std::string& flag) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
    return a == flag || a.rfind(flag + "=", 0) == 0 || (flag.size() == 2 && a.rfind(flag, 0) == 0);
  });
}

std::vector<std::string> complete_eal_args(std::vector<std::string> args, const PodLayout& layout) {
  if (!has_eal_flag(args, "--file-prefix") && !has_eal_flag(args, "--in-memory"))
    args.push_back("--file-prefix=" + layout.name);
  // Unlink hugepage files as soon as they are mapped: nothing is left behind
  // in hugetlbfs, even when a pod is killed.
  if (!has_eal_flag(args, "--huge-unlink") && !has_eal_flag(args, "--in-memory") && !has_eal_flag(args, "--no-huge"))
    args.push_back("--huge-unlink");
  const bool pci_listed = has_eal_flag(args, "-a") || has_eal_flag(args, "--allow") || has_eal_flag(args, "-b") ||
                          has_eal_flag(args, "--block") || has_eal_flag(args, "--no-pci");
  if (!layout.has_pci_ports() && !pci_listed) args.push_back("--no-pci");
  return args;
}

}  // namespace nfv
