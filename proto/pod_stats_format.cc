#include "pod_stats_format.h"

#include <fmt/format.h>
#include <google/protobuf/util/json_util.h>

namespace nfv {

std::string format_pod_stats(const nfv::stats::PodStats& s) {
  std::string text = fmt::format("pod {}: {:.2f} s forwarding\n", s.pod(), s.forwarding_s());
  text += fmt::format("  {:<12} {:<9} {:<10} {:>12} {:>14} {:>12} {:>14} {:>10}\n", "port", "driver", "site", "rx_pkts",
                      "rx_bytes", "tx_pkts", "tx_bytes", "passed");
  for (const auto& p : s.ports())
    text += fmt::format("  {:<12} {:<9} {:<10} {:>12} {:>14} {:>12} {:>14} {:>10}\n", p.name(), p.driver(), p.site(),
                        p.rx_packets(), p.rx_bytes(), p.tx_packets(), p.tx_bytes(), p.default_passed());
  text += fmt::format("  {:<12} {:>6} {:>12} {:>12} {:>10} {:>10} {:>10} {:>12}\n", "chain", "spi", "in_pkts", "out_pkts",
                      "p50_us", "p95_us", "p99_us", "fast_path");
  for (const auto& c : s.chains())
    text += fmt::format("  {:<12} {:>6} {:>12} {:>12} {:>10.1f} {:>10.1f} {:>10.1f} {:>12}\n", c.name(), c.id(), c.in_packets(),
                        c.out_packets(), c.latency().p50_us(), c.latency().p95_us(), c.latency().p99_us(), c.fast_path_packets());
  for (const auto& h : s.hops()) {
    text += fmt::format("  hop {}/{} {} @{}: {} instance(s), in {} out {} dropped {} queue_full {}", h.chain(), h.hop(),
                        h.vnf(), h.site(), h.active_instances(), h.in_packets(), h.out_packets(), h.dropped(), h.queue_full());
    for (const auto& c : h.counters()) text += fmt::format(" {}={}", c.name(), c.value());
    text += "\n";
  }
  for (const auto& site : s.sites())
    text += fmt::format("  site {}: {} active + {} draining instances, {} processed, {:.2f} busy cores, rx {} tx {}\n", site.name(),
                        site.active_instances(), site.draining_instances(), site.processed_packets(), site.busy_cores(),
                        site.rx_packets(), site.tx_packets());
  for (const auto& l : s.links())
    text += fmt::format("  link {} ({:.3f} ms): offered {} released {} lost {} queue_full {} bw_drops {}\n", l.name(),
                        l.delay_ms(), l.offered_packets(), l.released_packets(), l.lost(), l.queue_full(),
                        l.bandwidth_drops());
  for (const auto& d : s.drops()) text += fmt::format("  drop {:<18} {:>10}  ({})\n", d.reason(), d.packets(), d.description());
  for (const auto& w : s.workers())
    text += fmt::format("  worker lcore {}: {} busy packets, {:.1f} cycles/packet, {} sleeps\n", w.lcore(), w.busy_packets(),
                        w.cycles_per_packet(), w.sleeps());
  if (s.mempool_in_use_after_close() >= 0)
    text += fmt::format("  mempool: {} mbufs, {} in use after close\n", s.mempool_size(), s.mempool_in_use_after_close());
  return text;
}

std::string message_json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

}  // namespace nfv
