// A small topology cut out of a larger one (demo3 from Abilene): the chosen
// sites, joined where the big network joins them without passing another.
#include <algorithm>
#include <cmath>
#include <limits>

#include "topology.h"

namespace nfv {

Topology cut_topology(const Topology& full, const std::vector<std::string>& site_names, double route_factor) {
  Topology cut;
  cut.name = full.name;
  cut.source = full.source;
  cut.vnf_types = full.vnf_types;
  std::vector<std::size_t> kept;
  for (const std::string& name : site_names) {
    kept.push_back(full.site_index(name));
    cut.sites.push_back(full.sites[kept.back()]);
  }
  for (std::size_t a = 0; a < kept.size(); ++a) {
    for (std::size_t b = a + 1; b < kept.size(); ++b) {
      const auto path = full.shortest_path(kept[a], kept[b]);
      if (!path) continue;
      const bool passes_other_kept = std::any_of(path->sites.begin() + 1, path->sites.end() - 1, [&](std::size_t s) {
        return std::find(kept.begin(), kept.end(), s) != kept.end();
      });
      if (passes_other_kept) continue;
      double narrowest = std::numeric_limits<double>::infinity();
      for (std::size_t l : path->links)
        if (full.links[l].bandwidth_mbps > 0) narrowest = std::min(narrowest, full.links[l].bandwidth_mbps);
      Link& link = cut.links[cut.add_link(a, b, std::nullopt, route_factor)];
      link.bandwidth_mbps = std::isinf(narrowest) ? 0 : narrowest;
    }
  }
  cut.import_notes.push_back("cut of " + std::to_string(kept.size()) + " of the " + std::to_string(full.sites.size()) +
                             " sites of " + full.name);
  return cut;
}

}  // namespace nfv
