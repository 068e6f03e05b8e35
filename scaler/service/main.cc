// nfv-scaler: the scaler service (docs/scaler.md). Every slot it reads what
// the system measured, lets the configured policy decide, applies the plan
// to the pods (or the simulator), journals the decision and serves its
// control API (nfvctl policy ...) and Prometheus metrics.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <thread>

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>

#include "control_server.h"
#include "secret_checks.h"
#include "html_report.h"
#include "journal.h"
#include "metrics_endpoint.h"
#include "scaler_service.h"

namespace {

constexpr const char* kUsage = R"(usage: nfv-scaler --config scaler.yaml [options]

  --config FILE     the service's configuration (YAML, proto/scaler.proto; docs/scaler.md)
  --slots N         run slots until slot N, that one left out (overrides the config's slots)
  --shadow          decide and journal, never apply
  --journal FILE    the decision journal (overrides the config's); resumed from when it has entries
  --report FILE     write the run's HTML report (from the journal) when it stops
  --start-at T      the slot clock: slot k runs from T + k x slot_seconds (unix seconds, as
                    nfv-replay --start-at); overrides the config's start_unix_s
  --start-at-file F the same, read from F once it appears (nfv-replay --start-file F writes
                    it when its links are up); waits up to 60 s for it
  --quiet           no line per slot
  --list-metrics    list the Prometheus metrics it exports (name, type, help) and exit

Signals: SIGINT/SIGTERM stop after the current slot; SIGHUP re-reads the
config's policy and switches to it at the next slot.
)";

std::atomic<bool> stop_requested{false};
std::atomic<bool> reload_requested{false};

void on_signal(int signo) {
  if (signo == SIGHUP) reload_requested.store(true);
  else stop_requested.store(true);
}

std::string live_line(const nfv::scaler::JournalEntry& e, const nfv::Topology& topology) {
  std::map<std::string, long> per_site;
  for (const auto& pool : e.plan()) per_site[pool.site()] += pool.instances();
  double rate = 0, dropped = 0, delivered = 0, p99 = 0;
  std::string rates;
  for (const auto& chain : e.chains()) {
    rate += chain.arrival_pps();
    dropped += chain.dropped();
    delivered += chain.delivered();
    p99 = std::max(p99, chain.p99_ms());
    if (e.chains_size() <= 4) {
      char one[64];
      std::snprintf(one, sizeof one, "%s %.0f ", chain.chain().c_str(), chain.arrival_pps());
      rates += one;
    }
  }
  std::string sites;
  for (const auto& site : topology.sites)
    if (per_site.count(site.name)) sites += site.name + " " + std::to_string(per_site[site.name]) + " ";
  for (const auto& down : e.sites_down()) sites += down + " DOWN ";
  char text[512];
  std::snprintf(text, sizeof text, "slot %4llu %-9s | %spkt/s (total %.0f) | instances %s| dropped %.0f (%.2f%%) | p99 %.1f ms | cost %.2f%s%s",
                static_cast<unsigned long long>(e.slot()), e.policy().name().c_str(), rates.c_str(), rate, sites.c_str(),
                dropped, delivered + dropped > 0 ? 100 * dropped / (delivered + dropped) : 0.0, p99,
                e.cost_so_far().total(), e.applied() ? "" : (e.shadow() ? " [shadow]" : " [not applied]"),
                e.error().empty() ? "" : (" ERROR " + e.error()).c_str());
  return text;
}

// The slot clock's start from the file another process writes (nfv-replay
// --start-file): polled until it appears, 60 s at most.
double read_start_file(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    if (std::FILE* in = std::fopen(path.c_str(), "r")) {
      double start = 0;
      const bool read = std::fscanf(in, "%lf", &start) == 1;
      std::fclose(in);
      if (!read || !(start > 0)) throw std::runtime_error("--start-at-file " + path + ": expected unix seconds");
      return start;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw std::runtime_error("--start-at-file " + path + ": not there after 60 s (is nfv-replay --start-file running?)");
    if (stop_requested.load()) throw std::runtime_error("stopped while waiting for --start-at-file " + path);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path, journal, report;
  long slots = -1;
  double start_at = 0;
  std::string start_file;
  bool shadow = false, quiet = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "nfv-scaler: %s: expected a value\n", arg.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--list-metrics") {
      for (const auto& m : nfv::scaler_metrics()) std::printf("%s %s %s\n", m.name, m.type, m.help);
      return 0;
    } else if (arg == "--config") config_path = value();
    else if (arg == "--slots") slots = std::atol(value().c_str());
    else if (arg == "--journal") journal = value();
    else if (arg == "--report") report = value();
    else if (arg == "--start-at-file") start_file = value();
    else if (arg == "--start-at") {
      start_at = std::atof(value().c_str());
      if (!(start_at > 0)) {
        std::fprintf(stderr, "nfv-scaler: --start-at: expected unix seconds > 0\n");
        return 1;
      }
    }
    else if (arg == "--shadow") shadow = true;
    else if (arg == "--quiet") quiet = true;
    else {
      std::fprintf(stderr, "nfv-scaler: unknown option '%s' (--help lists them)\n", arg.c_str());
      return 1;
    }
  }
  if (config_path.empty()) {
    std::fprintf(stderr, "nfv-scaler: --config FILE is required (--help)\n");
    return 1;
  }
  // A pod that goes away mid-call is that pod's error, never the scaler's
  // end: a write to its closed socket must not raise SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    nfv::ScalerSetup setup = nfv::load_scaler_setup(config_path);
    bool holds_token = !setup.config.control().token().empty();
    for (const auto& pod : setup.config.pods()) holds_token = holds_token || !pod.token().empty();
    if (holds_token)
      if (const std::string warning = nfv::readable_secret_warning(config_path); !warning.empty())
        std::fprintf(stderr, "nfv-scaler: warning: %s\n", warning.c_str());
    if (slots >= 0) setup.config.set_slots(static_cast<std::uint32_t>(slots));
    if (shadow) setup.config.set_shadow(true);
    if (!journal.empty()) setup.config.set_journal(journal);
    if (!start_file.empty()) start_at = read_start_file(start_file);
    if (start_at > 0) nfv::set_slot_clock(setup, start_at);
    const nfv::Topology& topology = setup.model->topology();
    std::printf("nfv-scaler %s: topology %s (%zu sites, %zu chains), backend %s, policy %s%s\n",
                setup.config.name().c_str(), topology.name.c_str(), topology.sites.size(), topology.chains.size(),
                setup.config.backend() == nfv::scaler::BACKEND_PODS ? "pods" : "sim", setup.config.policy().name().c_str(),
                setup.config.shadow() ? " (shadow: decisions are journaled, not applied)" : "");
    for (const std::string& note : setup.notes) std::printf("  %s\n", note.c_str());
    nfv::ScalerService service(std::move(setup));
    if (service.resumed_entries() > 0)
      std::printf("  resumed from %s: %zu slots journaled, next slot %llu\n", service.setup().config.journal().c_str(),
                  service.resumed_entries(), static_cast<unsigned long long>(service.next_slot()));

    boost::asio::io_context io;
    std::unique_ptr<nfv::ControlServer> control;
    std::unique_ptr<nfv::MetricsEndpoint> metrics;
    const auto& c = service.setup().config;
    const std::string listen = c.control().listen().empty() ? "127.0.0.1" : c.control().listen();
    if (c.control().port() > 0) {
      control = std::make_unique<nfv::ControlServer>(
          io, listen, static_cast<uint16_t>(c.control().port()), 1 << 20, c.control().token(),
          [&](const nfv::control::Request& r) { return service.handle(r); }, nfv::tls_files(c.control().tls()), "control.tls");
      // A switch is checked by building the policy (a checkpoint to load:
      // seconds); status requests and /metrics are answered meanwhile.
      control->run_slow_requests_apart([](const nfv::control::Request& r) { return r.has_set_policy(); });
      std::printf("  control API on %s:%u%s\n", listen.c_str(), control->port(), control->tls() ? " (mutual TLS)" : "");
    }
    if (c.metrics_port() > 0) {
      metrics = std::make_unique<nfv::MetricsEndpoint>(io, listen, static_cast<uint16_t>(c.metrics_port()),
                                                       [&] { return service.metrics(); });
      std::printf("  Prometheus metrics on http://%s:%u/metrics\n", listen.c_str(), metrics->port());
    }
    std::fflush(stdout);
    auto guard = boost::asio::make_work_guard(io);
    std::thread control_thread([&] { io.run(); });

    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    std::signal(SIGHUP, on_signal);
    std::atomic<bool> stop{false};
    std::thread watcher([&] {
      while (!stop.load()) {
        if (stop_requested.load()) stop.store(true);
        if (reload_requested.exchange(false)) {
          try {
            const nfv::ScalerSetup reread = nfv::load_scaler_setup(config_path);
            service.request_policy(reread.config.policy());
            std::printf("SIGHUP: policy %s from %s at the next slot\n", reread.config.policy().name().c_str(),
                        config_path.c_str());
          } catch (const std::exception& e) {
            std::fprintf(stderr, "SIGHUP: %s: kept the policy in force\n", e.what());
          }
          std::fflush(stdout);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
    std::string failure;
    try {
      service.run(stop, [&](const nfv::scaler::JournalEntry& e) {
        if (!quiet) {
          std::printf("%s\n", live_line(e, service.setup().model->topology()).c_str());
          std::fflush(stdout);
        }
      });
    } catch (const std::exception& e) {
      failure = e.what();  // the threads below still need joining
    }
    stop.store(true);
    watcher.join();
    guard.reset();
    io.stop();
    control_thread.join();
    if (!report.empty() && !service.setup().config.journal().empty()) {
      const auto entries = nfv::Journal::read(service.setup().config.journal());
      nfv::write_html_report(entries, "geo-NFV: " + service.setup().config.name() + ", policy " +
                                          service.setup().config.policy().name(), report);
      std::printf("report: %s (%zu slots)\n", report.c_str(), entries.size());
    }
    if (!failure.empty()) throw std::runtime_error(failure);
    std::printf("nfv-scaler: stopped after slot %llu\n", static_cast<unsigned long long>(service.next_slot()));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfv-scaler: %s\n", e.what());
    return 1;
  }
}
