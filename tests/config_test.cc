// The pod configuration: YAML and JSON load into the schema, and every kind
// of mistake is reported with the file, the line, the field and what was
// expected there.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config_error.h"
#include "config_loader.h"
#include "geo_distance.h"
#include "pod_layout.h"

namespace nfv {
namespace {

const std::string kValid = R"(name: demo
sites:
  - {name: NYCM, lat: 40.7833, lon: -73.9667}
  - {name: CHIN, lat: 41.8333, lon: -87.6167}
  - {name: KSCY, lat: 39.1000, lon: -94.5833}
hosted_sites: [NYCM, CHIN]
links:
  - {from: NYCM, to: CHIN, route_factor: 1.5, bidirectional: true}
  - {from: CHIN, to: KSCY, delay_ms: 4, jitter_ms: 0.5, loss: 0.01, bandwidth_mbps: 100}
ports:
  - {name: in, driver: pcap, site: NYCM, rx_pcap: /dev/null, default_action: pass}
  - {name: wan, driver: memif, site: CHIN, peer_sites: [KSCY], memif_role: client, memif_socket: /tmp/x.sock}
chains:
  - name: web
    id: 5
    ingress_site: NYCM
    egress_site: KSCY
    match: [{dst_prefix: 10.0.0.0/8, protocol: tcp, dst_ports: 80-443}]
    hops:
      - {vnf: forward, site: NYCM}
      - {vnf: counter, site: CHIN, params: {flows: "1024"}}
)";

// Loads text as a file called pod.yaml and builds the layout; returns the
// located error message, or "" when the config is valid.
std::string error_of(const std::string& text) {
  LoadedConfig loaded;
  try {
    loaded = parse_pod_config(text, "pod.yaml");
    build_pod_layout(loaded.config);
    return "";
  } catch (const ConfigError& e) {
    return loaded.locate(e.field(), e.expected());
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(PodConfig, ValidYamlBuildsTheLayoutWithDerivedDelays) {
  const LoadedConfig loaded = parse_pod_config(kValid, "pod.yaml");
  const PodLayout layout = build_pod_layout(loaded.config);
  ASSERT_EQ(layout.sites.size(), 3u);
  EXPECT_TRUE(layout.sites[0].hosted);
  EXPECT_FALSE(layout.sites[2].hosted);
  ASSERT_EQ(layout.links.size(), 3u);  // bidirectional adds CHIN->NYCM
  const double km = great_circle_km(40.7833, -73.9667, 41.8333, -87.6167);
  EXPECT_NEAR(layout.links[0].params.delay_ms, km * 1.5 / 200.0, 1e-9);
  EXPECT_EQ(layout.links[layout.link_between(1, 0)].params.delay_ms, layout.links[0].params.delay_ms);
  EXPECT_EQ(layout.links[2].params.delay_ms, 4.0);
  EXPECT_EQ(layout.links[2].port, 1) << "the link to a remote site leaves through the port that reaches it";
  const ChainInfo& chain = layout.chains[0];
  EXPECT_EQ(chain.stage_site, (std::vector<int>{0, 0, 1, 2}));
  EXPECT_EQ(chain.service_index(1), 3);
  EXPECT_EQ(chain.service_index(chain.egress_stage()), 1) << "SI never reaches 0 on the wire";
  EXPECT_EQ(chain.stage_of_service_index(chain.service_index(2)), 2);
  EXPECT_EQ(chain.ingress_ports, std::vector<int>{0});
  EXPECT_EQ(chain.hops[1].params.at("flows"), "1024");
  EXPECT_TRUE(layout.ports[0].default_pass);
  EXPECT_EQ(layout.ports[1].devargs, "role=client,socket=/tmp/x.sock,socket-abstract=no,id=0,rsize=12");
}

TEST(PodConfig, JsonWithCamelCaseNamesLoadsLikeYaml) {
  const std::string json = R"({"name": "j", "sites": [{"name": "A", "lat": 1, "lon": 2}], "hostedSites": ["A"],
    "ports": [{"name": "p", "driver": "null", "site": "A", "txOnly": true}], "chains": []})";
  const auto layout = build_pod_layout(parse_pod_config(json, "pod.json").config);
  EXPECT_EQ(layout.ports[0].driver, PortDriverKind::kNull);
  EXPECT_TRUE(layout.ports[0].tx_only);
}

TEST(PodConfig, UnknownFieldIsNamedWithItsLineAndTheKnownFields) {
  const std::string message = error_of(replace(kValid, "{vnf: forward, site: NYCM}", "{vnff: forward, site: NYCM}"));
  EXPECT_NE(message.find("pod.yaml:20: chains[0].hops[0].vnff: expected one of the fields of Hop (vnf, site, params, instances, max_instances"),
            std::string::npos)
      << message;
}

TEST(PodConfig, WrongScalarTypeSaysWhatWasExpected) {
  const std::string message = error_of(replace(kValid, "lat: 40.7833", "lat: north"));
  EXPECT_NE(message.find("pod.yaml:3: sites[0].lat: expected a number, got 'north'"), std::string::npos) << message;
}

// Found by the config_fuzz target: a list or a mapping as a key got yaml-cpp's "bad conversion", with no file or field.
TEST(PodConfig, ListOrMappingAsAKeyIsLocated) {
  const std::string message = error_of(replace(kValid, "  - {name: NYCM, lat: 40.7833", "  - {[name]: NYCM, lat: 40.7833"));
  EXPECT_NE(message.find("pod.yaml:3: sites[0]: expected a field name (a list, a mapping or nothing is no key)"), std::string::npos)
      << message;
  const std::string top = error_of("{name: x}: 1\n");
  EXPECT_NE(top.find("pod.yaml:1: (top level): expected a field name"), std::string::npos) << top;
}

TEST(PodConfig, UnknownDriverListsTheDrivers) {
  const std::string message = error_of(replace(kValid, "driver: memif", "driver: memfi"));
  EXPECT_NE(message.find("ports[1].driver: expected one of memif, pcap, ring, null, af_packet, tap, pci, got 'memfi'"),
            std::string::npos)
      << message;
}

TEST(PodConfig, HopAtAnUnknownSiteIsLocated) {
  const std::string message = error_of(replace(kValid, "{vnf: counter, site: CHIN", "{vnf: counter, site: DNVR"));
  EXPECT_NE(message.find("pod.yaml:21: chains[0].hops[1].site: expected the name of a site in `sites` (NYCM, CHIN, KSCY), got 'DNVR'"),
            std::string::npos)
      << message;
}

TEST(PodConfig, MissingLinkBetweenHopSitesAsksForOne) {
  const std::string message = error_of(replace(kValid, "  - {from: NYCM, to: CHIN, route_factor: 1.5, bidirectional: true}\n", ""));
  EXPECT_NE(message.find("chains[0].hops[1].site: expected a site reachable from NYCM: add a link NYCM->CHIN"), std::string::npos)
      << message;
}

TEST(PodConfig, RemoteSiteWithoutAPortIsRejected) {
  const std::string message = error_of(replace(kValid, "peer_sites: [KSCY], ", ""));
  EXPECT_NE(message.find("chains[0].egress_site: expected a port at CHIN with KSCY in its peer_sites"), std::string::npos) << message;
}

TEST(PodConfig, UnknownVnfTypeListsRegisteredTypes) {
  const std::string message = error_of(replace(kValid, "vnf: forward", "vnf: fwd"));
  EXPECT_NE(message.find("chains[0].hops[0].vnf: expected a registered VNF type (counter, firewall, forward, ids, lb, monitor, nat, ratelimit, router), got 'fwd'"), std::string::npos)
      << message;
}

TEST(PodConfig, MalformedMatchRulesAreNamed) {
  EXPECT_NE(error_of(replace(kValid, "10.0.0.0/8", "10.0.0.0/33")).find("chains[0].match[0].dst_prefix: expected a prefix length 0..32"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "80-443", "443-80")).find("chains[0].match[0].dst_ports: expected a port or range"),
            std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "protocol: tcp", "protocol: tcpp")).find("chains[0].match[0].protocol: expected tcp, udp"),
            std::string::npos);
}

