// Topology -> our YAML schema, so imported topologies can be committed and
// reviewed as text. Derived delays are not written: loading derives them.
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "topology.h"

namespace nfv {
namespace {

void write_sites(YAML::Emitter& out, const Topology& t) {
  out << YAML::Key << "sites" << YAML::Value << YAML::BeginSeq;
  for (const Site& s : t.sites) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s.name
        << YAML::Key << "lat" << YAML::Value << s.latitude_deg << YAML::Key << "lon" << YAML::Value << s.longitude_deg
        << YAML::Key << "instance_capacity" << YAML::Value << s.instance_capacity
        << YAML::Key << "operating_price" << YAML::Value << s.operating_price
        << YAML::Key << "deployment_price" << YAML::Value << s.deployment_price << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void write_links(YAML::Emitter& out, const Topology& t) {
  out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
  for (const Link& l : t.links) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "from" << YAML::Value << t.sites[l.from].name
        << YAML::Key << "to" << YAML::Value << t.sites[l.to].name;
    if (l.delay_given) out << YAML::Key << "delay_ms" << YAML::Value << l.delay_ms;
    if (l.route_factor != 1.0) out << YAML::Key << "route_factor" << YAML::Value << l.route_factor;
    out << YAML::Key << "bandwidth_mbps" << YAML::Value << l.bandwidth_mbps
        << YAML::Key << "price_per_gb" << YAML::Value << l.price_per_gb;
    if (!l.bidirectional) out << YAML::Key << "bidirectional" << YAML::Value << false;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void write_vnf_types(YAML::Emitter& out, const Topology& t) {
  out << YAML::Key << "vnf_types" << YAML::Value << YAML::BeginSeq;
  for (const VnfProfile& v : t.vnf_types)
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << v.name
        << YAML::Key << "service_rate_pps" << YAML::Value << v.service_rate_pps
        << YAML::Key << "cpu_cores" << YAML::Value << v.cpu_cores
        << YAML::Key << "memory_mib" << YAML::Value << v.memory_mib << YAML::EndMap;
  out << YAML::EndSeq;
}

void write_chains(YAML::Emitter& out, const Topology& t) {
  out << YAML::Key << "chains" << YAML::Value << YAML::BeginSeq;
  for (const Chain& c : t.chains) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << c.name
        << YAML::Key << "ingress" << YAML::Value << t.sites[c.ingress].name
        << YAML::Key << "egress" << YAML::Value << t.sites[c.egress].name
        << YAML::Key << "vnfs" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (std::size_t v : c.vnfs) out << t.vnf_types[v].name;
    out << YAML::EndSeq << YAML::Key << "sla_latency_ms" << YAML::Value << c.sla_latency_ms << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

}  // namespace

std::string topology_to_yaml(const Topology& topology, const std::string& header) {
  YAML::Emitter out;
  out.SetDoublePrecision(10);
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << topology.name;
  write_sites(out, topology);
  write_links(out, topology);
  write_vnf_types(out, topology);
  write_chains(out, topology);
  out << YAML::EndMap;

  std::ostringstream text;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) text << (line.empty() ? "#" : "# " + line) << "\n";
  text << out.c_str() << "\n";
  return text.str();
}

}  // namespace nfv
