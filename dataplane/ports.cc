#include "ports.h"

#include <chrono>
#include <stdexcept>
#include <thread>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <spdlog/spdlog.h>

#include "interrupt_thread.h"

namespace nfv {
namespace {

// How long a memif client waits for its link before connecting again.
constexpr std::chrono::milliseconds kMemifRetry{1000};

std::string errno_text(int rc) { return rte_strerror(rc < 0 ? -rc : rc); }

// A pod killed as a memif server leaves its socket file behind, and DPDK
// cannot listen where a file is: the one nobody listens on any more is
// removed (one with a live listener stays, and the start fails as before).
void remove_stale_memif_socket(const PortInfo& port) {
  if (port.driver != PortDriverKind::kMemif || port.memif_client || port.memif_socket.empty()) return;
  sockaddr_un address{};
  if (port.memif_socket.size() >= sizeof address.sun_path) return;
  // Only a socket is ours to remove: connect() to a regular file is refused too.
  struct stat st{};
  if (lstat(port.memif_socket.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, port.memif_socket.c_str(), port.memif_socket.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  if (fd < 0) return;
  const bool refused = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 && errno == ECONNREFUSED;
  close(fd);
  if (refused && unlink(port.memif_socket.c_str()) == 0)
    spdlog::info("port {}: removed the stale memif socket {} (its server is gone)", port.name, port.memif_socket);
}

}  // namespace

uint16_t create_port_device(const PortInfo& port) {
  uint16_t port_id = 0;
  if (port.driver == PortDriverKind::kPci) {
    // EAL may already have probed it (default PCI scan); otherwise probe now.
    if (rte_eth_dev_get_port_by_name(port.devargs.c_str(), &port_id) == 0) return port_id;
    const int rc = rte_dev_probe(port.devargs.c_str());
    if (rc < 0 || rte_eth_dev_get_port_by_name(port.devargs.c_str(), &port_id) != 0)
      throw std::runtime_error("port '" + port.name + "': cannot probe PCI device " + port.devargs + " (" + errno_text(rc) +
                               "); is it bound to vfio-pci or uio?");
    return port_id;
  }
  remove_stale_memif_socket(port);
  const int rc = rte_vdev_init(port.vdev_name.c_str(), port.devargs.c_str());
  if (rc < 0)
    throw std::runtime_error("port '" + port.name + "': cannot create " + port.vdev_name + " with '" + port.devargs +
                             "' (" + errno_text(rc) + ")");
  if (rte_eth_dev_get_port_by_name(port.vdev_name.c_str(), &port_id) != 0)
    throw std::runtime_error("port '" + port.name + "': " + port.vdev_name + " created no ethdev");
  return port_id;
}

void start_port(uint16_t port_id, const PortInfo& port, uint16_t tx_queues, rte_mempool* pool, uint32_t peer_wait_ms) {
  rte_eth_dev_info info{};
  int rc = rte_eth_dev_info_get(port_id, &info);
  if (rc != 0) throw std::runtime_error("port '" + port.name + "': no device info (" + errno_text(rc) + ")");
  if (tx_queues > info.max_tx_queues)
    throw std::runtime_error("port '" + port.name + "': driver " + info.driver_name + " supports " +
                             std::to_string(info.max_tx_queues) + " tx queues but the pod runs " + std::to_string(tx_queues) +
                             " workers; use fewer worker lcores");
  rte_eth_conf conf{};
  rc = rte_eth_dev_configure(port_id, 1, tx_queues, &conf);
  if (rc != 0) throw std::runtime_error("port '" + port.name + "': configure failed (" + errno_text(rc) + ")");
  uint16_t rx_desc = port.rx_descriptors, tx_desc = port.tx_descriptors;
  rte_eth_dev_adjust_nb_rx_tx_desc(port_id, &rx_desc, &tx_desc);
  const int socket = rte_eth_dev_socket_id(port_id) < 0 ? 0 : rte_eth_dev_socket_id(port_id);
  rc = rte_eth_rx_queue_setup(port_id, 0, rx_desc, socket, nullptr, pool);
  if (rc != 0) throw std::runtime_error("port '" + port.name + "': rx queue setup failed (" + errno_text(rc) + ")");
  for (uint16_t q = 0; q < tx_queues; ++q) {
    rc = rte_eth_tx_queue_setup(port_id, q, tx_desc, socket, nullptr);
    if (rc != 0) throw std::runtime_error("port '" + port.name + "': tx queue setup failed (" + errno_text(rc) + ")");
  }
  // A memif client cannot start before its server has created the socket,
  // and a failed first connect can leave the driver unable to finish the
  // handshake later: pods start in any order, so wait for the socket file.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(peer_wait_ms);
  if (port.driver == PortDriverKind::kMemif && !port.memif_socket.empty() && port.memif_client)
    while (access(port.memif_socket.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  while ((rc = rte_eth_dev_start(port_id)) != 0 && port.driver == PortDriverKind::kMemif &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (rc != 0)
    throw std::runtime_error("port '" + port.name + "': start failed (" + errno_text(rc) + ")" +
                             (port.driver == PortDriverKind::kMemif ? "; is the memif server running?" : ""));
  // Bump-in-the-wire ports must see frames addressed to others; not every
  // driver can do it, and that is fine.
  rte_eth_promiscuous_enable(port_id);
}

std::vector<std::string> wait_for_links(const std::vector<uint16_t>& port_ids, const std::vector<PortInfo>& ports,
                                        uint32_t timeout_ms) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::milliseconds(timeout_ms);
  auto next_retry = start + kMemifRetry;
  std::vector<std::uint8_t> was_up(port_ids.size(), 0);
  for (;;) {
    std::vector<std::string> down;
    std::vector<std::size_t> down_clients;
    for (std::size_t i = 0; i < port_ids.size(); ++i) {
      rte_eth_link link{};
      if (rte_eth_link_get_nowait(port_ids[i], &link) == 0 && link.link_status == RTE_ETH_LINK_UP) {
        if (!was_up[i])
          spdlog::debug("port {}: link up after {} ms", ports[i].name,
                        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
        was_up[i] = 1;
        continue;
      }
      down.push_back(ports[i].name);
      if (ports[i].driver == PortDriverKind::kMemif && ports[i].memif_client) down_clients.push_back(i);
    }
    const auto now = std::chrono::steady_clock::now();
    if (down.empty() || now >= deadline) return down;
    // A memif server refuses a client that connects between creating its
    // socket and starting its device, and the client does not try again:
    // a client still down is restarted, which connects anew.
    if (now >= next_retry) {
      for (std::size_t i : down_clients) {
        spdlog::info("port {}: memif link still down after {} ms; connecting again", ports[i].name,
                     std::chrono::duration_cast<std::chrono::milliseconds>(now - start).count());
        restart_port(port_ids[i]);
      }
      next_retry = now + kMemifRetry;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int restart_port(uint16_t port_id) {
  int rc = 0;
  run_on_interrupt_thread([&] {
    rte_eth_dev_stop(port_id);
    rc = rte_eth_dev_start(port_id);
  });
  return rc;
}

void close_port(uint16_t port_id, const PortInfo& port) {
  const auto close = [&] {
    rte_eth_dev_stop(port_id);
    rte_eth_dev_close(port_id);
    if (port.driver != PortDriverKind::kPci) rte_vdev_uninit(port.vdev_name.c_str());
  };
  // Only memif handles its peers on the interrupt thread; other drivers'
  // stop and close may wait for events that thread delivers.
  if (port.driver == PortDriverKind::kMemif) run_on_interrupt_thread(close);
  else close();
}

}  // namespace nfv
