// What a DPDK process needs to open its ports: their devices, the mempool
// behind them and the name that is its EAL file prefix. A pod's layout is a
// port set plus sites, links and chains (pod_layout.h); nfv-replay reads a
// port set alone, with the same rules and the same messages.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pod_config.pb.h"

namespace nfv {

inline constexpr int kNoIndex = -1;

enum class PortDriverKind { kMemif, kPcap, kRing, kNull, kAfPacket, kTap, kPci };

struct PortInfo {
  std::string name;
  PortDriverKind driver = PortDriverKind::kNull;
  std::string vdev_name;     // "net_memif0"; empty for PCI
  std::string devargs;       // "role=server,socket=...", or the PCI address
  std::string memif_socket;  // memif only: the socket path
  bool memif_client = false;
  int site = 0;              // a pod's routing: the site and its remote peers
  std::vector<int> peer_sites;
  bool default_pass = false;
  int default_port = kNoIndex;
  std::string capture_pcapng;
  uint16_t rx_descriptors = 1024, tx_descriptors = 1024;
  bool tx_only = false;
  std::array<uint8_t, 6> peer_mac{};
  bool peer_mac_set = false;
};

struct PortSet {
  std::string name;          // the EAL file prefix, and the mempool's name
  std::vector<PortInfo> ports;
  uint32_t mempool_mbufs = 32767;
  uint32_t mempool_cache = 256;
  uint32_t link_wait_ms = 10000;

  int port_index(const std::string& name) const;
  bool has_pci_ports() const;
};

// Each reads one part of a config into `set` and throws ConfigError(field
// path, expected) on the first problem.
// The process name: letters, digits, '-' and '_' (it names hugepage files).
void read_process_name(const std::string& name, PortSet& set);
// `ports`: names, devices and per-port options; a pod's sites are its own.
void read_ports(const google::protobuf::RepeatedPtrField<nfv::config::Port>& ports, PortSet& set);
// `mempool` (unset fields keep the set's defaults) and `link_wait_ms`.
void read_mempool(const nfv::config::Mempool& mempool, uint32_t link_wait_ms, PortSet& set);

}  // namespace nfv
