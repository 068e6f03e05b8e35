// Simple placements: the starting plan of the baselines and of the simulator.
#include <stdexcept>

#include "plan.h"

namespace nfv {

Placement parse_placement(const std::string& text) {
  if (text == "ingress") return Placement::ingress;
  if (text == "path") return Placement::along_path;
  throw std::invalid_argument("placement: expected 'ingress' or 'path', got '" + text + "'");
}

Plan place_chains(const Topology& topology, std::uint32_t instances, Placement placement) {
  Plan plan;
  for (std::size_t c = 0; c < topology.chains.size(); ++c) {
    const Chain& chain = topology.chains[c];
    std::vector<std::size_t> route{chain.ingress};
    if (placement == Placement::along_path) {
      const auto path = topology.shortest_path(chain.ingress, chain.egress);
      if (!path)
        throw std::invalid_argument("place_chains: chain '" + chain.name + "': no route from '" +
                                    topology.sites[chain.ingress].name + "' to '" + topology.sites[chain.egress].name + "'");
      route = path->sites;
    }
    const std::size_t hops = chain.vnfs.size();
    for (std::size_t h = 0; h < hops; ++h) {
      // Hop h of H sits at the same fraction of the way along the route.
      const std::size_t at = hops == 1 ? 0 : (h * (route.size() - 1) + (hops - 1) / 2) / (hops - 1);
      plan.pools.push_back(PoolPlan{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(h),
                                    static_cast<std::uint32_t>(route[at]), static_cast<std::int32_t>(instances), 1.0});
    }
  }
  return plan;
}

}  // namespace nfv
