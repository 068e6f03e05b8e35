#include "tshark.h"

#include <sstream>
#include <stdexcept>

#include "subprocess.h"

namespace nfv::test {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line.find("Running as user") == std::string::npos) lines.push_back(line);
  return lines;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, '\t')) out.push_back(cell);
  while (out.size() < 8) out.emplace_back();
  return out;
}

}  // namespace

std::vector<std::string> tshark_fields(const std::string& pcap, const std::vector<std::string>& fields,
                                       const std::string& filter) {
  std::string command = "tshark -r " + pcap + " -o ip.defragment:FALSE -T fields -E occurrence=f";
  for (const auto& f : fields) command += " -e " + f;
  if (!filter.empty()) command += " -Y \"" + filter + "\"";
  // stderr joins stdout; lines_of() drops tshark's "Running as user" notice.
  const CommandResult result = run_command(command);
  if (result.exit_code != 0) throw std::runtime_error("tshark failed on " + pcap + ": " + result.output);
  return lines_of(result.output);
}

std::vector<int> tshark_frames(const std::string& pcap, const std::string& filter) {
  std::vector<int> frames;
  for (const auto& line : tshark_fields(pcap, {"frame.number"}, filter)) frames.push_back(std::stoi(line));
  return frames;
}

std::set<std::string> tshark_ipv4_flows(const std::string& pcap) {
  std::set<std::string> flows;
  const auto rows = tshark_fields(pcap, {"ip.src", "ip.dst", "ip.proto", "tcp.srcport", "tcp.dstport", "udp.srcport",
                                         "udp.dstport", "ip.frag_offset"},
                                  kPlainIpv4Filter);
  for (const auto& row : rows) {
    const auto f = split_tabs(row);
    std::string sport = "0", dport = "0";
    const bool later_fragment = !f[7].empty() && f[7] != "0";
    if (!later_fragment && f[2] == "6") sport = f[3], dport = f[4];
    if (!later_fragment && f[2] == "17") sport = f[5], dport = f[6];
    flows.insert(f[0] + " " + f[1] + " " + f[2] + " " + sport + " " + dport);
  }
  return flows;
}

}  // namespace nfv::test
