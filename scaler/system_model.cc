// The topology compiled once for the fluid model: pool indexing, service
// rates per hop and the lowest-delay route between every pair of sites.
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "system_model.h"

namespace nfv {

SystemModel::SystemModel(Topology topology, SimSettings settings)
    : topology_(std::move(topology)),
      settings_(settings),
      cost_model_(topology_, settings.sla, settings.scale.mean_packet_bytes),
      pool_index_(topology_) {
  if (!(settings_.scale.slot_wall_seconds > 0))
    throw std::invalid_argument("simulator: slot_wall_seconds: expected > 0");
  if (!(settings_.queue_packets_per_instance >= 0))
    throw std::invalid_argument("simulator: queue_packets_per_instance: expected >= 0");
  for (const Chain& chain : topology_.chains)
    for (std::size_t vnf : chain.vnfs) {
      const double rate = topology_.vnf_types.at(vnf).service_rate_pps;
      if (!(rate > 0))
        throw std::invalid_argument("simulator: VNF type '" + topology_.vnf_types[vnf].name +
                                    "': service_rate_pps: expected > 0");
      service_rate_pps_.push_back(rate);
    }
  // Unreachable pairs get an infinite delay and no links: traffic a plan
  // sends between them is counted late, never silently fast.
  const std::size_t n = sites();
  route_delay_ms_.assign(n * n, std::numeric_limits<double>::infinity());
  route_begin_.assign(n * n + 1, 0);
  for (std::size_t from = 0; from < n; ++from)
    for (std::size_t to = 0; to < n; ++to) {
      const std::size_t pair = from * n + to;
      route_begin_[pair] = route_link_ids_.size();
      if (from == to) {
        route_delay_ms_[pair] = 0;
        continue;
      }
      if (const auto path = topology_.shortest_path(from, to)) {
        route_delay_ms_[pair] = path->delay_ms;
        route_link_ids_.insert(route_link_ids_.end(), path->links.begin(), path->links.end());
      }
    }
  route_begin_[n * n] = route_link_ids_.size();
}

std::span<const std::size_t> SystemModel::route_links(std::size_t from, std::size_t to) const {
  const std::size_t pair = from * sites() + to;
  return {route_link_ids_.data() + route_begin_[pair], route_begin_[pair + 1] - route_begin_[pair]};
}

bool SystemModel::within_sla(std::size_t chain, std::size_t site) const {
  const Chain& c = topology_.chains[chain];
  return route_delay_ms(c.ingress, site) + route_delay_ms(site, c.egress) <= c.sla_latency_ms;
}

std::vector<std::size_t> SystemModel::sla_sites(std::size_t chain) const {
  std::vector<std::size_t> sites_within;
  for (std::size_t s = 0; s < sites(); ++s)
    if (within_sla(chain, s)) sites_within.push_back(s);
  if (sites_within.empty()) sites_within.push_back(topology_.chains[chain].ingress);
  return sites_within;
}

}  // namespace nfv
