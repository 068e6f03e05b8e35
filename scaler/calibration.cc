// Calibration files: measured rates and delays over the topology's assumptions.
#include "calibration.h"

#include <cstdio>
#include <stdexcept>

#include "yaml_message.h"

namespace nfv {
namespace {

std::string field(const char* list, int i, const char* name) {
  return std::string(list) + "[" + std::to_string(i) + "]." + name;
}

std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

LoadedCalibration parse_calibration(const std::string& text, const std::string& file_name) {
  LoadedCalibration loaded;
  loaded.source = parse_yaml_message(text, file_name, loaded.message);
  return loaded;
}

LoadedCalibration load_calibration(const std::string& path) {
  LoadedCalibration loaded;
  loaded.source = load_yaml_message(path, loaded.message);
  return loaded;
}

std::vector<std::string> apply_calibration(const LoadedCalibration& calibration, Topology& topology) {
  const calibration::Calibration& m = calibration.message;
  const YamlSource& source = calibration.source;
  std::vector<std::string> applied;
  for (int i = 0; i < m.vnf_rates_size(); ++i) {
    const auto& rate = m.vnf_rates(i);
    const auto vnf = topology.find_vnf_type(rate.vnf());
    if (!vnf)
      throw std::runtime_error(source.locate(field("vnf_rates", i, "vnf"),
                                             "a VNF type of topology " + topology.name + ", no '" + rate.vnf() + "'"));
    if (!(rate.service_rate_pps() > 0))
      throw std::runtime_error(source.locate(field("vnf_rates", i, "service_rate_pps"), "a rate > 0 packets/s"));
    applied.push_back("VNF " + rate.vnf() + ": " + figure(topology.vnf_types[*vnf].service_rate_pps) + " -> " +
                      figure(rate.service_rate_pps()) + " pkt/s per instance");
    topology.vnf_types[*vnf].service_rate_pps = rate.service_rate_pps();
  }
  for (int i = 0; i < m.link_delays_size(); ++i) {
    const auto& delay = m.link_delays(i);
    const auto from = topology.find_site(delay.from());
    const auto to = topology.find_site(delay.to());
    if (!from) throw std::runtime_error(source.locate(field("link_delays", i, "from"), "a site, no '" + delay.from() + "'"));
    if (!to) throw std::runtime_error(source.locate(field("link_delays", i, "to"), "a site, no '" + delay.to() + "'"));
    if (!(delay.delay_ms() >= 0))
      throw std::runtime_error(source.locate(field("link_delays", i, "delay_ms"), "a delay >= 0 ms"));
    const Link* found = topology.link_between(*from, *to);
    if (!found)
      throw std::runtime_error(source.locate(field("link_delays", i, "to"),
                                             "a link between '" + delay.from() + "' and '" + delay.to() + "'"));
    Link& link = topology.links[static_cast<std::size_t>(found - topology.links.data())];
    applied.push_back("link " + delay.from() + "-" + delay.to() + ": " + figure(link.delay_ms) + " -> " +
                      figure(delay.delay_ms()) + " ms");
    link.delay_ms = delay.delay_ms();
    link.delay_given = true;
  }
  return applied;
}

}  // namespace nfv
