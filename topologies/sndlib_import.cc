// SNDlib network XML (sndlib.zib.de, "native" XML format) -> Topology.
#include <filesystem>
#include <stdexcept>

#include <pugixml.hpp>

#include "topology.h"

namespace nfv {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& expected) {
  throw std::runtime_error(path + ": expected " + expected);
}

double number_child(const std::string& path, const pugi::xml_node& node, const char* child, const std::string& what) {
  const pugi::xml_node element = node.child(child);
  if (!element) fail(path, what + " (<" + std::string(child) + ">)");
  const std::string text = element.text().as_string();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') fail(path, what + " as a number, got '" + text + "'");
  return value;
}

}  // namespace

Topology import_sndlib_xml(const std::string& path) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_file(path.c_str());
  if (!parsed)
    fail(path, std::string("an SNDlib network XML file (") + parsed.description() + " at byte " +
                   std::to_string(parsed.offset) + ")");
  const pugi::xml_node structure = doc.child("network").child("networkStructure");
  if (!structure) fail(path, "<network><networkStructure> as in SNDlib network files");

  Topology t;
  t.name = std::filesystem::path(path).stem().string();
  t.source = path;
  for (const pugi::xml_node node : structure.child("nodes").children("node")) {
    const std::string id = node.attribute("id").as_string();
    if (id.empty()) fail(path, "an id attribute on every <node>");
    if (t.find_site(id)) fail(path, "distinct node ids, '" + id + "' appears twice");
    const pugi::xml_node coordinates = node.child("coordinates");
    Site site;
    site.name = id;
    // SNDlib writes geographical coordinates as x = longitude, y = latitude.
    site.longitude_deg = number_child(path, coordinates, "x", "node " + id + " longitude");
    site.latitude_deg = number_child(path, coordinates, "y", "node " + id + " latitude");
    t.sites.push_back(site);
  }
  if (t.sites.empty()) fail(path, "at least one <node> in <nodes>");

  for (const pugi::xml_node link : structure.child("links").children("link")) {
    const std::string id = link.attribute("id").as_string();
    const auto site_of = [&](const char* end) {
      const std::string name = link.child(end).text().as_string();
      if (auto index = t.find_site(name)) return *index;
      fail(path, "link " + id + " <" + end + "> to name a node, got '" + name + "'");
    };
    const std::size_t from = site_of("source");
    const std::size_t to = site_of("target");
    Link& added = t.links[t.add_link(from, to)];
    // Links without a pre-installed module have no capacity yet (0 = unknown).
    if (const pugi::xml_node module = link.child("preInstalledModule"))
      added.bandwidth_mbps = number_child(path, module, "capacity", "link " + id + " capacity");
  }
  return t;
}

}  // namespace nfv
