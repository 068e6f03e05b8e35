#include "topology.h"

#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>

namespace nfv {
namespace {

template <typename Items>
std::optional<std::size_t> find_by_name(const Items& items, std::string_view name) {
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return i;
  return std::nullopt;
}

bool connects(const Link& link, std::size_t from, std::size_t to) {
  return (link.from == from && link.to == to) || (link.bidirectional && link.from == to && link.to == from);
}

}  // namespace

std::optional<std::size_t> Topology::find_site(std::string_view site_name) const {
  return find_by_name(sites, site_name);
}

std::size_t Topology::site_index(std::string_view site_name) const {
  if (auto index = find_site(site_name)) return *index;
  throw std::runtime_error("topology " + name + ": no site named '" + std::string(site_name) + "'");
}

std::optional<std::size_t> Topology::find_vnf_type(std::string_view vnf_name) const {
  return find_by_name(vnf_types, vnf_name);
}

void Topology::resolve_delay(Link& link) const {
  const Site& a = sites.at(link.from);
  const Site& b = sites.at(link.to);
  link.distance_km = great_circle_km(a.latitude_deg, a.longitude_deg, b.latitude_deg, b.longitude_deg);
  if (!link.delay_given) link.delay_ms = propagation_delay_ms(link.distance_km, link.route_factor);
}

std::size_t Topology::add_link(std::size_t from, std::size_t to, std::optional<double> delay_ms, double route_factor) {
  Link link;
  link.from = from;
  link.to = to;
  link.route_factor = route_factor;
  link.delay_given = delay_ms.has_value();
  link.delay_ms = delay_ms.value_or(0.0);
  resolve_delay(link);
  links.push_back(link);
  return links.size() - 1;
}

const Link* Topology::link_between(std::size_t from, std::size_t to) const {
  const Link* best = nullptr;
  for (const Link& link : links)
    if (connects(link, from, to) && (!best || link.delay_ms < best->delay_ms)) best = &link;
  return best;
}

std::optional<Path> Topology::shortest_path(std::size_t from, std::size_t to) const {
  if (from >= sites.size() || to >= sites.size()) throw std::out_of_range("shortest_path: site index out of range");
  constexpr double kUnreached = std::numeric_limits<double>::infinity();
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<double> delay(sites.size(), kUnreached);
  std::vector<std::size_t> via_link(sites.size(), kNone);
  using Entry = std::pair<double, std::size_t>;  // delay so far, site
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> frontier;
  delay[from] = 0;
  frontier.push({0, from});
  while (!frontier.empty()) {
    const auto [reached, site] = frontier.top();
    frontier.pop();
    if (reached > delay[site]) continue;  // a stale entry
    if (site == to) break;
    for (std::size_t l = 0; l < links.size(); ++l) {
      const Link& link = links[l];
      std::size_t next;
      if (link.from == site) next = link.to;
      else if (link.bidirectional && link.to == site) next = link.from;
      else continue;
      if (reached + link.delay_ms < delay[next]) {
        delay[next] = reached + link.delay_ms;
        via_link[next] = l;
        frontier.push({delay[next], next});
      }
    }
  }
  if (delay[to] == kUnreached) return std::nullopt;
  Path path;
  path.delay_ms = delay[to];
  for (std::size_t site = to; site != from;) {
    const Link& link = links[via_link[site]];
    path.links.insert(path.links.begin(), via_link[site]);
    path.sites.insert(path.sites.begin(), site);
    site = link.to == site ? link.from : link.to;
  }
  path.sites.insert(path.sites.begin(), from);
  return path;
}

}  // namespace nfv
