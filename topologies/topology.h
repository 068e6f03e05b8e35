// The geo-distributed system as plain data: sites, WAN links with their
// resolved distance and delay, VNF type profiles and chains, all by index.
// Loaded from our YAML schema (proto/topology.proto) or imported from the
// real topologies in ../shared/data/topologies (SNDlib, Topology Zoo, B4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "geo_distance.h"

namespace nfv {

struct Site {
  std::string name;
  double latitude_deg = 0;
  double longitude_deg = 0;
  std::uint32_t instance_capacity = 0;
  double operating_price = 0;   // per instance per slot
  double deployment_price = 0;  // per newly started instance
};

struct Link {
  std::size_t from = 0;  // site indices
  std::size_t to = 0;
  double distance_km = 0;      // great circle between the two sites
  double route_factor = 1.0;   // fibre route length / great circle
  double delay_ms = 0;         // one-way: given, or derived from distance
  bool delay_given = false;    // delay_ms came from the file, not from distance
  double bandwidth_mbps = 0;   // 0 = unknown / unlimited
  double price_per_gb = 0;
  bool bidirectional = true;
};

struct VnfProfile {
  std::string name;
  double service_rate_pps = 0;  // packets/s one instance serves
  double cpu_cores = 0;
  double memory_mib = 0;
};

struct Chain {
  std::string name;
  std::size_t ingress = 0;  // site indices
  std::size_t egress = 0;
  std::vector<std::size_t> vnfs;  // VNF profile indices, in order
  double sla_latency_ms = 0;
};

// A route through the WAN: the sites visited (first = source) and the links
// taken between them.
struct Path {
  std::vector<std::size_t> sites;
  std::vector<std::size_t> links;
  double delay_ms = 0;
};

struct Topology {
  std::string name;
  std::string source;  // where it came from: file, origin, licence to cite
  std::vector<Site> sites;
  std::vector<Link> links;
  std::vector<VnfProfile> vnf_types;
  std::vector<Chain> chains;
  // What an importer changed or left out, e.g. nodes without coordinates.
  std::vector<std::string> import_notes;

  std::optional<std::size_t> find_site(std::string_view site_name) const;
  // Like find_site, but throws naming the site when it does not exist.
  std::size_t site_index(std::string_view site_name) const;
  std::optional<std::size_t> find_vnf_type(std::string_view vnf_name) const;

  // Adds a link between two sites, distance from their coordinates and delay
  // derived from it unless `delay_ms` is given. Returns its index.
  std::size_t add_link(std::size_t from, std::size_t to, std::optional<double> delay_ms = std::nullopt,
                       double route_factor = 1.0);
  // Recomputes distance and (unless given) delay, e.g. after a route factor change.
  void resolve_delay(Link& link) const;

  // The link usable from `from` to `to` (a bidirectional link either way);
  // with parallel links, the one with the lowest delay. nullptr if none.
  const Link* link_between(std::size_t from, std::size_t to) const;

  // Lowest-delay route (Dijkstra over link delays); nullopt if unreachable.
  std::optional<Path> shortest_path(std::size_t from, std::size_t to) const;
};

// --- Our YAML schema (proto/topology.proto) --------------------------------

// Reads and validates a topology file. Throws std::runtime_error
// "file:line: field.path: expected ..." on the first mistake.
Topology load_topology_yaml(const std::string& path);
// Same, from text (named `file_name` in errors).
Topology parse_topology_yaml(const std::string& text, const std::string& file_name);

// Writes `topology` in our schema, `header` as leading comment lines.
// Derived delays are left out so that loading derives them again.
std::string topology_to_yaml(const Topology& topology, const std::string& header);

// --- Importers of real topologies (../shared/data/topologies) --------------
// Imported sites have zero capacity and prices and links a route factor of
// 1.0; callers set what the source does not say. Errors name the file.

// SNDlib network XML: <node id> with <x>=longitude <y>=latitude, <link> with
// <source>, <target> and the preInstalledModule capacity in Mbit/s.
Topology import_sndlib_xml(const std::string& path);
// Topology Zoo GraphML. Parallel edges are merged into one link whose
// bandwidth is the sum of the known LinkSpeedRaw (bit/s). Site names as for
// the CSV importer below. Nodes without coordinates
// are left out, with their links, and listed in import_notes.
Topology import_zoo_graphml(const std::string& path);
// The derived CSV pairs next to the XML/GraphML files:
// <name>_nodes.csv (node_id[,label],latitude,longitude) and <name>_edges.csv
// (src,dst[,parallel_links,capacity_mbps],dist_km,prop_delay_ms).
// Works for SNDlib, Zoo and B4. Site names: the label when every node has a
// distinct one (as the GraphML importer does), else the node id.
Topology import_topology_csv(const std::string& nodes_csv, const std::string& edges_csv);

// Keeps only the named sites (in that order) and joins two of them directly
// when the lowest-delay route between them in `full` passes no other kept
// site. The new link's delay is derived from its own great circle with
// `route_factor`; its bandwidth is the narrowest along that route. Throws
// naming an unknown site.
Topology cut_topology(const Topology& full, const std::vector<std::string>& site_names, double route_factor);

// --- Reports ----------------------------------------------------------------

// Sites, links, delay range, VNF types, chains, import notes: what
// `nfv-topology summary` prints.
std::string summarize(const Topology& topology);

}  // namespace nfv
