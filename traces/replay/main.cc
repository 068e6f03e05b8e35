// nfv-replay: the traffic source and sink of the emulation (docs/replay.md).
//
//   nfv-replay [EAL args] -- --config replay.yaml [options]
//
// main() reads top to bottom: app args, config (checked before EAL starts),
// EAL, mempool, ports (the pod's own port code), the senders and the sink,
// one polling loop on the main lcore until the trace is over (or a signal),
// then the summary, the per-slot CSV and teardown with a mempool check.
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>

#include "eal_args.h"
#include "interrupt_thread.h"
#include "memif_unmap_guard.h"
#include "pcap_replayer.h"
#include "ports.h"
#include "probe_sink.h"
#include "replay_config.h"
#include "replay_report.h"
#include "trace_generator.h"
#include "wall_clock.h"

namespace {

constexpr const char* kUsage = R"(nfv-replay: traffic source and sink for geo-NFV pods

usage: nfv-replay [EAL args] -- --config FILE [options]

options (after --):
  --config FILE            replay configuration, YAML or JSON (schema: proto/replay_config.proto,
                           guide: docs/replay.md): ports, generator or pcap_replay, sink
  --check-config           validate the config and exit (no EAL, no hugepages needed)
  --csv FILE               per-slot results: slot, chain, target and sent rate, received, lost, latency
  --run-for-s N            stop after N seconds (a standalone sink runs until stopped otherwise)
  --drain-ms N             after the last packet is sent, wait this long for the sink to see
                           nothing more (default 1000)
  --stop-when-idle-ms N    standalone sink: stop once nothing arrived for N ms after the first packet
  --start-at UNIX_SECONDS  slot 0 starts at this wall-clock time (e.g. nfv-scaler --start-at with the
                           same value: the two share one slot clock); when it has passed, the
                           slots already over are skipped and the generator joins at the next one
  --start-file FILE        write slot 0's wall-clock time (unix seconds) to FILE once it is fixed
                           (after the links are up): nfv-scaler --start-at-file FILE then keeps
                           the same slot clock, whichever of the two starts first
  --lead-ms N              wait N ms after the links come up before the first slot starts, so that
                           every peer is forwarding (default 200)
  --quiet                  no progress lines
  -h, --help               this text

EAL args (before --) are DPDK's own, e.g. -l 1 to run on core 1. Defaults added
when absent: --file-prefix=<name> (default name "replay"), --huge-unlink and
--no-pci. Hugepages are used unless you pass --no-huge yourself.

examples:
  nfv-replay -l 1 -- --config replay.yaml --csv slots.csv
  nfv-replay -l 1 --file-prefix=sink -- --config sink.yaml --stop-when-idle-ms 2000
)";

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

struct AppArgs {
  std::string config;
  bool check_only = false;
  std::string csv;
  double run_for_s = 0;
  double drain_ms = 1000;
  double stop_when_idle_ms = 0;
  double lead_ms = 200;
  double start_at = 0;  // unix seconds of slot 0; 0 = lead_ms after the links are up
  std::string start_file;  // where slot 0's unix time is written once fixed
  bool quiet = false;
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
    else if (a == "--csv") out.csv = value();
    else if (a == "--run-for-s") out.run_for_s = nfv::parse_option_number(a, value());
    else if (a == "--drain-ms") out.drain_ms = nfv::parse_option_number(a, value());
    else if (a == "--stop-when-idle-ms") out.stop_when_idle_ms = nfv::parse_option_number(a, value());
    else if (a == "--lead-ms") out.lead_ms = nfv::parse_option_number(a, value());
    else if (a == "--start-at") out.start_at = nfv::parse_option_number(a, value());
    else if (a == "--start-file") out.start_file = value();
    else if (a == "--quiet") out.quiet = true;
    else throw std::invalid_argument("unknown option '" + a + "' (see --help)");
  }
  if (out.config.empty()) throw std::invalid_argument("--config FILE is required (see --help)");
  return out;
}

struct OpenPorts {
  std::vector<uint16_t> ids;
  const nfv::PortSet* set = nullptr;
  ~OpenPorts() {
    for (std::size_t i = 0; i < ids.size(); ++i) nfv::close_port(ids[i], set->ports[i]);
  }
};

