// Internet Topology Zoo GraphML (topology-zoo.org) -> Topology.
#include <filesystem>
#include <map>
#include <stdexcept>

#include <pugixml.hpp>

#include "import_naming.h"
#include "topology.h"

namespace nfv {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& expected) {
  throw std::runtime_error(path + ": expected " + expected);
}

// GraphML stores attributes as <data key="d30">; <key> maps names to ids.
std::map<std::string, std::string> key_ids(const pugi::xml_node& graphml, const char* domain) {
  std::map<std::string, std::string> ids;
  for (const pugi::xml_node key : graphml.children("key"))
    if (std::string(key.attribute("for").as_string()) == domain)
      ids[key.attribute("attr.name").as_string()] = key.attribute("id").as_string();
  return ids;
}

std::optional<std::string> data(const pugi::xml_node& element, const std::map<std::string, std::string>& ids,
                                const std::string& name) {
  const auto id = ids.find(name);
  if (id == ids.end()) return std::nullopt;
  const pugi::xml_node found = element.find_child_by_attribute("data", "key", id->second.c_str());
  if (!found) return std::nullopt;
  return std::string(found.text().as_string());
}

struct ZooNode {
  std::string id;
  std::string label;
  std::optional<double> latitude;
  std::optional<double> longitude;
};

std::optional<double> as_number(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text->c_str(), &end);
  if (*end != '\0') return std::nullopt;
  return value;
}

}  // namespace

Topology import_zoo_graphml(const std::string& path) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_file(path.c_str());
  if (!parsed)
    fail(path, std::string("a GraphML file (") + parsed.description() + " at byte " + std::to_string(parsed.offset) + ")");
  const pugi::xml_node graphml = doc.child("graphml");
  const pugi::xml_node graph = graphml.child("graph");
  if (!graph) fail(path, "<graphml><graph> as in Topology Zoo files");
  const auto node_keys = key_ids(graphml, "node");
  const auto edge_keys = key_ids(graphml, "edge");

  std::vector<ZooNode> nodes;
  std::vector<std::string> labels;
  for (const pugi::xml_node node : graph.children("node")) {
    ZooNode n{node.attribute("id").as_string(), data(node, node_keys, "label").value_or(""),
              as_number(data(node, node_keys, "Latitude")), as_number(data(node, node_keys, "Longitude"))};
    labels.push_back(n.label);
    nodes.push_back(n);
  }
  if (nodes.empty()) fail(path, "at least one <node>");
  const bool by_label = labels_usable_as_names(labels);

  Topology t;
  t.name = std::filesystem::path(path).stem().string();
  t.source = path;
  std::map<std::string, std::size_t> site_of_node;
  for (const ZooNode& n : nodes) {
    const std::string name = by_label ? n.label : n.id;
    // Without coordinates there is no distance and so no delay: leave the
    // node out rather than invent a position.
    if (!n.latitude || !n.longitude) {
      t.import_notes.push_back("left out node " + n.id + " (" + n.label + "): no Latitude/Longitude");
      continue;
    }
    site_of_node[n.id] = t.sites.size();
    t.sites.push_back(Site{name, *n.latitude, *n.longitude, 0, 0, 0});
  }

  const bool directed = std::string(graph.attribute("edgedefault").as_string()) == "directed";
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> link_of_pair;  // merges parallel edges
  for (const pugi::xml_node edge : graph.children("edge")) {
    const std::string source = edge.attribute("source").as_string();
    const std::string target = edge.attribute("target").as_string();
    const auto a = site_of_node.find(source);
    const auto b = site_of_node.find(target);
    if (a == site_of_node.end() || b == site_of_node.end()) {
      t.import_notes.push_back("left out edge " + source + "-" + target + ": an end has no coordinates");
      continue;
    }
    if (a->second == b->second) continue;  // a self-loop carries nothing between sites
    const auto pair = directed ? std::pair(a->second, b->second)
                               : std::pair(std::min(a->second, b->second), std::max(a->second, b->second));
    auto [it, added] = link_of_pair.emplace(pair, t.links.size());
    if (added) {
      t.add_link(a->second, b->second);
      t.links.back().bidirectional = !directed;
    }
    if (auto bits_per_s = as_number(data(edge, edge_keys, "LinkSpeedRaw")))
      t.links[it->second].bandwidth_mbps += *bits_per_s / 1e6;
  }
  return t;
}

}  // namespace nfv
