// Topologies: our YAML schema and its errors, the importers of the real
// topologies in ../shared/data/topologies, the ready-made files in
// topologies/data, and routing over the result.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "csv_table.h"
#include "topology.h"

namespace nfv {
namespace {

std::string shared(const std::string& relative) {
  const char* root = std::getenv("NFV_SHARED_DATA");
  if (!root) throw std::runtime_error("NFV_SHARED_DATA is not set (meson test sets it)");
  return std::string(root) + "/topologies/" + relative;
}

std::string repo(const std::string& relative) { return std::string(NFV_SOURCE_ROOT) + "/" + relative; }

// Counts checked independently with python3 (xml.etree, csv) against the
// files and their SOURCE.txt: SNDlib <node>/<link> elements; Zoo nodes and
// edges after merging parallel edges (AttMpls 57 -> 56, Ntt 216 -> 63).
struct Expected {
  std::string name;
  std::size_t sites, links;
};

void expect_delays_match_csv(const Topology& t, const std::string& edges_csv, const std::map<std::string, std::string>& name_of_id) {
  const CsvTable edges = read_csv_table(edges_csv);
  ASSERT_EQ(edges.rows.size(), t.links.size());
  for (std::size_t r = 0; r < edges.rows.size(); ++r) {
    const Link& link = t.links[r];
    SCOPED_TRACE(edges_csv + " row " + std::to_string(r));
    EXPECT_EQ(t.sites[link.from].name, name_of_id.at(edges.rows[r][edges.column("src")]));
    EXPECT_EQ(t.sites[link.to].name, name_of_id.at(edges.rows[r][edges.column("dst")]));
    const double csv_km = edges.number(r, edges.column("dist_km"));
    const double csv_ms = edges.number(r, edges.column("prop_delay_ms"));
    EXPECT_NEAR(link.distance_km, csv_km, 0.01 * csv_km);
    EXPECT_NEAR(link.delay_ms, csv_ms, 0.01 * csv_ms);
    EXPECT_NEAR(link.delay_ms, link.distance_km / kFibreKmPerMs, 1e-9);
  }
}

std::map<std::string, std::string> site_names_by_id(const std::string& nodes_csv, const Topology& t) {
  const CsvTable nodes = read_csv_table(nodes_csv);
  std::map<std::string, std::string> names;
  for (std::size_t r = 0; r < nodes.rows.size(); ++r) names[nodes.rows[r][nodes.column("node_id")]] = t.sites[r].name;
  return names;
}

TEST(SndlibImport, EveryNetworkHasItsNodesLinksAndGreatCircleDelays) {
  for (const Expected& e : {Expected{"abilene", 12, 15}, Expected{"nobel-eu", 28, 41}, Expected{"janos-us", 26, 84}}) {
    SCOPED_TRACE(e.name);
    const Topology xml = import_sndlib_xml(shared("sndlib/" + e.name + ".xml"));
    EXPECT_EQ(xml.sites.size(), e.sites);
    EXPECT_EQ(xml.links.size(), e.links);
    expect_delays_match_csv(xml, shared("sndlib/" + e.name + "_edges.csv"),
                            site_names_by_id(shared("sndlib/" + e.name + "_nodes.csv"), xml));

    const Topology csv = import_topology_csv(shared("sndlib/" + e.name + "_nodes.csv"), shared("sndlib/" + e.name + "_edges.csv"));
    ASSERT_EQ(csv.sites.size(), xml.sites.size());
    ASSERT_EQ(csv.links.size(), xml.links.size());
    for (std::size_t i = 0; i < xml.sites.size(); ++i) EXPECT_EQ(csv.sites[i].name, xml.sites[i].name);
    for (std::size_t i = 0; i < xml.links.size(); ++i) EXPECT_NEAR(csv.links[i].bandwidth_mbps, xml.links[i].bandwidth_mbps, 1e-9);
  }
}

TEST(SndlibImport, AbileneHasTheTrafficMatrixRouterIdsAndOc192Capacities) {
  const Topology t = import_sndlib_xml(shared("sndlib/abilene.xml"));
  for (const char* id : {"ATLAM5", "ATLAng", "CHINng", "DNVRng", "HSTNng", "IPLSng", "KSCYng", "LOSAng", "NYCMng",
                         "SNVAng", "STTLng", "WASHng"})
    EXPECT_TRUE(t.find_site(id)) << id;
  // SOURCE.txt: 9920 Mbit/s on 14 links, 2480 on one (IPLS-ATLA).
  int oc192 = 0;
  for (const Link& l : t.links) oc192 += l.bandwidth_mbps == 9920.0;
  EXPECT_EQ(oc192, 14);
  EXPECT_EQ(t.link_between(t.site_index("IPLSng"), t.site_index("ATLAng"))->bandwidth_mbps, 2480.0);
}

TEST(ZooImport, GraphmlAndCsvAgreeOnSitesLinksCapacitiesAndDelays) {
  for (const Expected& e : {Expected{"Abilene", 11, 14}, Expected{"Geant2009", 34, 52}, Expected{"AttMpls", 25, 56},
                            Expected{"Ntt", 47, 63}}) {
    SCOPED_TRACE(e.name);
    const Topology graphml = import_zoo_graphml(shared("zoo/" + e.name + ".graphml"));
    EXPECT_EQ(graphml.sites.size(), e.sites);
    EXPECT_EQ(graphml.links.size(), e.links);
    EXPECT_TRUE(graphml.import_notes.empty());  // every shipped node has coordinates
    const std::string nodes = shared("zoo/" + e.name + "_nodes.csv");
    const std::string edges = shared("zoo/" + e.name + "_edges.csv");
    expect_delays_match_csv(graphml, edges, site_names_by_id(nodes, graphml));

    const Topology csv = import_topology_csv(nodes, edges);
    ASSERT_EQ(csv.links.size(), graphml.links.size());
    for (std::size_t i = 0; i < csv.sites.size(); ++i) EXPECT_EQ(csv.sites[i].name, graphml.sites[i].name);
    for (std::size_t i = 0; i < csv.links.size(); ++i)
      EXPECT_NEAR(csv.links[i].bandwidth_mbps, graphml.links[i].bandwidth_mbps, 1e-6) << "link " << i;
  }
}

TEST(ZooImport, LabelsNameTheSitesAndNttReachesLongHaulDelays) {
  const Topology abilene = import_zoo_graphml(shared("zoo/Abilene.graphml"));
  EXPECT_TRUE(abilene.find_site("New York"));
  const Topology ntt = import_zoo_graphml(shared("zoo/Ntt.graphml"));
  double longest = 0;
  for (const Link& l : ntt.links) longest = std::max(longest, l.delay_ms);
  EXPECT_NEAR(longest, 59.8, 0.1);  // SOURCE.txt: links up to ~60 ms
}

TEST(ZooImport, NodesWithoutCoordinatesAreLeftOutWithTheirLinksAndNoted) {
  const std::string path = testing::TempDir() + "/partial.graphml";
  {
    std::ofstream out(path);
    out << R"(<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key attr.name="label" for="node" id="d0"/><key attr.name="Latitude" for="node" id="d1"/>
  <key attr.name="Longitude" for="node" id="d2"/>
  <graph edgedefault="undirected">
    <node id="0"><data key="d0">Paris</data><data key="d1">48.85</data><data key="d2">2.35</data></node>
    <node id="1"><data key="d0">Berlin</data><data key="d1">52.52</data><data key="d2">13.40</data></node>
    <node id="2"><data key="d0">Nowhere</data></node>
    <edge source="0" target="1"/><edge source="1" target="2"/>
  </graph></graphml>)";
  }
  const Topology t = import_zoo_graphml(path);
  EXPECT_EQ(t.sites.size(), 2u);
  EXPECT_EQ(t.links.size(), 1u);
  ASSERT_EQ(t.import_notes.size(), 2u);
  EXPECT_NE(t.import_notes[0].find("Nowhere"), std::string::npos);
}

TEST(B4Import, EighteenSitesFortyLinksWithTheCsvDelays) {
  const std::string nodes = shared("b4/b4_nodes.csv");
  const Topology t = import_topology_csv(nodes, shared("b4/b4_edges.csv"));
  EXPECT_EQ(t.sites.size(), 18u);
  EXPECT_EQ(t.links.size(), 40u);
  expect_delays_match_csv(t, shared("b4/b4_edges.csv"), site_names_by_id(nodes, t));
}

TEST(Importers, MissingOrBrokenFilesNameTheFile) {
  EXPECT_THROW(
      try { import_sndlib_xml("/nonexistent/abilene.xml"); } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/abilene.xml"), std::string::npos) << e.what();
        throw;
      },
      std::runtime_error);
  const std::string broken = testing::TempDir() + "/broken.graphml";
  std::ofstream(broken) << "<graphml><graph><node id=";
  try {
    import_zoo_graphml(broken);
    FAIL() << "a truncated GraphML file loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(broken), std::string::npos) << e.what();
  }
  try {
    import_topology_csv(shared("b4/b4_nodes.csv"), shared("zoo/Ntt_edges.csv"));
    FAIL() << "edges naming unknown nodes loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Ntt_edges.csv:"), std::string::npos) << e.what();
  }
}

