// The checked, compiled form of a pod configuration: sites, links, ports and
// chains by index, with every cross-reference resolved. Built on the control
// thread before EAL starts, so a bad config fails early and names the field.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pod_config.pb.h"
#include "port_set.h"
#include "tls_files.h"

namespace nfv {

inline constexpr int kMaxSites = 255;   // a site index fits the NSH context byte
inline constexpr int kMaxHops = 250;    // stages (hops + 2) fit the 8-bit NSH SI

struct DelayStep {
  double at_ms;
  double delay_ms;
};

struct WanLinkParams {
  double delay_ms = 0;       // base one-way delay
  double jitter_ms = 0;
  double loss = 0;
  double bandwidth_mbps = 0; // 0 = unlimited
  double buffer_ms = 50;     // queueing allowed behind the bandwidth cap
  uint32_t queue_packets = 16384;
  std::vector<DelayStep> delay_trace;  // sorted by at_ms; empty = constant delay
  double delay_trace_period_ms = 0;
};

struct SiteInfo {
  std::string name;
  double lat = 0, lon = 0;
  bool hosted = false;
};

struct LinkInfo {
  std::string name;          // "A->B"
  int from = 0, to = 0;      // site indexes
  WanLinkParams params;
  int port = kNoIndex;       // inter-pod port when `to` is in another pod
};

// One classification rule, compiled.
struct CompiledRule {
  uint8_t family = 0;        // 0 any, 4, 6 (from the prefixes)
  std::array<uint8_t, 16> src{}, src_mask{}, dst{}, dst_mask{};
  int protocol = -1;         // -1 any
  uint16_t src_port_lo = 0, src_port_hi = 65535;
  uint16_t dst_port_lo = 0, dst_port_hi = 65535;
};

inline constexpr int kMaxInstancesPerPool = 64;
inline constexpr int kMaxPlacements = 16;  // sites one hop may be split over

struct HopInfo {
  std::string vnf;
  int site = 0;                 // the first placement's site
  std::vector<int> sites;       // every site the hop may run at (sites[0] == site)
  std::vector<double> split;    // share of flows per site, sums to 1
  std::vector<uint32_t> site_instances;  // instances per site at start
  std::map<std::string, std::string> params;
  uint32_t instances = 1;
  uint32_t max_instances = kMaxInstancesPerPool;
  double service_rate_pps = 0;
  uint32_t queue_packets = 1024;
  uint32_t flow_idle_timeout_ms = 10000;
  uint32_t drain_timeout_ms = 30000;
};

// Stages of a chain: 0 = the ingress site, 1..N = the hops, N+1 = the egress
// site. A packet's next stage and its current site say where it goes next.
struct ChainInfo {
  std::string name;
  uint32_t spi = 0;
  int ingress_site = 0, egress_site = 0;
  int egress_port = kNoIndex;
  std::vector<HopInfo> hops;
  std::vector<int> stage_site;   // size hops + 2
  std::vector<CompiledRule> rules;
  std::vector<int> ingress_ports;  // ports whose rx may enter this chain
  bool fast_path = true;           // chain_fast_path.h; taken where the chain allows it
  uint64_t sla_ns = 0;             // delivered later than this counts late; 0 = no SLA

  int stage_count() const { return static_cast<int>(stage_site.size()); }
  // Sites that may run `stage` (its hop's placements, or the stage's one site).
  std::vector<int> stage_sites(int stage) const {
    return stage >= 1 && stage <= static_cast<int>(hops.size()) ? hops[stage - 1].sites : std::vector<int>{stage_site[stage]};
  }
  int egress_stage() const { return stage_count() - 1; }
  // NSH service index for a packet whose next stage is `stage`: the stages
  // still ahead, so it is 1 (never 0) on the way to the egress site.
  uint8_t service_index(int stage) const { return static_cast<uint8_t>(stage_count() - stage); }
  int stage_of_service_index(uint8_t si) const { return stage_count() - si; }
};

struct ControlSettings {
  bool enabled = false;
  std::string listen = "127.0.0.1";
  uint16_t port = 0;
  std::string token;
  bool metrics = false;
  uint16_t metrics_port = 0;
  uint32_t max_frame_bytes = 1u << 20;
  TlsFiles tls;  // none: plain TCP, loopback only
};

// The port set's name is the pod's name.
struct PodLayout : PortSet {
  std::vector<SiteInfo> sites;
  std::vector<LinkInfo> links;
  std::vector<int> link_index;   // [from * sites + to] -> link, or kNoIndex
  std::vector<ChainInfo> chains;
  uint32_t fast_path_flows = 4096;  // records per worker; 0: no chain fast path
  ControlSettings control;

  int link_between(int from, int to) const { return link_index[from * sites.size() + to]; }
  int site_index(const std::string& name) const;
};

// Throws ConfigError(field path, expected) on the first problem.
PodLayout build_pod_layout(const nfv::config::PodConfig& config);

}  // namespace nfv
