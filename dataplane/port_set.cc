#include "port_set.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>

#include "config_error.h"

namespace nfv {
namespace {

std::string at(const std::string& list, int index) { return list + "[" + std::to_string(index) + "]"; }

std::array<uint8_t, 6> parse_mac(const std::string& text, const std::string& field) {
  std::array<uint8_t, 6> mac{};
  unsigned v[6];
  char tail;
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
    throw ConfigError(field, "a MAC address like 02:00:00:00:00:01, got '" + text + "'");
  for (int i = 0; i < 6; ++i) {
    if (v[i] > 255) throw ConfigError(field, "a MAC address like 02:00:00:00:00:01, got '" + text + "'");
    mac[i] = static_cast<uint8_t>(v[i]);
  }
  return mac;
}

void require_field(bool present, const std::string& field, const std::string& expected) {
  if (!present) throw ConfigError(field, expected);
}

// Builds the DPDK vdev name and devargs of a port from its driver fields.
void describe_device(const nfv::config::Port& port, int index, const std::string& field, PortInfo& info) {
  using nfv::config::PortDriver;
  const std::string suffix = std::to_string(index);
  std::string args;
  switch (port.driver()) {
    case PortDriver::DRIVER_MEMIF:
      info.driver = PortDriverKind::kMemif;
      info.vdev_name = "net_memif" + suffix;
      require_field(port.memif_role() == "server" || port.memif_role() == "client", field + ".memif_role", "server or client");
      require_field(!port.memif_socket().empty() && port.memif_socket()[0] == '/', field + ".memif_socket",
                    "an absolute filesystem socket path");
      // Filesystem sockets (not abstract) work across network namespaces.
      // Rings of 4096 (the client's choice; memif's default is 1024) hold
      // 40 ms at 100,000 packets/s while the peer is off its core: processes
      // that share cores then lose latency, not packets.
      args = "role=" + port.memif_role() + ",socket=" + port.memif_socket() + ",socket-abstract=no,id=" +
             std::to_string(port.memif_id()) + ",rsize=12";
      info.memif_socket = port.memif_socket();
      info.memif_client = port.memif_role() == "client";
      break;
    case PortDriver::DRIVER_PCAP:
      info.driver = PortDriverKind::kPcap;
      info.vdev_name = "net_pcap" + suffix;
      require_field(!port.rx_pcap().empty() || !port.tx_pcap().empty(), field + ".rx_pcap", "rx_pcap and/or tx_pcap");
      if (!port.rx_pcap().empty()) {
        if (!std::ifstream(port.rx_pcap())) throw ConfigError(field + ".rx_pcap", "a readable pcap file, cannot open '" + port.rx_pcap() + "'");
        args = "rx_pcap=" + port.rx_pcap();
        if (port.rx_pcap_loop()) args += ",infinite_rx=1";
      } else {
        // Without rx_pcap there is nothing to receive: do not poll rx.
        info.tx_only = true;
      }
      if (!port.tx_pcap().empty()) args += std::string(args.empty() ? "" : ",") + "tx_pcap=" + port.tx_pcap();
      break;
    case PortDriver::DRIVER_RING:
      info.driver = PortDriverKind::kRing;
      info.vdev_name = "net_ring" + suffix;
      break;
    case PortDriver::DRIVER_NULL:
      info.driver = PortDriverKind::kNull;
      info.vdev_name = "net_null" + suffix;
      args = "size=" + std::to_string(port.null_packet_size() ? port.null_packet_size() : 64);
      break;
    case PortDriver::DRIVER_AF_PACKET:
      info.driver = PortDriverKind::kAfPacket;
      info.vdev_name = "net_af_packet" + suffix;
      require_field(!port.iface().empty(), field + ".iface", "the kernel interface to attach to");
      args = "iface=" + port.iface();
      break;
    case PortDriver::DRIVER_TAP:
      info.driver = PortDriverKind::kTap;
      info.vdev_name = "net_tap" + suffix;
      require_field(!port.iface().empty(), field + ".iface", "the name of the tap interface to create");
      args = "iface=" + port.iface();
      break;
    case PortDriver::DRIVER_PCI:
      info.driver = PortDriverKind::kPci;
      require_field(!port.pci_address().empty(), field + ".pci_address", "a PCI address like 0000:03:00.0");
      args = port.pci_address();
      break;
    default:
      throw ConfigError(field + ".driver", "one of memif, pcap, ring, null, af_packet, tap, pci");
  }
  if (!port.devargs().empty()) {
    if (port.driver() == PortDriver::DRIVER_PCI) throw ConfigError(field + ".devargs", "no devargs for PCI ports (pass them with EAL -a)");
    args += std::string(args.empty() ? "" : ",") + port.devargs();
  }
  info.devargs = args;
}

}  // namespace

int PortSet::port_index(const std::string& port_name) const {
  for (std::size_t i = 0; i < ports.size(); ++i)
    if (ports[i].name == port_name) return static_cast<int>(i);
  return kNoIndex;
}

bool PortSet::has_pci_ports() const {
  return std::any_of(ports.begin(), ports.end(), [](const PortInfo& p) { return p.driver == PortDriverKind::kPci; });
}

void read_process_name(const std::string& name, PortSet& set) {
  if (name.empty()) throw ConfigError("name", "a name (it is also the EAL file prefix)");
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      throw ConfigError("name", "letters, digits, '-' and '_' only, got '" + name + "'");
  set.name = name;
}

void read_ports(const google::protobuf::RepeatedPtrField<nfv::config::Port>& ports, PortSet& set) {
  for (int i = 0; i < ports.size(); ++i) {
    const auto& port = ports[i];
    const std::string field = at("ports", i);
    if (port.name().empty()) throw ConfigError(field + ".name", "a non-empty port name");
    if (set.port_index(port.name()) != kNoIndex) throw ConfigError(field + ".name", "a unique name, '" + port.name() + "' is repeated");
    PortInfo info;
    info.name = port.name();
    describe_device(port, i, field, info);
    info.default_pass = port.default_action() == nfv::config::DEFAULT_PASS;
    info.capture_pcapng = port.capture_pcapng();
    info.tx_only = info.tx_only || port.tx_only();
    if (port.rx_descriptors()) info.rx_descriptors = static_cast<uint16_t>(std::min(port.rx_descriptors(), 32768u));
    if (port.tx_descriptors()) info.tx_descriptors = static_cast<uint16_t>(std::min(port.tx_descriptors(), 32768u));
    if (!port.peer_mac().empty()) {
      info.peer_mac = parse_mac(port.peer_mac(), field + ".peer_mac");
      info.peer_mac_set = true;
    }
    set.ports.push_back(std::move(info));
  }
  if (set.ports.empty()) throw ConfigError("ports", "at least one port");
  for (int i = 0; i < ports.size(); ++i) {
    const std::string& name = ports[i].default_port();
    int& default_port = set.ports[i].default_port;
    default_port = name.empty() ? i : set.port_index(name);
    if (default_port == kNoIndex) throw ConfigError(at("ports", i) + ".default_port", "the name of a port in `ports`, got '" + name + "'");
  }
}

void read_mempool(const nfv::config::Mempool& mempool, uint32_t link_wait_ms, PortSet& set) {
  if (mempool.mbufs()) set.mempool_mbufs = mempool.mbufs();
  if (mempool.cache()) set.mempool_cache = std::min(mempool.cache(), 512u);
  if (set.mempool_mbufs < 1024) throw ConfigError("mempool.mbufs", "at least 1024 mbufs");
  if (link_wait_ms) set.link_wait_ms = link_wait_ms;
}

}  // namespace nfv