// --- Our YAML schema -------------------------------------------------------

constexpr const char* kValid = R"(name: tiny
sites:
  - {name: A, lat: 40.7833, lon: -73.9667, instance_capacity: 4, operating_price: 1, deployment_price: 5}
  - {name: B, lat: 41.8333, lon: -87.6167, instance_capacity: 4}
  - {name: C, lat: 38.961694, lon: -96.596704}
links:
  - {from: A, to: B, route_factor: 1.3, bandwidth_mbps: 1000, price_per_gb: 0.02}
  - {from: B, to: C, delay_ms: 9}
  - {from: A, to: C, delay_ms: 30, bidirectional: false}
vnf_types:
  - {name: counter, service_rate_pps: 500000, cpu_cores: 1, memory_mib: 512}
chains:
  - {name: video, ingress: A, egress: C, vnfs: [counter, counter], sla_latency_ms: 50}
)";

TEST(TopologyYaml, ResolvesNamesDelaysAndDefaults) {
  const Topology t = parse_topology_yaml(kValid, "tiny.yaml");
  ASSERT_EQ(t.sites.size(), 3u);
  ASSERT_EQ(t.links.size(), 3u);
  const Link& ab = t.links[0];
  EXPECT_NEAR(ab.distance_km, great_circle_km(40.7833, -73.9667, 41.8333, -87.6167), 1e-9);
  EXPECT_NEAR(ab.delay_ms, ab.distance_km * 1.3 / 200.0, 1e-9);
  EXPECT_FALSE(ab.delay_given);
  EXPECT_TRUE(ab.bidirectional);  // the default
  EXPECT_TRUE(t.links[1].delay_given);
  EXPECT_EQ(t.links[1].route_factor, 1.0);
  EXPECT_FALSE(t.links[2].bidirectional);
  ASSERT_EQ(t.chains.size(), 1u);
  EXPECT_EQ(t.chains[0].ingress, 0u);
  EXPECT_EQ(t.chains[0].egress, 2u);
  EXPECT_EQ(t.chains[0].vnfs, (std::vector<std::size_t>{0, 0}));
}

