#include "pod_layout.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "burst_size.h"
#include "config_error.h"
#include "geo_distance.h"
#include "tls_config.h"
#include "vnf.h"

namespace nfv {
namespace {

using nfv::config::PodConfig;

std::string at(const std::string& list, int index) { return list + "[" + std::to_string(index) + "]"; }

int require_site(const PodLayout& layout, const std::string& name, const std::string& field) {
  const int index = layout.site_index(name);
  if (index == kNoIndex) {
    std::string known;
    for (const auto& s : layout.sites) known += (known.empty() ? "" : ", ") + s.name;
    throw ConfigError(field, "the name of a site in `sites` (" + known + "), got '" + name + "'");
  }
  return index;
}

int require_port(const PodLayout& layout, const std::string& name, const std::string& field) {
  const int index = layout.port_index(name);
  if (index == kNoIndex) throw ConfigError(field, "the name of a port in `ports`, got '" + name + "'");
  return index;
}

void build_sites(const PodConfig& config, PodLayout& layout) {
  if (config.sites().empty()) throw ConfigError("sites", "at least one site");
  if (config.sites_size() > kMaxSites) throw ConfigError("sites", "at most " + std::to_string(kMaxSites) + " sites");
  for (int i = 0; i < config.sites_size(); ++i) {
    const auto& site = config.sites(i);
    const std::string field = at("sites", i);
    if (site.name().empty()) throw ConfigError(field + ".name", "a non-empty site name");
    if (layout.site_index(site.name()) != kNoIndex) throw ConfigError(field + ".name", "a unique name, '" + site.name() + "' is repeated");
    if (site.lat() < -90 || site.lat() > 90) throw ConfigError(field + ".lat", "a latitude in [-90, 90]");
    if (site.lon() < -180 || site.lon() > 180) throw ConfigError(field + ".lon", "a longitude in [-180, 180]");
    layout.sites.push_back(SiteInfo{site.name(), site.lat(), site.lon(), false});
  }
  if (config.hosted_sites().empty()) throw ConfigError("hosted_sites", "at least one site this pod runs");
  for (int i = 0; i < config.hosted_sites_size(); ++i)
    layout.sites[require_site(layout, config.hosted_sites(i), at("hosted_sites", i))].hosted = true;
}

std::vector<DelayStep> read_delay_trace_file(const std::string& path, const std::string& field) {
  std::ifstream in(path);
  if (!in) throw ConfigError(field, "a readable CSV file of 'at_ms,delay_ms' lines, cannot open '" + path + "'");
  std::vector<DelayStep> steps;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#' || std::isalpha(static_cast<unsigned char>(line[0]))) continue;
    std::istringstream row(line);
    DelayStep step{};
    char comma = 0;
    if (!(row >> step.at_ms >> comma >> step.delay_ms) || comma != ',')
      throw ConfigError(field, "'at_ms,delay_ms' on line " + std::to_string(line_no) + " of " + path);
    steps.push_back(step);
  }
  return steps;
}

WanLinkParams build_link_params(const nfv::config::Link& link, const PodLayout& layout, int from, int to,
                                const std::string& field) {
  WanLinkParams p;
  const double route_factor = link.route_factor() == 0 ? 1.0 : link.route_factor();
  if (route_factor < 1.0) throw ConfigError(field + ".route_factor", "a factor >= 1 (a route is never shorter than the great circle)");
  if (link.has_delay_ms()) {
    if (link.delay_ms() < 0) throw ConfigError(field + ".delay_ms", "a delay >= 0 ms");
    p.delay_ms = link.delay_ms();
  } else {
    const auto& a = layout.sites[from];
    const auto& b = layout.sites[to];
    p.delay_ms = propagation_delay_ms(great_circle_km(a.lat, a.lon, b.lat, b.lon), route_factor);
  }
  if (link.jitter_ms() < 0) throw ConfigError(field + ".jitter_ms", "a jitter >= 0 ms");
  if (link.loss() < 0 || link.loss() > 1) throw ConfigError(field + ".loss", "a probability in [0, 1]");
  if (link.bandwidth_mbps() < 0) throw ConfigError(field + ".bandwidth_mbps", "a bandwidth >= 0 (0 = unlimited)");
  if (link.buffer_ms() < 0) throw ConfigError(field + ".buffer_ms", "a buffer >= 0 ms");
  p.jitter_ms = link.jitter_ms();
  p.loss = link.loss();
  p.bandwidth_mbps = link.bandwidth_mbps();
  if (link.buffer_ms() > 0) p.buffer_ms = link.buffer_ms();
  if (link.queue_packets() != 0) {
    if (link.queue_packets() > (1u << 22)) throw ConfigError(field + ".queue_packets", "at most 4194304 packets");
    p.queue_packets = link.queue_packets();
  }
  for (const auto& point : link.delay_trace()) p.delay_trace.push_back({point.at_ms(), point.delay_ms()});
  if (!link.delay_trace_file().empty()) {
    if (!p.delay_trace.empty()) throw ConfigError(field + ".delay_trace_file", "either delay_trace or delay_trace_file, not both");
    p.delay_trace = read_delay_trace_file(link.delay_trace_file(), field + ".delay_trace_file");
  }
  for (std::size_t i = 0; i < p.delay_trace.size(); ++i) {
    const auto& step = p.delay_trace[i];
    if (step.delay_ms < 0 || step.at_ms < 0 || (i > 0 && step.at_ms <= p.delay_trace[i - 1].at_ms))
      throw ConfigError(field + ".delay_trace", "points with increasing at_ms >= 0 and delay_ms >= 0 (point " + std::to_string(i) + ")");
  }
  if (link.delay_trace_period_ms() < 0 ||
      (link.delay_trace_period_ms() > 0 && !p.delay_trace.empty() && link.delay_trace_period_ms() <= p.delay_trace.back().at_ms))
    throw ConfigError(field + ".delay_trace_period_ms", "a period longer than the last trace point's at_ms");
  p.delay_trace_period_ms = link.delay_trace_period_ms();
  return p;
}

void add_link(PodLayout& layout, int from, int to, WanLinkParams params, const std::string& field) {
  int& slot = layout.link_index[from * layout.sites.size() + to];
  if (slot != kNoIndex) throw ConfigError(field, "one link per direction, " + layout.links[slot].name + " is repeated");
  slot = static_cast<int>(layout.links.size());
  layout.links.push_back(LinkInfo{layout.sites[from].name + "->" + layout.sites[to].name, from, to, std::move(params), kNoIndex});
}

void build_links(const PodConfig& config, PodLayout& layout) {
  layout.link_index.assign(layout.sites.size() * layout.sites.size(), kNoIndex);
  for (int i = 0; i < config.links_size(); ++i) {
    const auto& link = config.links(i);
    const std::string field = at("links", i);
    const int from = require_site(layout, link.from(), field + ".from");
    const int to = require_site(layout, link.to(), field + ".to");
    if (from == to) throw ConfigError(field + ".to", "a site other than `from`");
    const WanLinkParams params = build_link_params(link, layout, from, to, field);
    add_link(layout, from, to, params, field);
    if (link.bidirectional()) add_link(layout, to, from, params, field);
  }
}

// The ports' devices are read as any port set's; their sites are the pod's.
void build_ports(const PodConfig& config, PodLayout& layout) {
  read_ports(config.ports(), layout);
  for (int i = 0; i < config.ports_size(); ++i) {
    const auto& port = config.ports(i);
    const std::string field = at("ports", i);
    PortInfo& info = layout.ports[i];
    info.site = require_site(layout, port.site(), field + ".site");
    if (!layout.sites[info.site].hosted) throw ConfigError(field + ".site", "a site this pod hosts (in hosted_sites)");
    for (int j = 0; j < port.peer_sites_size(); ++j) {
      const int peer = require_site(layout, port.peer_sites(j), at(field + ".peer_sites", j));
      if (layout.sites[peer].hosted) throw ConfigError(at(field + ".peer_sites", j), "a site hosted by another pod");
      info.peer_sites.push_back(peer);
    }
  }
  // A link to a remote site leaves through the port that reaches that site.
  for (auto& link : layout.links) {
    if (!layout.sites[link.from].hosted || layout.sites[link.to].hosted) continue;
    for (std::size_t p = 0; p < layout.ports.size(); ++p) {
      const auto& port = layout.ports[p];
      if (port.site == link.from && std::count(port.peer_sites.begin(), port.peer_sites.end(), link.to)) {
        link.port = static_cast<int>(p);
        break;
      }
    }
  }
}

std::array<uint8_t, 16> prefix_mask(int length) {
  std::array<uint8_t, 16> mask{};
  for (int i = 0; i < 16; ++i) {
    const int bits = std::clamp(length - i * 8, 0, 8);
    mask[i] = static_cast<uint8_t>(0xff00 >> bits);
  }
  return mask;
}

// Parses "10.0.0.0/8" or "2001:db8::/32"; returns the family (4 or 6).
int parse_prefix(const std::string& text, std::array<uint8_t, 16>& addr, std::array<uint8_t, 16>& mask,
                 const std::string& field) {
  const auto slash = text.find('/');
  const std::string address = text.substr(0, slash);
  const bool v6 = address.find(':') != std::string::npos;
  const int max_len = v6 ? 128 : 32;
  int length = max_len;
  if (slash != std::string::npos) {
    const std::string len_text = text.substr(slash + 1);
    auto [end, ec] = std::from_chars(len_text.data(), len_text.data() + len_text.size(), length);
    if (ec != std::errc() || end != len_text.data() + len_text.size() || length < 0 || length > max_len)
      throw ConfigError(field, "a prefix length 0.." + std::to_string(max_len) + " in '" + text + "'");
  }
  addr.fill(0);
  if (inet_pton(v6 ? AF_INET6 : AF_INET, address.c_str(), addr.data()) != 1)
    throw ConfigError(field, "an IPv4 or IPv6 prefix like 10.0.0.0/8 or 2001:db8::/32, got '" + text + "'");
  mask = prefix_mask(length);
  for (int i = 0; i < 16; ++i) addr[i] &= mask[i];
  return v6 ? 6 : 4;
}

void parse_port_range(const std::string& text, uint16_t& lo, uint16_t& hi, const std::string& field) {
  unsigned a = 0, b = 0;
  char tail;
  const int n = std::sscanf(text.c_str(), "%u-%u%c", &a, &b, &tail);
  if (n == 1) b = a;
  if ((n != 1 && n != 2) || a > b || b > 65535) throw ConfigError(field, "a port or range like 80 or 1024-65535, got '" + text + "'");
  lo = static_cast<uint16_t>(a);
  hi = static_cast<uint16_t>(b);
}

int parse_protocol(const std::string& text, const std::string& field) {
  if (text == "tcp") return 6;
  if (text == "udp") return 17;
  if (text == "icmp") return 1;
  if (text == "icmpv6") return 58;
  if (text == "sctp") return 132;
  int value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > 255)
    throw ConfigError(field, "tcp, udp, icmp, icmpv6, sctp or a protocol number 0..255, got '" + text + "'");
  return value;
}

