#include "pod_runner.h"

#include <unistd.h>

#include <regex>

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

namespace nfv::test {

std::string nfv_pod_binary() { return required_env("NFV_POD"); }

std::string shared_data(const std::string& relative) { return required_env("NFV_SHARED_DATA") + "/" + relative; }

int PodRun::wait(std::chrono::milliseconds timeout) { return process->wait(timeout); }

nfv::stats::PodStats PodRun::stats() const {
  nfv::stats::PodStats stats;
  const std::string json = read_file(stats_path());
  const auto status = google::protobuf::util::JsonStringToMessage(json, &stats);
  EXPECT_TRUE(status.ok()) << "cannot parse " << stats_path() << ": " << status.ToString() << "\n" << logs();
  return stats;
}

std::string PodRun::logs() const {
  return "---- " + name + " stdout ----\n" + read_file(stdout_path()) + "---- " + name + " stderr ----\n" +
         read_file(stderr_path());
}

PodRun start_pod(const std::string& dir, const std::string& name, const std::string& config_yaml,
                 const std::vector<std::string>& app_options, const std::string& lcores,
                 const std::vector<std::string>& wrapper) {
  PodRun run{name, dir, nullptr};
  const std::string config = dir + "/" + name + ".yaml";
  write_file(config, config_yaml);
  // "0,1" is an lcore list; "0@0,1@1,2@0" maps more lcores than cores.
  const std::string lcore_flag = lcores.find('@') == std::string::npos ? "-l" : "--lcores";
  std::vector<std::string> argv(wrapper);
  argv.insert(argv.end(), {nfv_pod_binary(), lcore_flag, lcores, "--log-level=lib.eal:warning", "--",
                                "--config", config, "--stats-json", run.stats_path(), "--stats-interval-s", "0"});
  argv.insert(argv.end(), app_options.begin(), app_options.end());
  run.process = std::make_unique<Subprocess>(argv, run.stdout_path(), run.stderr_path());
  return run;
}

const nfv::stats::PortStats& port_stats(const nfv::stats::PodStats& stats, const std::string& port) {
  for (const auto& p : stats.ports())
    if (p.name() == port) return p;
  ADD_FAILURE() << "no port " << port << " in the stats of " << stats.pod();
  static nfv::stats::PortStats empty;
  return empty;
}

const nfv::stats::ChainStats& chain_stats(const nfv::stats::PodStats& stats, const std::string& chain) {
  for (const auto& c : stats.chains())
    if (c.name() == chain) return c;
  ADD_FAILURE() << "no chain " << chain << " in the stats of " << stats.pod();
  static nfv::stats::ChainStats empty;
  return empty;
}

uint64_t drops(const nfv::stats::PodStats& stats, const std::string& reason) {
  for (const auto& d : stats.drops())
    if (d.reason() == reason) return d.packets();
  return 0;
}

}  // namespace nfv::test
