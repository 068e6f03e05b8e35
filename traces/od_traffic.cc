// Origin-destination traffic (SRC->DST columns, as in the Abilene matrices)
// turned into what the scaler works with: chains and per-site ingress.
#include <stdexcept>

#include "rate_trace.h"

namespace nfv {

RateTraceFile load_abilene_traffic(const std::string& csv_path) {
  // SNDlib gives the matrices in Mbit/s (<unit>MBITPERSEC</unit>); the
  // derived CSV has no units line.
  RateTraceFile file = read_rate_trace_csv(csv_path, RateUnit::mbit_per_s);
  for (const std::string& column : file.blocks.front().columns)
    if (!od_pair(column)) throw std::runtime_error(csv_path + ": column '" + column + "': expected SRC->DST");
  return file;
}

bool all_od_pairs(const RateTrace& trace) {
  for (const std::string& column : trace.columns)
    if (!od_pair(column)) return false;
  return !trace.columns.empty();
}

std::optional<std::pair<std::string, std::string>> od_pair(std::string_view column) {
  const auto arrow = column.find("->");
  if (arrow == std::string_view::npos || arrow == 0 || arrow + 2 >= column.size()) return std::nullopt;
  return std::pair(std::string(column.substr(0, arrow)), std::string(column.substr(arrow + 2)));
}

std::vector<Chain> chains_for_od_pairs(const RateTrace& trace, const Topology& topology,
                                       const std::vector<std::string>& vnfs, double sla_latency_ms) {
  std::vector<std::size_t> vnf_indices;
  for (const std::string& vnf : vnfs) {
    const auto index = topology.find_vnf_type(vnf);
    if (!index) throw std::runtime_error("topology " + topology.name + ": no VNF type named '" + vnf + "'");
    vnf_indices.push_back(*index);
  }
  std::vector<Chain> chains;
  for (const std::string& column : trace.columns) {
    const auto pair = od_pair(column);
    if (!pair) throw std::runtime_error("trace " + trace.label + ": column '" + column + "': expected SRC->DST");
    const auto ingress = topology.find_site(pair->first);
    const auto egress = topology.find_site(pair->second);
    if (!ingress || !egress)
      throw std::runtime_error("trace " + trace.label + ": column '" + column + "': expected sites of topology " +
                               topology.name + ", no site '" + (ingress ? pair->second : pair->first) + "'");
    chains.push_back(Chain{column, *ingress, *egress, vnf_indices, sla_latency_ms});
  }
  return chains;
}

RateTrace ingress_per_site(const RateTrace& od) {
  RateTrace out;
  out.label = od.label + " ingress per site";
  out.step_seconds = od.step_seconds;
  out.start_unix_s = od.start_unix_s;
  out.unit = od.unit;
  std::vector<std::size_t> site_of_column;
  for (const std::string& column : od.columns) {
    const auto pair = od_pair(column);
    if (!pair) throw std::runtime_error("trace " + od.label + ": column '" + column + "': expected SRC->DST");
    std::size_t site = 0;
    while (site < out.columns.size() && out.columns[site] != pair->first) ++site;
    if (site == out.columns.size()) out.columns.push_back(pair->first);
    site_of_column.push_back(site);
  }
  out.values.assign(od.rows() * out.columns.size(), 0.0);
  for (std::size_t r = 0; r < od.rows(); ++r)
    for (std::size_t c = 0; c < od.columns.size(); ++c) out.values[r * out.columns.size() + site_of_column[c]] += od.at(r, c);
  return out;
}

}  // namespace nfv