CompiledRule compile_rule(const nfv::config::MatchRule& rule, const std::string& field) {
  CompiledRule out;
  int src_family = 0, dst_family = 0;
  if (!rule.src_prefix().empty()) src_family = parse_prefix(rule.src_prefix(), out.src, out.src_mask, field + ".src_prefix");
  if (!rule.dst_prefix().empty()) dst_family = parse_prefix(rule.dst_prefix(), out.dst, out.dst_mask, field + ".dst_prefix");
  if (src_family && dst_family && src_family != dst_family)
    throw ConfigError(field + ".dst_prefix", "the same address family as src_prefix");
  out.family = static_cast<uint8_t>(src_family ? src_family : dst_family);
  if (!rule.protocol().empty()) out.protocol = parse_protocol(rule.protocol(), field + ".protocol");
  if (!rule.src_ports().empty()) parse_port_range(rule.src_ports(), out.src_port_lo, out.src_port_hi, field + ".src_ports");
  if (!rule.dst_ports().empty()) parse_port_range(rule.dst_ports(), out.dst_port_lo, out.dst_port_hi, field + ".dst_ports");
  return out;
}

void build_placements(const PodLayout& layout, const nfv::config::Hop& hop, HopInfo& info, const std::string& field) {
  if (hop.placements().empty()) {
    info.site = require_site(layout, hop.site(), field + ".site");
    info.sites = {info.site};
    info.split = {1.0};
    info.site_instances = {info.instances};
    return;
  }
  if (!hop.site().empty()) throw ConfigError(field + ".site", "either site or placements, not both");
  if (hop.placements_size() > kMaxPlacements) throw ConfigError(field + ".placements", "at most " + std::to_string(kMaxPlacements) + " placements");
  double total = 0;
  for (int i = 0; i < hop.placements_size(); ++i) {
    const auto& p = hop.placements(i);
    const std::string pf = at(field + ".placements", i);
    const int site = require_site(layout, p.site(), pf + ".site");
    if (std::count(info.sites.begin(), info.sites.end(), site)) throw ConfigError(pf + ".site", "each site once per hop");
    if (p.weight() < 0) throw ConfigError(pf + ".weight", "a weight >= 0");
    if (p.weight() > 0 && p.instances() == 0) throw ConfigError(pf + ".instances", "at least 1 instance where the weight is > 0");
    if (p.instances() > info.max_instances) throw ConfigError(pf + ".instances", "at most max_instances");
    info.sites.push_back(site);
    info.split.push_back(p.weight());
    info.site_instances.push_back(p.instances());
    total += p.weight();
  }
  if (total <= 0) throw ConfigError(field + ".placements", "at least one placement with weight > 0");
  for (auto& share : info.split) share /= total;
  info.site = info.sites[0];
}

