// Runs real nfv-pod processes for integration tests and reads back their
// final counters (the --stats-json output, proto/pod_stats.proto).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pod_stats.pb.h"
#include "subprocess.h"

namespace nfv::test {

struct PodRun {
  std::string name;
  std::string dir;
  std::unique_ptr<Subprocess> process;

  std::string stdout_path() const { return dir + "/" + name + ".out"; }
  std::string stderr_path() const { return dir + "/" + name + ".err"; }
  std::string stats_path() const { return dir + "/" + name + ".stats.json"; }
  // Waits for the pod to exit; returns its exit code (-1 on timeout).
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  nfv::stats::PodStats stats() const;
  std::string logs() const;
};

// Writes `config_yaml` to dir/<name>.yaml and starts nfv-pod on it with the
// given EAL lcores and extra app options (e.g. --stop-when-idle-ms 1000);
// `wrapper` runs it (e.g. deploy/supervise.sh ... --), and is then the process.
PodRun start_pod(const std::string& dir, const std::string& name, const std::string& config_yaml,
                 const std::vector<std::string>& app_options, const std::string& lcores = "0",
                 const std::vector<std::string>& wrapper = {});

std::string nfv_pod_binary();
std::string shared_data(const std::string& relative);

// Finds a counter in the stats by name; fails the test if absent.
const nfv::stats::PortStats& port_stats(const nfv::stats::PodStats& stats, const std::string& port);
const nfv::stats::ChainStats& chain_stats(const nfv::stats::PodStats& stats, const std::string& chain);
uint64_t drops(const nfv::stats::PodStats& stats, const std::string& reason);

}  // namespace nfv::test