TEST(TopologyYaml, WritingThenLoadingGivesTheSameTopology) {
  const Topology t = parse_topology_yaml(kValid, "tiny.yaml");
  const Topology again = parse_topology_yaml(topology_to_yaml(t, "a header\nof two lines"), "again.yaml");
  ASSERT_EQ(again.links.size(), t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    EXPECT_NEAR(again.links[i].delay_ms, t.links[i].delay_ms, 1e-9);
    EXPECT_EQ(again.links[i].delay_given, t.links[i].delay_given);
    EXPECT_EQ(again.links[i].bidirectional, t.links[i].bidirectional);
  }
  EXPECT_EQ(again.sites[0].deployment_price, 5.0);
  EXPECT_EQ(again.chains[0].vnfs, t.chains[0].vnfs);
}

// Replaces the first occurrence of `from` in the valid file.
std::string with(const std::string& from, const std::string& to) {
  std::string text = kValid;
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("test text lacks " + from);
  return text.replace(at, from.size(), to);
}

void expect_error(const std::string& text, const std::string& located) {
  try {
    parse_topology_yaml(text, "bad.yaml");
    FAIL() << "loaded without error, expected " << located;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(located), std::string::npos) << e.what();
  }
}

TEST(TopologyYaml, ErrorsNameTheLineTheFieldAndWhatWasExpected) {
  expect_error(with("to: B, route", "to: Z, route"), "bad.yaml:7: links[0].to: expected the name of a site");
  expect_error(with("vnfs: [counter, counter]", "vnfs: [counter, nat]"),
               "bad.yaml:13: chains[0].vnfs[1]: expected the name of a VNF type in vnf_types, got 'nat'");
  expect_error(with("route_factor: 1.3", "route_factor: 0.8"), "bad.yaml:7: links[0].route_factor: expected a value >= 1");
  expect_error(with("{name: C,", "{name: A,"), "bad.yaml:5: sites[2].name: expected a site name not used before");
  expect_error(with("deployment_price: 5", "deployment_price: -5"), "bad.yaml:3: sites[0].deployment_price: expected a value >= 0");
  expect_error(with("delay_ms: 9", "delay_ms: -9"), "bad.yaml:8: links[1].delay_ms: expected a value >= 0");
  expect_error(with("lat: 40.7833", "lat: 140"), "bad.yaml:3: sites[0].lat: expected degrees in -90..90");
  expect_error(with("service_rate_pps: 500000", "service_rate_pps: 0"), "bad.yaml:11: vnf_types[0].service_rate_pps");
  expect_error(with("ingress: A", "ingress: Q"), "bad.yaml:13: chains[0].ingress");
  expect_error(with("to: C, delay", "to: B, delay"), "bad.yaml:8: links[1].to: expected a site other than from");
  // Schema errors come from the shared YAML reader, located the same way.
  expect_error(with("bandwidth_mbps: 1000", "bandwith_mbps: 1000"), "bad.yaml:7: links[0].bandwith_mbps: expected one of the fields");
  expect_error(with("instance_capacity: 4,", "instance_capacity: -4,"), "bad.yaml:3: sites[0].instance_capacity: expected a non-negative integer");
}

