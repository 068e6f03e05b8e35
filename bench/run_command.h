// Runs a shell command and returns what it printed (stdout and stderr):
// how the benchmarks start dpdk-testpmd, nfv-pod and nfv-replay.
#pragma once

#include <cstdio>
#include <string>

namespace nfv::bench {

inline std::string run_command(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

}  // namespace nfv::bench
