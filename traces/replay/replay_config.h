// nfv-replay's configuration (proto/replay_config.proto), checked and
// compiled before EAL starts: ports by the pod's own rules, the rate trace
// loaded and mapped through EmulationScale into packets/s per slot and
// chain, flows and the packet-size mix. Mistakes are reported as
// "file:line: field: expected ...".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "port_set.h"
#include "rate_trace.h"
#include "replay_config.pb.h"
#include "yaml_message.h"

namespace nfv {

struct Ipv4Prefix {
  uint32_t network = 0;  // host order
  uint32_t host_mask = 0;  // the bits a host may vary, e.g. 0xffff for a /16
  std::string text;
};

// The traffic of one chain: where its packets go and how its flows look.
struct ChainTraffic {
  std::string name;  // the trace column
  Ipv4Prefix dst, src;
  uint32_t flows = 1024;
  double zipf_exponent = 1.0;
  uint16_t dst_port = 9000;
};

struct PacketSizeShare {
  uint16_t bytes = 64;
  double weight = 1;
};

struct GeneratorPlan {
  int port = 0;
  std::string trace_label;
  RateUnit unit = RateUnit::packets_per_s;
  EmulationScale scale;
  std::vector<ChainTraffic> chains;
  std::vector<PacketSizeShare> sizes;
  uint64_t seed = 1;
  std::size_t slots = 0;
  std::vector<double> trace_rates;  // [slot * chains + chain], in `unit`
  std::vector<double> target_pps;   // the same, mapped to packets/s

  double target(std::size_t slot, std::size_t chain) const { return target_pps[slot * chains.size() + chain]; }
  double mean_packet_bytes() const;
};

struct PcapReplayPlan {
  int port = 0;
  std::string file;
  double speed = 1;
  uint32_t loops = 1;
};

struct SinkPlan {
  int port = 0;
  std::vector<std::string> chain_names;  // by chain number; from the generator when it runs here
  double slot_wall_seconds = 1;
  // The last slots that keep a latency histogram per chain (about 6 KB
  // each); older slots keep their p50/p95/p99 only.
  std::size_t slot_histograms = 64;
};

struct ReplayPlan {
  // Name (EAL file prefix), ports, mempool and link wait, read by the
  // pod's rules (dataplane/port_set.h) so ports read the same everywhere.
  PortSet ports;
  std::optional<GeneratorPlan> generator;
  std::optional<PcapReplayPlan> pcap_replay;
  std::optional<SinkPlan> sink;
};

// Throws std::runtime_error("file:line: field: expected ...").
ReplayPlan load_replay_config(const std::string& path);
ReplayPlan parse_replay_config(const std::string& text, const std::string& file_name);

}  // namespace nfv