void build_pool_settings(const nfv::config::Hop& hop, HopInfo& info, const std::string& field) {
  if (hop.max_instances()) {
    if (hop.max_instances() > kMaxInstancesPerPool)
      throw ConfigError(field + ".max_instances", "at most " + std::to_string(kMaxInstancesPerPool));
    info.max_instances = hop.max_instances();
  }
  if (hop.instances()) info.instances = hop.instances();
  if (info.instances > info.max_instances) throw ConfigError(field + ".instances", "at most max_instances (" + std::to_string(info.max_instances) + ")");
  if (hop.service_rate_pps() < 0) throw ConfigError(field + ".service_rate_pps", "a rate >= 0 (0 = unlimited)");
  info.service_rate_pps = hop.service_rate_pps();
  if (hop.queue_packets()) {
    const uint32_t q = hop.queue_packets();
    // At least two bursts: a ring of N holds N - 1, and a whole burst may be queued at once.
    if (q < 2 * kBurstSize || q > (1u << 20) || (q & (q - 1)))
      throw ConfigError(field + ".queue_packets", "a power of two in [" + std::to_string(2 * kBurstSize) + ", 1048576]");
    info.queue_packets = q;
  }
  if (hop.flow_idle_timeout_ms()) info.flow_idle_timeout_ms = hop.flow_idle_timeout_ms();
  if (hop.drain_timeout_ms()) info.drain_timeout_ms = hop.drain_timeout_ms();
}

