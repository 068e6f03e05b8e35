#include "telemetry_commands.h"

#include <mutex>
#include <stdexcept>
#include <string>

#include <rte_telemetry.h>

namespace nfv {
namespace {

std::mutex g_mutex;  // between the control thread and DPDK's telemetry thread; never on the fast path
std::shared_ptr<const nfv::stats::PodStats> g_stats;

std::shared_ptr<const nfv::stats::PodStats> latest() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_stats;
}

// Adds `name -> {counters}` to dict d.
template <typename Fill>
void add_entry(rte_tel_data* d, const std::string& name, Fill fill) {
  rte_tel_data* entry = rte_tel_data_alloc();
  rte_tel_data_start_dict(entry);
  fill(entry);
  rte_tel_data_add_dict_container(d, name.c_str(), entry, 0);
}

void u64(rte_tel_data* d, const char* name, uint64_t value) { rte_tel_data_add_dict_u64(d, name, value); }

int cmd_pod(const char*, const char*, rte_tel_data* d) {
  const auto s = latest();
  if (!s) return -1;
  rte_tel_data_start_dict(d);
  rte_tel_data_add_dict_string(d, "pod", s->pod().c_str());
  u64(d, "uptime_ms", static_cast<uint64_t>(s->uptime_s() * 1e3));
  u64(d, "snapshot_version", s->snapshot_version());
  u64(d, "workers", static_cast<uint64_t>(s->workers_size()));
  return 0;
}

int cmd_ports(const char*, const char*, rte_tel_data* d) {
  const auto s = latest();
  if (!s) return -1;
  rte_tel_data_start_dict(d);
  for (const auto& p : s->ports())
    add_entry(d, p.name(), [&](rte_tel_data* e) {
      u64(e, "rx_packets", p.rx_packets());
      u64(e, "rx_bytes", p.rx_bytes());
      u64(e, "tx_packets", p.tx_packets());
      u64(e, "tx_bytes", p.tx_bytes());
      u64(e, "default_passed", p.default_passed());
      u64(e, "rx_missed", p.rx_missed());
    });
  return 0;
}

int cmd_chains(const char*, const char*, rte_tel_data* d) {
  const auto s = latest();
  if (!s) return -1;
  rte_tel_data_start_dict(d);
  for (const auto& c : s->chains())
    add_entry(d, c.name(), [&](rte_tel_data* e) {
      u64(e, "in_packets", c.in_packets());
      u64(e, "out_packets", c.out_packets());
      u64(e, "out_bytes", c.out_bytes());
      u64(e, "fast_path_packets", c.fast_path_packets());
      u64(e, "late_packets", c.late_packets());
      u64(e, "latency_p50_ns", static_cast<uint64_t>(c.latency().p50_us() * 1e3));
      u64(e, "latency_p95_ns", static_cast<uint64_t>(c.latency().p95_us() * 1e3));
      u64(e, "latency_p99_ns", static_cast<uint64_t>(c.latency().p99_us() * 1e3));
    });
  return 0;
}

int cmd_hops(const char*, const char*, rte_tel_data* d) {
  const auto s = latest();
  if (!s) return -1;
  rte_tel_data_start_dict(d);
  for (const auto& h : s->hops())
    add_entry(d, h.chain() + "_" + std::to_string(h.hop()), [&](rte_tel_data* e) {
      rte_tel_data_add_dict_string(e, "vnf", h.vnf().c_str());
      rte_tel_data_add_dict_string(e, "site", h.site().c_str());
      u64(e, "active_instances", h.active_instances());
      u64(e, "draining_instances", h.draining_instances());
      u64(e, "in_packets", h.in_packets());
      u64(e, "dropped", h.dropped());
      u64(e, "queue_full", h.queue_full());
    });
  return 0;
}

int cmd_links(const char*, const char*, rte_tel_data* d) {
  const auto s = latest();
  if (!s) return -1;
  rte_tel_data_start_dict(d);
  for (const auto& k : s->links()) {
    std::string name = k.name();
    name.replace(name.find("->"), 2, "_to_");
    add_entry(d, name, [&](rte_tel_data* e) {
      u64(e, "delay_us", static_cast<uint64_t>(k.delay_ms() * 1e3));
      u64(e, "released_packets", k.released_packets());
      u64(e, "lost", k.lost());
      u64(e, "in_flight", k.in_flight());
    });
  }
  return 0;
}

int cmd_drops(const char*, const char*, rte_tel_data* d) {
  const auto s = latest();
  if (!s) return -1;
  rte_tel_data_start_dict(d);
  for (const auto& drop : s->drops()) u64(d, drop.reason().c_str(), drop.packets());
  return 0;
}

}  // namespace

void register_telemetry_commands() {
  static const bool registered = [] {
    const struct {
      const char* name;
      telemetry_cb callback;
      const char* help;
    } commands[] = {
        {"/nfv/pod", cmd_pod, "Pod name, uptime, workers. No parameters"},
        {"/nfv/ports", cmd_ports, "Per-port packet and byte counters. No parameters"},
        {"/nfv/chains", cmd_chains, "Per-chain counters and latency percentiles. No parameters"},
        {"/nfv/hops", cmd_hops, "Per-hop instance pools. No parameters"},
        {"/nfv/links", cmd_links, "Per-WAN-link counters. No parameters"},
        {"/nfv/drops", cmd_drops, "Drops by reason. No parameters"},
    };
    for (const auto& c : commands)
      if (rte_telemetry_register_cmd(c.name, c.callback, c.help) != 0)
        throw std::runtime_error(std::string("rte_telemetry refused command ") + c.name);
    return true;
  }();
  (void)registered;
}

void publish_telemetry(std::shared_ptr<const nfv::stats::PodStats> stats) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_stats = std::move(stats);
}

}  // namespace nfv