TEST(PodConfig, OutOfRangeValuesAreRejected) {
  EXPECT_NE(error_of(replace(kValid, "loss: 0.01", "loss: 1.5")).find("links[1].loss: expected a probability in [0, 1]"), std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "id: 5", "id: 0")).find("chains[0].id: expected an NSH service path id"), std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "lon: -87.6167", "lon: -187")).find("sites[1].lon: expected a longitude"), std::string::npos);
  EXPECT_NE(error_of(replace(kValid, "id: 5", "id: -5")).find("chains[0].id: expected a non-negative integer"), std::string::npos);
}

TEST(PodConfig, BrokenYamlNamesTheLine) {
  const std::string message = error_of("name: x\nsites: [\n  {name: A\n");
  EXPECT_NE(message.find("pod.yaml:"), std::string::npos) << message;
  EXPECT_NE(message.find("expected valid YAML or JSON"), std::string::npos) << message;
}

TEST(GeoDistance, MatchesTheAbileneEdgeDistancesOfSndlib) {
  // Edge lengths in the SNDlib CSV come from the node coordinates.
  const char* root = std::getenv("NFV_SHARED_DATA");
  ASSERT_NE(root, nullptr) << "NFV_SHARED_DATA is not set (meson test sets it)";
  const std::string dir = std::string(root) + "/topologies/sndlib/";
  std::ifstream nodes_in(dir + "abilene_nodes.csv"), edges_in(dir + "abilene_edges.csv");
  ASSERT_TRUE(nodes_in && edges_in);
  std::map<std::string, std::pair<double, double>> nodes;
  std::string line;
  std::getline(nodes_in, line);
  while (std::getline(nodes_in, line)) {
    std::stringstream row(line);
    std::string id, label, lat, lon;
    std::getline(row, id, ',');
    std::getline(row, label, ',');
    std::getline(row, lat, ',');
    std::getline(row, lon, ',');
    nodes[id] = {std::stod(lat), std::stod(lon)};
  }
  std::getline(edges_in, line);
  int edges = 0;
  while (std::getline(edges_in, line)) {
    std::stringstream row(line);
    std::string src, dst, parallel, capacity, km, ms;
    std::getline(row, src, ',');
    std::getline(row, dst, ',');
    std::getline(row, parallel, ',');
    std::getline(row, capacity, ',');
    std::getline(row, km, ',');
    std::getline(row, ms, ',');
    const auto [lat1, lon1] = nodes.at(src);
    const auto [lat2, lon2] = nodes.at(dst);
    const double ours = great_circle_km(lat1, lon1, lat2, lon2);
    EXPECT_NEAR(ours, std::stod(km), std::stod(km) * 0.01 + 0.1) << src << "-" << dst;
    EXPECT_NEAR(propagation_delay_ms(ours, 1.0), std::stod(ms), std::stod(ms) * 0.01 + 0.001);
    ++edges;
  }
  EXPECT_EQ(edges, 15);
}

TEST(PodConfig, AControlApiOffLoopbackNeedsTls) {
  const std::string message = error_of(kValid + "control: {listen: 0.0.0.0, port: 9900, token: t}\n");
  EXPECT_NE(message.find("control.tls: expected cert, key and ca files: off loopback (listen 0.0.0.0) the control API speaks only mutual TLS"),
            std::string::npos)
      << message;
  const std::string partial = error_of(kValid + "control: {listen: 10.0.0.1, port: 9900, token: t, tls: {cert: c.pem, ca: ca.pem}}\n");
  EXPECT_NE(partial.find("control.tls.key: expected a PEM file: TLS needs cert, key and ca"), std::string::npos) << partial;
  // Loopback may stay plain.
  EXPECT_EQ(error_of(kValid + "control: {listen: 127.0.0.1, port: 9900, token: t}\n"), "");
}

}  // namespace
}  // namespace nfv