// Every move between two sites of a chain (any placement of one stage to
// any placement of the next) needs a link this pod can use.
void check_route(const PodLayout& layout, const ChainInfo& chain, const std::string& field) {
  for (int s = 0; s + 1 < chain.stage_count(); ++s) {
    const std::string hop_field = s < static_cast<int>(chain.hops.size()) ? at(field + ".hops", s) + ".site" : field + ".egress_site";
    for (int a : chain.stage_sites(s))
      for (int b : chain.stage_sites(s + 1)) {
        if (a == b || !layout.sites[a].hosted) continue;
        const int link = layout.link_between(a, b);
        if (link == kNoIndex)
          throw ConfigError(hop_field, "a site reachable from " + layout.sites[a].name + ": add a link " +
                                           layout.sites[a].name + "->" + layout.sites[b].name + " to `links`");
        if (!layout.sites[b].hosted && layout.links[link].port == kNoIndex)
          throw ConfigError(hop_field, "a port at " + layout.sites[a].name + " with " + layout.sites[b].name +
                                           " in its peer_sites (the inter-pod link to that site)");
      }
  }
}

void build_chains(const PodConfig& config, PodLayout& layout) {
  std::set<uint32_t> spis;
  for (int i = 0; i < config.chains_size(); ++i) {
    const auto& c = config.chains(i);
    const std::string field = at("chains", i);
    ChainInfo chain;
    chain.name = c.name();
    if (chain.name.empty()) throw ConfigError(field + ".name", "a non-empty chain name");
    if (c.id() == 0 || c.id() > 0xffffff) throw ConfigError(field + ".id", "an NSH service path id in 1..16777215");
    if (!spis.insert(c.id()).second) throw ConfigError(field + ".id", "a unique id, " + std::to_string(c.id()) + " is repeated");
    chain.spi = c.id();
    chain.ingress_site = require_site(layout, c.ingress_site(), field + ".ingress_site");
    chain.egress_site = require_site(layout, c.egress_site(), field + ".egress_site");
    if (c.hops_size() > kMaxHops) throw ConfigError(field + ".hops", "at most " + std::to_string(kMaxHops) + " hops");
    chain.stage_site.push_back(chain.ingress_site);
    for (int h = 0; h < c.hops_size(); ++h) {
      const auto& hop = c.hops(h);
      const std::string hop_field = at(field + ".hops", h);
      if (!VnfRegistry::instance().contains(hop.vnf())) {
        std::string known;
        for (const auto& [name, description] : VnfRegistry::instance().list()) known += (known.empty() ? "" : ", ") + name;
        throw ConfigError(hop_field + ".vnf", "a registered VNF type (" + known + "), got '" + hop.vnf() + "'");
      }
      HopInfo info;
      info.vnf = hop.vnf();
      info.params = {hop.params().begin(), hop.params().end()};
      build_pool_settings(hop, info, hop_field);
      build_placements(layout, hop, info, hop_field);
      chain.stage_site.push_back(info.site);
      chain.hops.push_back(std::move(info));
    }
    chain.stage_site.push_back(chain.egress_site);
    if (layout.sites[chain.egress_site].hosted) {
      chain.egress_port = require_port(layout, c.egress_port(), field + ".egress_port");
      if (layout.ports[chain.egress_port].site != chain.egress_site)
        throw ConfigError(field + ".egress_port", "a port at the egress site " + layout.sites[chain.egress_site].name);
    }
    for (int r = 0; r < c.match_size(); ++r) chain.rules.push_back(compile_rule(c.match(r), at(field + ".match", r)));
    if (layout.sites[chain.ingress_site].hosted) {
      if (chain.rules.empty()) throw ConfigError(field + ".match", "at least one rule (an empty rule {} matches all IP traffic)");
      if (c.ingress_ports().empty()) {
        for (std::size_t p = 0; p < layout.ports.size(); ++p)
          if (layout.ports[p].site == chain.ingress_site && layout.ports[p].peer_sites.empty()) chain.ingress_ports.push_back(static_cast<int>(p));
      }
      for (int p = 0; p < c.ingress_ports_size(); ++p) {
        const int port = require_port(layout, c.ingress_ports(p), at(field + ".ingress_ports", p));
        if (layout.ports[port].site != chain.ingress_site)
          throw ConfigError(at(field + ".ingress_ports", p), "a port at the ingress site " + layout.sites[chain.ingress_site].name);
        chain.ingress_ports.push_back(port);
      }
    }
    if (c.has_fast_path()) chain.fast_path = c.fast_path();
    if (c.has_sla_ms()) {
      if (!(c.sla_ms() > 0 && c.sla_ms() < 1e9)) throw ConfigError(field + ".sla_ms", "a latency in milliseconds > 0");
      chain.sla_ns = static_cast<uint64_t>(c.sla_ms() * 1e6);
    }
    check_route(layout, chain, field);
    layout.chains.push_back(std::move(chain));
  }
}

