// The derived <name>_nodes.csv / <name>_edges.csv pairs of
// ../shared/data/topologies (SNDlib, Topology Zoo, B4) -> Topology.
#include <filesystem>
#include <map>
#include <stdexcept>

#include "csv_table.h"
#include "import_naming.h"
#include "topology.h"

namespace nfv {

Topology import_topology_csv(const std::string& nodes_csv, const std::string& edges_csv) {
  const CsvTable nodes = read_csv_table(nodes_csv);
  const CsvTable edges = read_csv_table(edges_csv);
  const std::size_t id = nodes.column("node_id");
  const std::size_t lat = nodes.column("latitude");
  const std::size_t lon = nodes.column("longitude");

  std::vector<std::string> labels;
  if (nodes.has_column("label"))
    for (const auto& row : nodes.rows) labels.push_back(row[nodes.column("label")]);
  const bool by_label = labels_usable_as_names(labels);

  Topology t;
  std::string stem = std::filesystem::path(nodes_csv).stem().string();
  if (stem.ends_with("_nodes")) stem.resize(stem.size() - 6);
  t.name = stem;
  t.source = nodes_csv + ", " + edges_csv;
  std::map<std::string, std::size_t> site_of_node;
  for (std::size_t r = 0; r < nodes.rows.size(); ++r) {
    const std::string& node = nodes.rows[r][id];
    if (!site_of_node.emplace(node, t.sites.size()).second) nodes.fail(r, id, "a node_id not used before");
    t.sites.push_back(Site{by_label ? labels[r] : node, nodes.number(r, lat), nodes.number(r, lon), 0, 0, 0});
  }

  const std::size_t src = edges.column("src");
  const std::size_t dst = edges.column("dst");
  const bool has_capacity = edges.has_column("capacity_mbps");
  for (std::size_t r = 0; r < edges.rows.size(); ++r) {
    const auto site = [&](std::size_t column) {
      const auto it = site_of_node.find(edges.rows[r][column]);
      if (it == site_of_node.end()) edges.fail(r, column, "a node_id of " + nodes_csv);
      return it->second;
    };
    Link& link = t.links[t.add_link(site(src), site(dst))];
    // An empty capacity means the source does not say (0 = unknown).
    if (has_capacity && !edges.rows[r][edges.column("capacity_mbps")].empty())
      link.bandwidth_mbps = edges.number(r, edges.column("capacity_mbps"));
  }
  return t;
}

}  // namespace nfv