// The memif driver unmaps a hung-up peer's rings from its interrupt thread
// while the polling loop may be inside rx/tx on them: the unmap waits
// (memif_unmap_guard.h) until the loop passes its quiescent point.
class PollingLoopRcu {
 public:
  PollingLoopRcu()
      : rcu_(static_cast<rte_rcu_qsbr*>(rte_zmalloc("replay_rcu", rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE))) {
    if (!rcu_ || rte_rcu_qsbr_init(rcu_, 1) != 0) throw std::runtime_error("cannot allocate the polling loop's RCU (hugepage memory)");
    rte_rcu_qsbr_thread_register(rcu_, 0);
    rte_rcu_qsbr_thread_online(rcu_, 0);
    nfv::guard_memif_unmaps(rcu_);
  }
  ~PollingLoopRcu() {
    rte_rcu_qsbr_thread_offline(rcu_, 0);
    nfv::guard_memif_unmaps(nullptr);
    rte_rcu_qsbr_thread_unregister(rcu_, 0);
    rte_free(rcu_);
  }
  PollingLoopRcu(const PollingLoopRcu&) = delete;
  PollingLoopRcu& operator=(const PollingLoopRcu&) = delete;
  void quiescent() { rte_rcu_qsbr_quiescent(rcu_, 0); }

 private:
  rte_rcu_qsbr* rcu_;
  const nfv::MemifGuardWorkerThread polling_thread_;
};

}  // namespace