void build_control(const nfv::config::Control& c, ControlSettings& out) {
  out.enabled = true;
  if (!c.listen().empty()) {
    in6_addr v6;
    in_addr v4;
    if (inet_pton(AF_INET, c.listen().c_str(), &v4) != 1 && inet_pton(AF_INET6, c.listen().c_str(), &v6) != 1)
      throw ConfigError("control.listen", "an IPv4 or IPv6 address to bind, got '" + c.listen() + "'");
    out.listen = c.listen();
  }
  if (c.port() > 65535) throw ConfigError("control.port", "a TCP port 0..65535 (0 = any free port)");
  out.port = static_cast<uint16_t>(c.port());
  if (c.token().empty()) throw ConfigError("control.token", "a token (mutating requests must present it)");
  out.token = c.token();
  if (c.has_metrics_port()) {
    if (c.metrics_port() > 65535) throw ConfigError("control.metrics_port", "a TCP port 0..65535 (0 = any free port)");
    out.metrics = true;
    out.metrics_port = static_cast<uint16_t>(c.metrics_port());
  }
  if (c.max_frame_bytes()) {
    if (c.max_frame_bytes() < 1024 || c.max_frame_bytes() > (64u << 20))
      throw ConfigError("control.max_frame_bytes", "a limit between 1024 and 67108864 bytes");
    out.max_frame_bytes = c.max_frame_bytes();
  }
  out.tls = tls_files(c.tls());
  if (const TlsFilesProblem problem = tls_files_problem(out.tls, "control.tls", out.listen, "listen " + out.listen); !problem.message.empty())
    throw ConfigError(problem.field, problem.message);
}

}  // namespace

int PodLayout::site_index(const std::string& site_name) const {
  for (std::size_t i = 0; i < sites.size(); ++i)
    if (sites[i].name == site_name) return static_cast<int>(i);
  return kNoIndex;
}

PodLayout build_pod_layout(const PodConfig& config) {
  PodLayout layout;
  read_process_name(config.name(), layout);
  build_sites(config, layout);
  build_links(config, layout);
  build_ports(config, layout);
  build_chains(config, layout);
  read_mempool(config.mempool(), config.link_wait_ms(), layout);
  if (config.has_fast_path_flows()) {
    if (config.fast_path_flows() > 65536) throw ConfigError("fast_path_flows", "at most 65536 flow records per worker (0 = off)");
    layout.fast_path_flows = config.fast_path_flows();
  }
  if (config.has_control()) build_control(config.control(), layout.control);
  return layout;
}

}  // namespace nfv
