// nfv-pod: one DPDK primary process hosting one or more sites of the
// geo-distributed NFV system.
//
//   nfv-pod [EAL args] -- --config pod.yaml [options]
//
// main() reads top to bottom: app args, config (checked before EAL starts),
// EAL, the pod (mempool, ports, workers), forwarding until a signal or a
// stop condition, then the final counters and teardown.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <sys/prctl.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "config_error.h"
#include "config_loader.h"
#include "eal_args.h"
#include "interrupt_thread.h"
#include "pod.h"
#include "pod_stats.h"
#include "secret_checks.h"
#include "prometheus_text.h"
#include "vnf.h"

namespace {

constexpr const char* kUsage = R"(nfv-pod: a DPDK pod hosting sites of geo-distributed VNF chains

usage: nfv-pod [EAL args] -- --config FILE [options]

options (after --):
  --config FILE            pod configuration, YAML or JSON (schema: proto/pod_config.proto,
                           guide: docs/pod-config.md)
  --check-config           validate the config and exit (no EAL, no hugepages needed)
  --run-for-s N            stop after N seconds of forwarding
  --stop-when-idle-ms N    stop once nothing was received or in flight for N ms
  --stats-json FILE        write the final counters as JSON (proto/pod_stats.proto)
  --stats-interval-s N     progress line every N seconds (default 10, 0 = off)
  --log-level LEVEL        trace, debug, info (default), warn, error
  --list-vnfs              list the VNF types this build knows and exit
  --list-metrics           list the Prometheus metrics the pod exports (name, type, help) and exit
  -h, --help               this text

EAL args (before --) are DPDK's own, e.g. -l 0,1 for the main lcore plus one
worker. Defaults added when absent: --file-prefix=<pod name> (pods on one host
stay apart), --huge-unlink (no hugepage files left behind) and --no-pci when
the config has no PCI port. Hugepages are used
unless you pass --no-huge yourself. See docs/running-pods.md.

examples:
  nfv-pod -l 0 -- --config deploy/demo/pod-a.yaml
  nfv-pod -l 0,1 --file-prefix=edge -- --config pod.yaml --run-for-s 30 --stats-json out.json
)";

std::atomic<bool> g_stop{false};

void on_signal(int) { g_stop.store(true); }

struct AppArgs {
  std::string config;
  bool check_only = false;
  bool list_vnfs = false;
  bool list_metrics = false;
  nfv::PodRunOptions run;
  std::string stats_json;
  std::string log_level = "info";
};

AppArgs parse_app_args(const std::vector<char*>& args) {
  AppArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string a = args[i];
    auto value = [&]() -> char* {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + ": expected a value");
      return args[++i];
    };
    if (a == "--config") out.config = value();
    else if (a == "--check-config") out.check_only = true;
    else if (a == "--list-vnfs") out.list_vnfs = true;
    else if (a == "--list-metrics") out.list_metrics = true;
    else if (a == "--run-for-s") out.run.run_for_s = nfv::parse_option_number(a, value());
    else if (a == "--stop-when-idle-ms") out.run.stop_when_idle_ms = static_cast<uint32_t>(nfv::parse_option_number(a, value()));
    else if (a == "--stats-json") out.stats_json = value();
    else if (a == "--stats-interval-s") out.run.stats_interval_s = nfv::parse_option_number(a, value());
    else if (a == "--log-level") out.log_level = value();
    else throw std::invalid_argument("unknown option '" + a + "' (see --help)");
  }
  if (out.config.empty() && !out.list_vnfs && !out.list_metrics)
    throw std::invalid_argument("--config FILE is required (see --help)");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("nfv-pod"));
  const nfv::CommandLine command_line = nfv::split_command_line(argc, argv);
  if (command_line.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::vector<char*>& eal_argv = command_line.eal;
  const std::vector<char*>& app_argv = command_line.app;

  AppArgs app;
  try {
    app = parse_app_args(app_argv);
    spdlog::set_level(spdlog::level::from_str(app.log_level));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfv-pod: %s\n", e.what());
    return 2;
  }
  if (app.list_metrics) {
    for (const auto& m : nfv::pod_metrics()) std::printf("%s %s %s\n", m.name, m.type, m.help);
    return 0;
  }
  if (app.list_vnfs) {
    for (const auto& [name, description] : nfv::VnfRegistry::instance().list())
      std::printf("%-10s %s\n", name.c_str(), description.c_str());
    return 0;
  }
  nfv::LoadedConfig loaded;
  nfv::PodLayout layout;
  try {
    loaded = nfv::load_pod_config(app.config);
    layout = nfv::build_pod_layout(loaded.config);
  } catch (const nfv::ConfigError& e) {
    std::fprintf(stderr, "nfv-pod: invalid config: %s\n", loaded.locate(e.field(), e.expected()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfv-pod: invalid config: %s\n", e.what());
    return 2;
  }
  if (!layout.control.token.empty())
    if (const std::string warning = nfv::readable_secret_warning(app.config); !warning.empty()) spdlog::warn("{}", warning);
  if (app.check_only) {
    std::printf("%s: valid (%zu sites, %zu hosted, %zu links, %zu ports, %zu chains)\n", app.config.c_str(), layout.sites.size(),
                static_cast<std::size_t>(std::count_if(layout.sites.begin(), layout.sites.end(), [](const auto& s) { return s.hosted; })),
                layout.links.size(), layout.ports.size(), layout.chains.size());
    return 0;
  }

  // Sleeps in the idle back-off must wake on time for the WAN delay lines.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  if (!nfv::start_eal("nfv-pod", eal_argv, layout)) return 1;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  int rc = 0;
  {
    nfv::Pod pod(std::move(layout));
    try {
      pod.start();
      pod.run(app.run, g_stop);
    } catch (const std::exception& e) {
      spdlog::error("{}", e.what());
      rc = 1;
    }
    const auto stats = pod.close();
    std::fputs(nfv::format_pod_stats(stats).c_str(), stdout);
    if (!app.stats_json.empty()) std::ofstream(app.stats_json) << nfv::pod_stats_json(stats);
    if (stats.mempool_in_use_after_close() > 0) {
      spdlog::error("{} mbufs still in use after close: a leak", stats.mempool_in_use_after_close());
      rc = rc ? rc : 3;
    }
  }
  nfv::park_interrupt_thread();
  rte_eal_cleanup();
  return rc;
}