int main(int argc, char** argv) {
  const nfv::CommandLine command_line = nfv::split_command_line(argc, argv);
  if (command_line.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::vector<char*>& eal_argv = command_line.eal;
  const std::vector<char*>& app_argv = command_line.app;

  AppArgs app;
  nfv::ReplayPlan plan;
  try {
    app = parse_app_args(app_argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfv-replay: %s\n", e.what());
    return 2;
  }
  try {
    plan = nfv::load_replay_config(app.config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nfv-replay: invalid config: %s\n", e.what());
    return 2;
  }
  if (plan.generator) std::fputs(nfv::ReplayReport::describe(*plan.generator).c_str(), stdout);
  if (app.check_only) {
    std::printf("%s: valid (%zu ports%s%s%s)\n", app.config.c_str(), plan.ports.ports.size(),
                plan.generator ? ", generator" : "", plan.pcap_replay ? ", pcap replay" : "", plan.sink ? ", sink" : "");
    return 0;
  }
  std::fflush(stdout);

  if (!nfv::start_eal("nfv-replay", eal_argv, plan.ports)) return 1;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  int rc = 0;
  rte_mempool* pool = rte_pktmbuf_pool_create((plan.ports.name + "_pool").c_str(), plan.ports.mempool_mbufs,
                                              plan.ports.mempool_cache, 0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
  if (!pool) {
    std::fprintf(stderr, "nfv-replay: cannot create a mempool of %u mbufs (%s)\n", plan.ports.mempool_mbufs,
                 rte_strerror(rte_errno));
    rte_eal_cleanup();
    return 1;
  }
  {
    OpenPorts ports;
    ports.set = &plan.ports;
    std::unique_ptr<nfv::TraceGenerator> generator;
    std::unique_ptr<nfv::PcapReplayer> replayer;
    std::unique_ptr<nfv::ProbeSink> sink;
    std::unique_ptr<PollingLoopRcu> loop_rcu;  // gone before the ports close
    const nfv::WallClock clock;
    try {
      for (const auto& port : plan.ports.ports) {
        ports.ids.push_back(nfv::create_port_device(port));
        nfv::start_port(ports.ids.back(), port, 1, pool, plan.ports.link_wait_ms);
      }
      const auto down = nfv::wait_for_links(ports.ids, plan.ports.ports, plan.ports.link_wait_ms);
      if (!down.empty()) throw std::runtime_error("port '" + down.front() + "' is still down after link_wait_ms; is its peer running?");
      if (plan.generator) generator = std::make_unique<nfv::TraceGenerator>(*plan.generator, ports.ids[plan.generator->port], pool, clock);
      if (plan.pcap_replay) replayer = std::make_unique<nfv::PcapReplayer>(*plan.pcap_replay, ports.ids[plan.pcap_replay->port], pool);
      if (plan.sink) sink = std::make_unique<nfv::ProbeSink>(*plan.sink, ports.ids[plan.sink->port], clock);
      loop_rcu = std::make_unique<PollingLoopRcu>();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "nfv-replay: %s\n", e.what());
      rc = 1;
    }
    const nfv::ReplayReport report(generator.get(), replayer.get(), sink.get());
    if (rc == 0) {
      const uint64_t hz = rte_get_tsc_hz();
      // A lead so that every peer polls before the first slot starts: a pod
      // whose links came up with ours may still be starting its workers. Or
      // the slot clock the scaler keeps too (--start-at).
      uint64_t start_tsc = rte_rdtsc() + static_cast<uint64_t>(app.lead_ms * 1e-3 * static_cast<double>(hz));
      std::size_t first_slot = 0;
      if (app.start_at > 0) {
        const double ahead_s = app.start_at - static_cast<double>(clock.to_ns(rte_rdtsc())) / 1e9;
        const auto ahead_tsc = static_cast<int64_t>(ahead_s * static_cast<double>(hz));
        start_tsc = static_cast<uint64_t>(static_cast<int64_t>(rte_rdtsc()) + ahead_tsc);
        if (ahead_s < 0 && generator) {
          const double slot_s = generator->plan().scale.slot_wall_seconds;
          first_slot = static_cast<std::size_t>(std::ceil(-ahead_s / slot_s));
          std::printf("nfv-replay: started %.3f s after --start-at: joining the slot clock at slot %zu (slots before it are not sent)\n",
                      -ahead_s, first_slot);
        }
      }
      if (generator) {
        generator->start(start_tsc, first_slot);
        if (sink) sink->align_slots(generator->start_ns());
      }
      if (!app.start_file.empty()) {
        // Written whole, then renamed: a reader never sees half a number.
        const std::string partial = app.start_file + ".partial";
        std::FILE* out = std::fopen(partial.c_str(), "w");
        if (!out || std::fprintf(out, "%.6f\n", static_cast<double>(clock.to_ns(start_tsc)) / 1e9) < 0 || std::fclose(out) != 0 ||
            std::rename(partial.c_str(), app.start_file.c_str()) != 0)
          std::fprintf(stderr, "nfv-replay: --start-file %s: cannot write it\n", app.start_file.c_str());
      }
      if (replayer) replayer->start(start_tsc);
      const bool sending = generator || replayer;
      const uint64_t drain_tsc = static_cast<uint64_t>(app.drain_ms * 1e-3 * static_cast<double>(hz));
      const uint64_t idle_tsc = static_cast<uint64_t>(app.stop_when_idle_ms * 1e-3 * static_cast<double>(hz));
      const uint64_t end_tsc = app.run_for_s > 0 ? start_tsc + static_cast<uint64_t>(app.run_for_s * static_cast<double>(hz)) : UINT64_MAX;
      const uint64_t sink_slot_tsc = sink ? static_cast<uint64_t>(sink->slot_seconds() * static_cast<double>(hz)) : 0;
      std::size_t reported_slot = 0;
      uint64_t next_sink_line_tsc = start_tsc + sink_slot_tsc, sent_all_tsc = 0;
      for (;;) {
        loop_rcu->quiescent();
        const uint64_t now = rte_rdtsc();
        bool more_to_send = false;
        if (generator) more_to_send = generator->poll(now);
        if (replayer) more_to_send = replayer->poll(now);
        if (sink) sink->poll(now);
        // Progress off the per-packet path: once per slot.
        if (generator && generator->current_slot() > reported_slot) {
          if (!app.quiet) std::printf("%s\n", report.slot_line(reported_slot).c_str()), std::fflush(stdout);
          reported_slot++;
        }
        if (!sending && sink && now >= next_sink_line_tsc) {
          if (!app.quiet && sink->slots() > 1)
            std::printf("%s\n", report.sink_slot_line(sink->slots() - 2).c_str()), std::fflush(stdout);
          next_sink_line_tsc += sink_slot_tsc;
        }
        if (g_stop.load(std::memory_order_relaxed) || now >= end_tsc) break;
        if (sending && !more_to_send) {
          if (!sink) break;
          // Everything is sent: let the sink drain until it hears nothing more.
          if (!sent_all_tsc) sent_all_tsc = now;
          if (now - std::max(sent_all_tsc, sink->last_receive_tsc()) >= drain_tsc) break;
        }
        if (!sending && idle_tsc && sink->packets() && now - sink->last_receive_tsc() >= idle_tsc) break;
      }
      const uint64_t flush_deadline = rte_rdtsc() + hz / 10;
      if (generator) generator->finish(flush_deadline);
      if (replayer) replayer->finish(flush_deadline);
      std::fputs(report.summary().c_str(), stdout);
      if (!app.csv.empty()) {
        try {
          report.write_csv(app.csv);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "nfv-replay: %s\n", e.what());
          rc = 1;
        }
      }
    }
  }  // senders, sink and ports close here
  const unsigned in_use = rte_mempool_in_use_count(pool);
  if (in_use > 0) {
    std::fprintf(stderr, "nfv-replay: %u mbufs still in use after close: a leak\n", in_use);
    rc = rc ? rc : 3;
  } else {
    std::printf("mbufs in use after close: 0\n");
  }
  rte_mempool_free(pool);
  nfv::park_interrupt_thread();
  rte_eal_cleanup();
  return rc;
}
