// Our YAML schema -> Topology, with every cross-reference and range checked
// and errors located at the offending line.
#include <stdexcept>

#include "topology.h"
#include "topology.pb.h"
#include "yaml_message.h"

namespace nfv {
namespace {

class TopologyBuilder {
 public:
  explicit TopologyBuilder(const YamlSource& source) : source_(source) {}

  Topology build(const topology::Topology& message) {
    Topology out;
    out.name = message.name();
    out.source = source_.file;
    for (int i = 0; i < message.sites_size(); ++i) out.sites.push_back(site(message.sites(i), out, path("sites", i)));
    for (int i = 0; i < message.vnf_types_size(); ++i)
      out.vnf_types.push_back(vnf_type(message.vnf_types(i), out, path("vnf_types", i)));
    for (int i = 0; i < message.links_size(); ++i) add_link(message.links(i), out, path("links", i));
    for (int i = 0; i < message.chains_size(); ++i) out.chains.push_back(chain(message.chains(i), out, path("chains", i)));
    return out;
  }

 private:
  static std::string path(const std::string& list, int index) { return list + "[" + std::to_string(index) + "]"; }

  [[noreturn]] void fail(const std::string& field, const std::string& expected) const {
    throw std::runtime_error(source_.locate(field, expected));
  }

  void require_name(const std::string& name, const std::string& field) const {
    if (name.empty()) fail(field, "a name");
  }

  void require_at_least(double value, double minimum, const std::string& field) const {
    if (value < minimum) fail(field, "a value >= " + format(minimum) + ", got " + format(value));
  }

  void require_positive(double value, const std::string& field) const {
    if (!(value > 0)) fail(field, "a value > 0, got " + format(value));
  }

  static std::string format(double value) {
    std::string text = std::to_string(value);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
    return text;
  }

  std::size_t site_ref(const Topology& out, const std::string& name, const std::string& field) const {
    if (auto index = out.find_site(name)) return *index;
    fail(field, "the name of a site in sites, got '" + name + "'");
  }

  Site site(const topology::Site& m, const Topology& out, const std::string& at) const {
    require_name(m.name(), at + ".name");
    if (out.find_site(m.name())) fail(at + ".name", "a site name not used before, got '" + m.name() + "' again");
    if (m.lat() < -90 || m.lat() > 90) fail(at + ".lat", "degrees in -90..90, got " + format(m.lat()));
    if (m.lon() < -180 || m.lon() > 180) fail(at + ".lon", "degrees in -180..180, got " + format(m.lon()));
    require_at_least(m.operating_price(), 0, at + ".operating_price");
    require_at_least(m.deployment_price(), 0, at + ".deployment_price");
    return Site{m.name(), m.lat(), m.lon(), m.instance_capacity(), m.operating_price(), m.deployment_price()};
  }

  VnfProfile vnf_type(const topology::VnfType& m, const Topology& out, const std::string& at) const {
    require_name(m.name(), at + ".name");
    if (out.find_vnf_type(m.name()))
      fail(at + ".name", "a VNF type name not used before, got '" + m.name() + "' again");
    require_positive(m.service_rate_pps(), at + ".service_rate_pps");
    require_at_least(m.cpu_cores(), 0, at + ".cpu_cores");
    require_at_least(m.memory_mib(), 0, at + ".memory_mib");
    return VnfProfile{m.name(), m.service_rate_pps(), m.cpu_cores(), m.memory_mib()};
  }

  void add_link(const topology::Link& m, Topology& out, const std::string& at) const {
    const std::size_t from = site_ref(out, m.from(), at + ".from");
    const std::size_t to = site_ref(out, m.to(), at + ".to");
    if (from == to) fail(at + ".to", "a site other than from ('" + m.from() + "')");
    if (m.has_delay_ms()) require_at_least(m.delay_ms(), 0, at + ".delay_ms");
    if (m.has_route_factor()) require_at_least(m.route_factor(), 1.0, at + ".route_factor");
    require_at_least(m.bandwidth_mbps(), 0, at + ".bandwidth_mbps");
    require_at_least(m.price_per_gb(), 0, at + ".price_per_gb");
    const std::optional<double> delay = m.has_delay_ms() ? std::optional(m.delay_ms()) : std::nullopt;
    Link& link = out.links[out.add_link(from, to, delay, m.has_route_factor() ? m.route_factor() : 1.0)];
    link.bandwidth_mbps = m.bandwidth_mbps();
    link.price_per_gb = m.price_per_gb();
    link.bidirectional = m.has_bidirectional() ? m.bidirectional() : true;
  }

  Chain chain(const topology::Chain& m, const Topology& out, const std::string& at) const {
    require_name(m.name(), at + ".name");
    for (const Chain& earlier : out.chains)
      if (earlier.name == m.name()) fail(at + ".name", "a chain name not used before, got '" + m.name() + "' again");
    Chain c;
    c.name = m.name();
    c.ingress = site_ref(out, m.ingress(), at + ".ingress");
    c.egress = site_ref(out, m.egress(), at + ".egress");
    for (int i = 0; i < m.vnfs_size(); ++i) {
      const auto vnf = out.find_vnf_type(m.vnfs(i));
      if (!vnf) fail(path(at + ".vnfs", i), "the name of a VNF type in vnf_types, got '" + m.vnfs(i) + "'");
      c.vnfs.push_back(*vnf);
    }
    require_positive(m.sla_latency_ms(), at + ".sla_latency_ms");
    c.sla_latency_ms = m.sla_latency_ms();
    return c;
  }

  const YamlSource& source_;
};

}  // namespace

Topology parse_topology_yaml(const std::string& text, const std::string& file_name) {
  topology::Topology message;
  const YamlSource source = parse_yaml_message(text, file_name, message);
  return TopologyBuilder(source).build(message);
}

Topology load_topology_yaml(const std::string& path) {
  topology::Topology message;
  const YamlSource source = load_yaml_message(path, message);
  return TopologyBuilder(source).build(message);
}

}  // namespace nfv