TEST(TopologyYaml, AMissingFileIsNamed) {
  try {
    load_topology_yaml("/nonexistent/topology.yaml");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/topology.yaml"), std::string::npos);
  }
}

// --- Ready-made topologies -----------------------------------------------

TEST(ShippedTopologies, AllLoadWithSitesLinksVnfTypesAndReachableChains) {
  for (const Expected& e : {Expected{"abilene", 12, 15}, Expected{"geant2009", 34, 52}, Expected{"b4", 18, 40},
                            Expected{"demo3", 3, 2}}) {
    SCOPED_TRACE(e.name);
    const Topology t = load_topology_yaml(repo("topologies/data/" + e.name + ".yaml"));
    EXPECT_EQ(t.name, e.name);
    EXPECT_EQ(t.sites.size(), e.sites);
    EXPECT_EQ(t.links.size(), e.links);
    EXPECT_FALSE(t.vnf_types.empty());
    for (const Site& s : t.sites) EXPECT_GT(s.instance_capacity, 0u) << s.name;
    for (const Chain& c : t.chains) {
      const auto path = t.shortest_path(c.ingress, c.egress);
      ASSERT_TRUE(path) << c.name;
      EXPECT_LT(path->delay_ms, c.sla_latency_ms) << c.name;
    }
  }
}

TEST(ShippedTopologies, Demo3HasTheDemosWanDelays) {
  // README: great circle x 1.3, 7.4 ms NYCM->CHIN, 5.4 ms CHIN->KSCY.
  const Topology t = load_topology_yaml(repo("topologies/data/demo3.yaml"));
  const Link* nycm_chin = t.link_between(t.site_index("NYCMng"), t.site_index("CHINng"));
  const Link* chin_kscy = t.link_between(t.site_index("KSCYng"), t.site_index("CHINng"));
  ASSERT_TRUE(nycm_chin && chin_kscy);
  EXPECT_NEAR(nycm_chin->delay_ms, 7.44, 0.01);
  EXPECT_NEAR(chin_kscy->delay_ms, 5.36, 0.01);
  EXPECT_EQ(t.link_between(t.site_index("NYCMng"), t.site_index("KSCYng")), nullptr);
  EXPECT_EQ(t.chains.size(), 2u);
}

// --- Routing -----------------------------------------------------------------

TEST(ShortestPath, FollowsLowestDelayAndHonoursDirection) {
  const Topology t = parse_topology_yaml(kValid, "tiny.yaml");
  // A->C direct is 30 ms given; A->B->C is about 7.4 + 9.
  const auto ac = t.shortest_path(0, 2);
  ASSERT_TRUE(ac);
  EXPECT_EQ(ac->sites, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(ac->links, (std::vector<std::size_t>{0, 1}));
  EXPECT_NEAR(ac->delay_ms, t.links[0].delay_ms + 9.0, 1e-9);
  // The one-way A->C link does not carry C->A, the path back is the same.
  EXPECT_EQ(t.shortest_path(2, 0)->sites, (std::vector<std::size_t>{2, 1, 0}));
  EXPECT_EQ(t.link_between(2, 0), nullptr);
  EXPECT_NE(t.link_between(0, 2), nullptr);
}

TEST(ShortestPath, AbileneCoastToCoastGoesThroughTheMiddle) {
  const Topology t = import_sndlib_xml(shared("sndlib/abilene.xml"));
  const auto path = t.shortest_path(t.site_index("NYCMng"), t.site_index("LOSAng"));
  ASSERT_TRUE(path);
  double sum = 0;
  for (std::size_t l : path->links) sum += t.links[l].delay_ms;
  EXPECT_NEAR(path->delay_ms, sum, 1e-9);
  EXPECT_GT(path->delay_ms, great_circle_km(40.7833, -73.9667, 34.05, -118.25) / kFibreKmPerMs);
  EXPECT_EQ(path->sites.front(), t.site_index("NYCMng"));
  EXPECT_EQ(path->sites.back(), t.site_index("LOSAng"));
}

}  // namespace
}  // namespace nfv
