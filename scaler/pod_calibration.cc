// Pod counters -> calibration: sums per VNF type, limits, link delays.
#include "pod_calibration.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace nfv {
namespace {

std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// Everything measured about one VNF type over all pods.
struct VnfMeasurement {
  double packets = 0;         // processed by its instances
  double busy_seconds = 0;    // their processing time
  std::set<double> limits;    // configured service rates (0 = none)
  std::set<std::string> hops; // "chain/hop@site", for the record
};

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

PodCalibration calibrate_from_pods(const std::vector<stats::PodStats>& pods) {
  if (pods.empty()) throw std::invalid_argument("calibration needs the stats of at least one pod");
  PodCalibration out;
  std::map<std::string, VnfMeasurement> vnfs;
  std::map<std::uint32_t, int> queues;  // queue size -> hops with it
  std::map<std::pair<std::string, std::string>, double> delays;
  std::string names;
  double forwarding_s = 0;
  for (const stats::PodStats& pod : pods) {
    names += (names.empty() ? "" : ", ") + pod.pod();
    forwarding_s = std::max(forwarding_s, pod.forwarding_s());
    const double hz = pod.tsc_hz() > 0 ? static_cast<double>(pod.tsc_hz()) : 0;
    for (const stats::HopStats& hop : pod.hops()) {
      VnfMeasurement& m = vnfs[hop.vnf()];
      m.limits.insert(hop.service_rate_pps());
      m.hops.insert(hop.chain() + "/" + std::to_string(hop.hop()) + "@" + hop.site());
      if (hop.queue_packets() > 0) ++queues[hop.queue_packets()];
      for (const stats::InstanceStats& instance : hop.instances()) {
        m.packets += static_cast<double>(instance.in_packets());
        if (hz > 0) m.busy_seconds += static_cast<double>(instance.busy_cycles()) / hz;
      }
    }
    for (const stats::LinkStats& link : pod.links()) {
      if (link.from_site().empty() || link.to_site().empty()) continue;
      // One entry per site pair: the file's links are bidirectional.
      const auto key = std::minmax(link.from_site(), link.to_site());
      const auto [it, added] = delays.emplace(key, link.delay_ms());
      if (!added && it->second != link.delay_ms())
        out.warnings.push_back("link " + key.first + "-" + key.second + ": the two directions have delays " +
                               figure(it->second) + " and " + figure(link.delay_ms()) + " ms; the first is kept");
    }
  }
  calibration::Calibration& c = out.calibration;
  c.set_measured("nfv-calibrate from the stats of pods " + names + " (" + figure(forwarding_s) + " s of forwarding)");
  for (const auto& [vnf, m] : vnfs) {
    const bool measured = m.packets >= kMinMeasuredPackets && m.busy_seconds > 0;
    const double core_rate = measured ? m.packets / m.busy_seconds : 0;
    std::string where;
    for (const std::string& hop : m.hops) where += (where.empty() ? "" : ", ") + hop;
    if (m.limits.size() > 1) {
      out.warnings.push_back("VNF " + vnf + ": its hops (" + where +
                             ") have different configured rates; the simulator has one rate per VNF type, the "
                             "lowest is used");
    }
    double limit = 0;  // the lowest configured one; 0 = none
    for (double l : m.limits)
      if (l > 0) {
        limit = l;
        break;
      }
    double rate = 0;
    std::string derived;
    const std::string core_text = measured ? figure(core_rate) + " pkt/s on a core alone (" + figure(m.packets) +
                                                 " packets, " + figure(m.busy_seconds * 1e3) + " ms busy)"
                                           : "too few packets to time the core (" + figure(m.packets) + " < " +
                                                 figure(kMinMeasuredPackets) + ")";
    if (limit > 0 && (!measured || limit <= core_rate)) {
      rate = limit;
      derived = "configured limit; " + core_text;
    } else if (measured) {
      rate = core_rate;
      derived = limit > 0 ? "the core is slower than the configured limit " + figure(limit) + ": " + core_text : core_text;
    } else {
      out.warnings.push_back("VNF " + vnf + ": no configured limit and " + core_text + "; left out");
      continue;
    }
    auto* entry = c.add_vnf_rates();
    entry->set_vnf(vnf);
    entry->set_service_rate_pps(rate);
    entry->set_derived(derived + "; hops " + where);
  }
  for (const auto& [pair, delay] : delays) {
    auto* entry = c.add_link_delays();
    entry->set_from(pair.first);
    entry->set_to(pair.second);
    entry->set_delay_ms(delay);
  }
  if (!queues.empty()) {
    const auto most = std::max_element(queues.begin(), queues.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    if (queues.size() > 1)
      out.warnings.push_back("hops have different queue sizes; the simulator has one, the most common (" +
                             std::to_string(most->first) + ") is used");
    c.set_queue_packets_per_instance(most->first);
  }
  return out;
}

stats::PodStats read_pod_stats_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::stringstream text;
  text << in.rdbuf();
  stats::PodStats pod;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // stats written by a newer pod
  const auto status = google::protobuf::util::JsonStringToMessage(text.str(), &pod, options);
  if (!status.ok()) throw std::runtime_error(path + ": not pod stats JSON: " + status.ToString());
  return pod;
}

std::string calibration_to_yaml(const calibration::Calibration& c) {
  std::string y = "# Calibration for nfv-sim (docs/simulator.md), schema proto/calibration.proto.\n";
  y += "measured: " + quoted(c.measured()) + "\n";
  y += c.vnf_rates().empty() ? "vnf_rates: []\n" : "vnf_rates:                        # per-instance service rate, packets/s\n";
  for (const auto& r : c.vnf_rates())
    y += "  - {vnf: " + quoted(r.vnf()) + ", service_rate_pps: " + figure(r.service_rate_pps()) +
         ", derived: " + quoted(r.derived()) + "}\n";
  y += c.link_delays().empty() ? "link_delays: []\n" : "link_delays:                      # one-way, either direction of the link\n";
  for (const auto& d : c.link_delays())
    y += "  - {from: " + quoted(d.from()) + ", to: " + quoted(d.to()) + ", delay_ms: " + figure(d.delay_ms()) + "}\n";
  if (c.queue_packets_per_instance() > 0)
    y += "queue_packets_per_instance: " + figure(c.queue_packets_per_instance()) + "\n";
  return y;
}

}  // namespace nfv
