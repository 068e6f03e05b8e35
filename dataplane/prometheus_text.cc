#include "prometheus_text.h"

#include <array>
#include <map>

#include <fmt/format.h>

namespace nfv {
namespace {

std::string escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// Every metric the pod exports; samples are added by these, never by a bare
// name, so pod_metrics() lists all there are.
constexpr MetricInfo kUptimeSeconds{"nfv_uptime_seconds", "gauge", "Seconds since the pod started."};
constexpr MetricInfo kMempoolMbufsInUse{"nfv_mempool_mbufs_in_use", "gauge", "Mbufs out of the pod's pool now."};
constexpr MetricInfo kPortRxPacketsTotal{"nfv_port_rx_packets_total", "counter", "Packets received on a port."};
constexpr MetricInfo kPortRxBytesTotal{"nfv_port_rx_bytes_total", "counter", "Bytes received on a port."};
constexpr MetricInfo kPortTxPacketsTotal{"nfv_port_tx_packets_total", "counter", "Packets sent on a port."};
constexpr MetricInfo kPortTxBytesTotal{"nfv_port_tx_bytes_total", "counter", "Bytes sent on a port."};
constexpr MetricInfo kPortRxMissedTotal{"nfv_port_rx_missed_total", "counter", "Packets the driver dropped before the pod saw them."};
constexpr MetricInfo kChainInPacketsTotal{"nfv_chain_in_packets_total", "counter", "Packets that entered a chain at this pod."};
constexpr MetricInfo kChainOutPacketsTotal{"nfv_chain_out_packets_total", "counter", "Packets that left a chain at this pod's egress."};
constexpr MetricInfo kChainOutBytesTotal{"nfv_chain_out_bytes_total", "counter", "Bytes that left a chain at this pod's egress."};
constexpr MetricInfo kChainLatePacketsTotal{"nfv_chain_late_packets_total", "counter",
                                "Packets of a chain delivered later than its SLA latency."};
constexpr MetricInfo kChainFastPathPacketsTotal{"nfv_chain_fast_path_packets_total", "counter",
                                "Packets of a chain repeated from their flow's record (the chain fast path)."};
constexpr MetricInfo kChainDropsTotal{"nfv_chain_drops_total", "counter", "Packets of a chain dropped, by reason."};
constexpr MetricInfo kChainLatencySeconds{"nfv_chain_latency_seconds", "gauge",
                                "End-to-end latency from the ingress timestamp, by quantile."};
constexpr MetricInfo kHopInstances{"nfv_hop_instances", "gauge", "Instances of a hop's pool, by state."};
constexpr MetricInfo kHopPacketsTotal{"nfv_hop_packets_total", "counter", "Packets processed by a hop's instances."};
constexpr MetricInfo kHopQueueFullTotal{"nfv_hop_queue_full_total", "counter", "Packets refused by full instance queues."};
constexpr MetricInfo kInstancePacketsTotal{"nfv_instance_packets_total", "counter", "Packets processed by an instance."};
constexpr MetricInfo kInstanceBytesTotal{"nfv_instance_bytes_total", "counter", "Bytes processed by an instance."};
constexpr MetricInfo kInstanceQueueFullTotal{"nfv_instance_queue_full_total", "counter", "Packets an instance's full queue refused."};
constexpr MetricInfo kInstanceQueueDepth{"nfv_instance_queue_depth", "gauge", "Packets waiting in an instance's input queue."};
constexpr MetricInfo kInstanceFlows{"nfv_instance_flows", "gauge", "Flows pinned to an instance (pools of several instances only)."};
constexpr MetricInfo kInstanceBusyFraction{"nfv_instance_busy_fraction", "gauge", "Share of time an instance spent processing."};
constexpr MetricInfo kLinkDelaySeconds{"nfv_link_delay_seconds", "gauge", "Configured one-way delay of a WAN link."};
constexpr MetricInfo kLinkPacketsTotal{"nfv_link_packets_total", "counter", "Packets delivered by a WAN link."};
constexpr MetricInfo kLinkBytesTotal{"nfv_link_bytes_total", "counter", "Bytes delivered by a WAN link."};
constexpr MetricInfo kLinkLostTotal{"nfv_link_lost_total", "counter", "Packets lost on a WAN link (emulated loss)."};
constexpr MetricInfo kLinkInFlight{"nfv_link_in_flight", "gauge", "Packets on a WAN link now."};
constexpr MetricInfo kSiteInstances{"nfv_site_instances", "gauge", "Instances running at a site, by state."};
constexpr MetricInfo kSiteProcessedPacketsTotal{"nfv_site_processed_packets_total", "counter", "Packets processed by a site's instances."};
constexpr MetricInfo kSiteBusyCores{"nfv_site_busy_cores", "gauge", "Cores' worth of instance work at a site."};
constexpr MetricInfo kDropsTotal{"nfv_drops_total", "counter", "Packets dropped by the pod, by reason."};
constexpr MetricInfo kWorkerBusyCyclesTotal{"nfv_worker_busy_cycles_total", "counter", "TSC cycles a worker spent moving packets."};
constexpr MetricInfo kWorkerPacketsTotal{"nfv_worker_packets_total", "counter", "Packets a worker moved."};
constexpr std::array kAll{kUptimeSeconds, kMempoolMbufsInUse, kPortRxPacketsTotal, kPortRxBytesTotal, kPortTxPacketsTotal, kPortTxBytesTotal, kPortRxMissedTotal,
                          kChainInPacketsTotal, kChainOutPacketsTotal, kChainOutBytesTotal, kChainLatePacketsTotal,
                          kChainFastPathPacketsTotal, kChainDropsTotal, kChainLatencySeconds, kHopInstances, kHopPacketsTotal,
                          kHopQueueFullTotal, kInstancePacketsTotal, kInstanceBytesTotal, kInstanceQueueFullTotal, kInstanceQueueDepth,
                          kInstanceFlows, kInstanceBusyFraction, kLinkDelaySeconds, kLinkPacketsTotal, kLinkBytesTotal, kLinkLostTotal,
                          kLinkInFlight, kSiteInstances, kSiteProcessedPacketsTotal, kSiteBusyCores, kDropsTotal, kWorkerBusyCyclesTotal,
                          kWorkerPacketsTotal};

// Collects samples per metric so each metric's HELP/TYPE appears once.
class Exposition {
 public:
  void add(const MetricInfo& info, const std::string& labels, double value) {
    auto& metric = metrics_[info.name];
    metric.type = info.type;
    metric.help = info.help;
    metric.samples += fmt::format("{}{{{}}} {}\n", info.name, labels, value);
  }
  std::string text() const {
    std::string out;
    for (const auto& [name, m] : metrics_) out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{}", name, m.help, name, m.type, m.samples);
    return out;
  }

