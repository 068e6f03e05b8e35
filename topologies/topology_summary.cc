// The human-readable account of a topology that `nfv-topology summary`
// prints: enough to check an import at a glance.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "topology.h"

namespace nfv {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace

std::string summarize(const Topology& t) {
  std::ostringstream out;
  out << "topology " << t.name << " (" << t.source << ")\n";
  out << "  " << t.sites.size() << " sites, " << t.links.size() << " links, " << t.vnf_types.size()
      << " VNF types, " << t.chains.size() << " chains\n";
  if (!t.links.empty()) {
    const auto [shortest, longest] = std::minmax_element(
        t.links.begin(), t.links.end(), [](const Link& a, const Link& b) { return a.delay_ms < b.delay_ms; });
    out << "  link delay " << fixed(shortest->delay_ms, 3) << " ms (" << t.sites[shortest->from].name << "-"
        << t.sites[shortest->to].name << ") .. " << fixed(longest->delay_ms, 3) << " ms ("
        << t.sites[longest->from].name << "-" << t.sites[longest->to].name << ")\n";
  }
  for (const Site& s : t.sites)
    out << "  site " << s.name << " at " << fixed(s.latitude_deg, 4) << "," << fixed(s.longitude_deg, 4) << ": "
        << s.instance_capacity << " instances, " << s.operating_price << "/instance-slot, " << s.deployment_price
        << "/deployment\n";
  for (const Link& l : t.links)
    out << "  link " << t.sites[l.from].name << (l.bidirectional ? " <-> " : " -> ") << t.sites[l.to].name << ": "
        << fixed(l.distance_km, 1) << " km, " << fixed(l.delay_ms, 3) << " ms"
        << (l.delay_given ? " (given)" : " (x" + fixed(l.route_factor, 2) + " great circle)") << ", "
        << (l.bandwidth_mbps > 0 ? fixed(l.bandwidth_mbps, 0) + " Mbit/s" : "bandwidth unknown") << "\n";
  for (const VnfProfile& v : t.vnf_types)
    out << "  vnf " << v.name << ": " << fixed(v.service_rate_pps, 0) << " pkt/s per instance, " << v.cpu_cores
        << " cores, " << v.memory_mib << " MiB\n";
  for (const Chain& c : t.chains) {
    out << "  chain " << c.name << ": " << t.sites[c.ingress].name << " ->";
    for (std::size_t v : c.vnfs) out << " " << t.vnf_types[v].name << " ->";
    out << " " << t.sites[c.egress].name << ", SLA " << c.sla_latency_ms << " ms";
    if (auto path = t.shortest_path(c.ingress, c.egress))
      out << ", shortest WAN path " << fixed(path->delay_ms, 3) << " ms";
    else
      out << ", egress unreachable";
    out << "\n";
  }
  for (const std::string& note : t.import_notes) out << "  note: " << note << "\n";
  return out.str();
}

}  // namespace nfv
