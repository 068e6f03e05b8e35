#include "pod_stats.h"

#include <map>

#include <rte_ethdev.h>

namespace nfv {
namespace {

const char* driver_name(PortDriverKind kind) {
  switch (kind) {
    case PortDriverKind::kMemif: return "memif";
    case PortDriverKind::kPcap: return "pcap";
    case PortDriverKind::kRing: return "ring";
    case PortDriverKind::kNull: return "null";
    case PortDriverKind::kAfPacket: return "af_packet";
    case PortDriverKind::kTap: return "tap";
    case PortDriverKind::kPci: return "pci";
  }
  return "?";
}

uint64_t load(const uint64_t& v) { return __atomic_load_n(&v, __ATOMIC_RELAXED); }

void add_hop_stats(nfv::stats::HopStats& hs, const InstancePool& pool, int pool_index, const std::string& site,
                   const std::vector<std::unique_ptr<Worker>>& workers) {
  hs.set_site(site);
  const std::string& name = pool.name();  // "chain/hop/vnf"
  hs.set_chain(name.substr(0, name.find('/')));
  hs.set_hop(static_cast<uint32_t>(std::stoul(name.substr(name.find('/') + 1))));
  hs.set_vnf(pool.hop().vnf);
  hs.set_service_rate_pps(pool.hop().service_rate_pps);
  hs.set_queue_packets(pool.hop().queue_packets);
  hs.set_active_instances(static_cast<uint32_t>(pool.active()));
  hs.set_draining_instances(static_cast<uint32_t>(pool.draining()));
  uint64_t in = pool.freed_totals().in_packets, out = pool.freed_totals().out_packets, dropped = pool.freed_totals().dropped;
  std::map<std::string, uint64_t> vnf_counters;
  for (int s = 0; s < kMaxInstancesPerPool; ++s) {
    if (pool.state(s) == InstanceState::kFree) continue;
    const Instance& instance = pool.slot(s);
    auto* is = hs.add_instances();
    is->set_id(instance.id);
    is->set_slot(static_cast<uint32_t>(s));
    is->set_state(pool.state(s) == InstanceState::kActive ? "active" : "draining");
    is->set_worker(static_cast<uint32_t>(instance.owner));
    is->set_in_packets(load(instance.counters.in_packets));
    is->set_out_packets(load(instance.counters.out_packets));
    is->set_dropped(load(instance.counters.dropped));
    is->set_queue_depth(load(instance.counters.queue_depth));
    is->set_in_bytes(load(instance.counters.in_bytes));
    is->set_out_bytes(load(instance.counters.out_bytes));
    uint64_t refused = 0;
    for (const auto& w : workers) refused += load(w->counters().instance_queue_full[pool_index][s]);
    is->set_queue_full(refused);
    is->set_busy_cycles(load(instance.counters.busy_tsc));
    uint64_t flows = 0;
    for (const auto& w : workers)
      if (const FlowAffinity* pins = w->affinity(pool_index)) flows += pins->flows_on(s);
    is->set_flows(flows);
    instance.vnf->visit_counters([&](const std::string& counter, uint64_t value) {
      auto* vc = is->add_counters();
      vc->set_name(counter);
      vc->set_value(value);
      vnf_counters[counter] += value;
    });
    in += is->in_packets();
    out += is->out_packets();
    dropped += is->dropped();
  }
  hs.set_in_packets(in);
  hs.set_out_packets(out);
  hs.set_dropped(dropped);
  for (const auto& [counter, value] : vnf_counters) {
    auto* vc = hs.add_counters();
    vc->set_name(counter);
    vc->set_value(value);
  }
  for (const auto& w : workers) {
    hs.set_queue_full(hs.queue_full() + load(w->counters().pools[pool_index].queue_full));
    if (const FlowAffinity* pins = w->affinity(pool_index)) hs.set_flows_moved(hs.flows_moved() + pins->moved());
  }
}

}  // namespace

nfv::stats::PodStats collect_pod_stats(const PodRuntime& pod, const std::vector<std::unique_ptr<Worker>>& workers,
                                       const std::vector<unsigned>& worker_lcores,
                                       const std::vector<WanLinkParams>& link_params) {
  const PodLayout& layout = pod.layout;
  nfv::stats::PodStats out;
  out.set_pod(layout.name);
  out.set_tsc_hz(pod.clock.hz());
  for (std::size_t p = 0; p < layout.ports.size(); ++p) {
    auto* ps = out.add_ports();
    ps->set_name(layout.ports[p].name);
    ps->set_driver(driver_name(layout.ports[p].driver));
    ps->set_site(layout.sites[layout.ports[p].site].name);
    for (const auto& w : workers) {
      const PortCounters& c = w->counters().ports[p];
      ps->set_rx_packets(ps->rx_packets() + load(c.rx_packets));
      ps->set_rx_bytes(ps->rx_bytes() + load(c.rx_bytes));
      ps->set_tx_packets(ps->tx_packets() + load(c.tx_packets));
      ps->set_tx_bytes(ps->tx_bytes() + load(c.tx_bytes));
      ps->set_default_passed(ps->default_passed() + load(c.default_passed));
      ps->set_capture_dropped(ps->capture_dropped() + load(c.capture_dropped));
    }
    rte_eth_stats eth{};
    if (p < pod.ports.size() && rte_eth_dev_is_valid_port(pod.ports[p].port_id) && rte_eth_stats_get(pod.ports[p].port_id, &eth) == 0) ps->set_rx_missed(eth.imissed);
  }
  for (std::size_t c = 0; c < layout.chains.size(); ++c) {
    auto* cs = out.add_chains();
    cs->set_name(layout.chains[c].name);
    cs->set_id(layout.chains[c].spi);
    LatencyHistogram latency;
    for (const auto& w : workers) {
      const ChainCounters& cc = w->counters().chains[c];
      cs->set_in_packets(cs->in_packets() + load(cc.in_packets));
      cs->set_in_bytes(cs->in_bytes() + load(cc.in_bytes));
      cs->set_out_packets(cs->out_packets() + load(cc.out_packets));
      cs->set_out_bytes(cs->out_bytes() + load(cc.out_bytes));
      cs->set_fast_path_packets(cs->fast_path_packets() + load(cc.fast_path_packets));
      cs->set_late_packets(cs->late_packets() + load(cc.late_packets));
      latency.merge(cc.latency);
    }
    for (int r = 0; r < kDropReasonCount; ++r) {
      uint64_t total = 0;
      for (const auto& w : workers) total += load(w->counters().chains[c].drops[r]);
      if (!total) continue;
      auto* ds = cs->add_drops();
      ds->set_reason(drop_reason_name(static_cast<DropReason>(r)));
      ds->set_description(drop_reason_description(static_cast<DropReason>(r)));
      ds->set_packets(total);
    }
    auto* ls = cs->mutable_latency();
    ls->set_samples(latency.count());
    ls->set_p50_us(static_cast<double>(latency.percentile(0.50)) / 1e3);
    ls->set_p95_us(static_cast<double>(latency.percentile(0.95)) / 1e3);
    ls->set_p99_us(static_cast<double>(latency.percentile(0.99)) / 1e3);
    for (int b = 0; b < LatencyHistogram::kBuckets; ++b)
      if (const uint64_t n = latency.bucket_count(b)) {
        auto* bucket = ls->add_buckets();
        bucket->set_index(static_cast<uint32_t>(b));
        bucket->set_middle_ns(LatencyHistogram::bucket_middle(b));
        bucket->set_count(n);
      }
    for (std::size_t h = 0; h < layout.chains[c].hops.size() && !pod.pools.empty(); ++h) {
      const int first = pod.index(static_cast<int>(c), static_cast<int>(h), 0);
      for (std::size_t k = 0; k < layout.chains[c].hops[h].sites.size(); ++k) {
        const InstancePool* pool = pod.pools[first + k].get();
        if (pool) add_hop_stats(*out.add_hops(), *pool, first + static_cast<int>(k), layout.sites[pool->site()].name, workers);
      }
    }
  }
  for (std::size_t l = 0; l < layout.links.size(); ++l) {
    const LinkInfo& info = layout.links[l];
    if (!layout.sites[info.from].hosted) continue;
    auto* ls = out.add_links();
    ls->set_name(info.name);
    ls->set_delay_ms(link_params[l].delay_ms);
    ls->set_from_site(layout.sites[info.from].name);
    ls->set_to_site(layout.sites[info.to].name);
    for (const auto& w : workers) {
      const WanLinkCounters& wc = w->link(static_cast<int>(l)).counters();
      ls->set_offered_packets(ls->offered_packets() + load(wc.offered_packets));
      ls->set_offered_bytes(ls->offered_bytes() + load(wc.offered_bytes));
      ls->set_released_packets(ls->released_packets() + load(wc.released_packets));
      ls->set_released_bytes(ls->released_bytes() + load(wc.released_bytes));
      ls->set_lost(ls->lost() + load(wc.lost));
      ls->set_queue_full(ls->queue_full() + load(wc.queue_full));
      ls->set_bandwidth_drops(ls->bandwidth_drops() + load(wc.bandwidth_drops));
    }
    ls->set_in_flight(ls->offered_packets() - ls->released_packets() - ls->lost() - ls->queue_full() -
                      ls->bandwidth_drops());
  }
  for (int r = 0; r < kDropReasonCount; ++r) {
    uint64_t total = 0;
    for (const auto& w : workers) total += load(w->counters().drops[r]);
    if (!total) continue;
    auto* ds = out.add_drops();
    ds->set_reason(drop_reason_name(static_cast<DropReason>(r)));
    ds->set_description(drop_reason_description(static_cast<DropReason>(r)));
    ds->set_packets(total);
  }
  for (std::size_t i = 0; i < workers.size(); ++i) {
    const WorkerCounters& wc = workers[i]->counters();
    auto* ws = out.add_workers();
    ws->set_lcore(i < worker_lcores.size() ? worker_lcores[i] : 0);
    ws->set_loops(load(wc.loops));
    ws->set_busy_cycles(load(wc.busy_tsc));
    ws->set_busy_packets(load(wc.busy_packets));
    ws->set_cycles_per_packet(ws->busy_packets() ? static_cast<double>(ws->busy_cycles()) / static_cast<double>(ws->busy_packets()) : 0);
    ws->set_sleeps(load(wc.sleeps));
  }
  if (const RoutingSnapshot* snapshot = pod.snapshot.load()) out.set_snapshot_version(snapshot->version);
  return out;
}

void add_site_stats(nfv::stats::PodStats& stats, const PodLayout& layout, double tsc_hz) {
  std::map<std::string, nfv::stats::SiteStats> sites;
  for (const auto& site : layout.sites)
    if (site.hosted) sites[site.name].set_name(site.name);
  const double window = stats.forwarding_s() > 0 ? stats.forwarding_s() * tsc_hz : 0;
  for (auto& hop : *stats.mutable_hops()) {
    auto& s = sites[hop.site()];
    s.set_active_instances(s.active_instances() + hop.active_instances());
    s.set_draining_instances(s.draining_instances() + hop.draining_instances());
    s.set_processed_packets(s.processed_packets() + hop.in_packets());
    s.set_dropped(s.dropped() + hop.dropped());
    s.set_queue_full(s.queue_full() + hop.queue_full());
    for (auto& instance : *hop.mutable_instances()) {
      s.set_processed_bytes(s.processed_bytes() + instance.in_bytes());
      const double fraction = window > 0 ? static_cast<double>(instance.busy_cycles()) / window : 0;
      instance.set_busy_fraction(fraction);
      s.set_busy_cores(s.busy_cores() + fraction);
    }
  }
  for (const auto& port : stats.ports()) {
    auto& s = sites[port.site()];
    s.set_rx_packets(s.rx_packets() + port.rx_packets());
    s.set_tx_packets(s.tx_packets() + port.tx_packets());
    s.set_rx_bytes(s.rx_bytes() + port.rx_bytes());
    s.set_tx_bytes(s.tx_bytes() + port.tx_bytes());
  }
  for (auto& [name, s] : sites) *stats.add_sites() = s;
}

}  // namespace nfv