 private:
  struct Metric {
    const char* type;
    const char* help;
    std::string samples;
  };
  std::map<std::string, Metric> metrics_;
};

}  // namespace

std::vector<MetricInfo> pod_metrics() { return {kAll.begin(), kAll.end()}; }

std::string prometheus_text(const nfv::stats::PodStats& s) {
  Exposition e;
  const std::string pod = "pod=\"" + escape(s.pod()) + "\"";
  e.add(kUptimeSeconds, pod, s.uptime_s());
  e.add(kMempoolMbufsInUse, pod, static_cast<double>(s.mempool_in_use()));
  for (const auto& p : s.ports()) {
    const std::string l = fmt::format("{},port=\"{}\",site=\"{}\",driver=\"{}\"", pod, escape(p.name()), escape(p.site()), p.driver());
    e.add(kPortRxPacketsTotal, l, static_cast<double>(p.rx_packets()));
    e.add(kPortRxBytesTotal, l, static_cast<double>(p.rx_bytes()));
    e.add(kPortTxPacketsTotal, l, static_cast<double>(p.tx_packets()));
    e.add(kPortTxBytesTotal, l, static_cast<double>(p.tx_bytes()));
    e.add(kPortRxMissedTotal, l,
          static_cast<double>(p.rx_missed()));
  }
  for (const auto& c : s.chains()) {
    const std::string l = fmt::format("{},chain=\"{}\"", pod, escape(c.name()));
    e.add(kChainInPacketsTotal, l, static_cast<double>(c.in_packets()));
    e.add(kChainOutPacketsTotal, l,
          static_cast<double>(c.out_packets()));
    e.add(kChainOutBytesTotal, l, static_cast<double>(c.out_bytes()));
    e.add(kChainLatePacketsTotal, l,
          static_cast<double>(c.late_packets()));
    e.add(kChainFastPathPacketsTotal, l,
          static_cast<double>(c.fast_path_packets()));
    for (const auto& d : c.drops())
      e.add(kChainDropsTotal, l + ",reason=\"" + d.reason() + "\"",
            static_cast<double>(d.packets()));
    for (const auto& [q, v] : {std::pair{"0.5", c.latency().p50_us()}, {"0.95", c.latency().p95_us()}, {"0.99", c.latency().p99_us()}})
      e.add(kChainLatencySeconds,
            l + ",quantile=\"" + q + "\"", v / 1e6);
  }
  for (const auto& h : s.hops()) {
    const std::string l = fmt::format("{},chain=\"{}\",hop=\"{}\",vnf=\"{}\",site=\"{}\"", pod, escape(h.chain()), h.hop(), h.vnf(),
                                      escape(h.site()));
    e.add(kHopInstances, l + ",state=\"active\"", h.active_instances());
    e.add(kHopInstances, l + ",state=\"draining\"", h.draining_instances());
    e.add(kHopPacketsTotal, l, static_cast<double>(h.in_packets()));
    e.add(kHopQueueFullTotal, l, static_cast<double>(h.queue_full()));
    for (const auto& i : h.instances()) {
      const std::string il = fmt::format("{},instance=\"{}\"", l, i.id());
      e.add(kInstancePacketsTotal, il, static_cast<double>(i.in_packets()));
      e.add(kInstanceBytesTotal, il, static_cast<double>(i.in_bytes()));
      e.add(kInstanceQueueFullTotal, il,
            static_cast<double>(i.queue_full()));
      e.add(kInstanceQueueDepth, il, static_cast<double>(i.queue_depth()));
      e.add(kInstanceFlows, il, static_cast<double>(i.flows()));
      e.add(kInstanceBusyFraction, il, i.busy_fraction());
    }
  }
  for (const auto& k : s.links()) {
    const std::string l = fmt::format("{},link=\"{}\"", pod, escape(k.name()));
    e.add(kLinkDelaySeconds, l, k.delay_ms() / 1e3);
    e.add(kLinkPacketsTotal, l, static_cast<double>(k.released_packets()));
    e.add(kLinkBytesTotal, l, static_cast<double>(k.released_bytes()));
    e.add(kLinkLostTotal, l, static_cast<double>(k.lost()));
    e.add(kLinkInFlight, l, static_cast<double>(k.in_flight()));
  }
  for (const auto& site : s.sites()) {
    const std::string l = fmt::format("{},site=\"{}\"", pod, escape(site.name()));
    e.add(kSiteInstances, l + ",state=\"active\"", site.active_instances());
    e.add(kSiteInstances, l + ",state=\"draining\"", site.draining_instances());
    e.add(kSiteProcessedPacketsTotal, l,
          static_cast<double>(site.processed_packets()));
    e.add(kSiteBusyCores, l, site.busy_cores());
  }
  for (const auto& d : s.drops())
    e.add(kDropsTotal, fmt::format("{},reason=\"{}\"", pod, d.reason()),
          static_cast<double>(d.packets()));
  for (const auto& w : s.workers()) {
    const std::string l = fmt::format("{},lcore=\"{}\"", pod, w.lcore());
    e.add(kWorkerBusyCyclesTotal, l, static_cast<double>(w.busy_cycles()));
    e.add(kWorkerPacketsTotal, l, static_cast<double>(w.busy_packets()));
  }
  return e.text();
}

}  // namespace nfv
