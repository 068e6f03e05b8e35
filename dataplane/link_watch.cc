#include "link_watch.h"

#include <rte_ethdev.h>
#include <rte_rcu_qsbr.h>
#include <spdlog/spdlog.h>

#include "ports.h"

namespace nfv {
namespace {

bool link_is_up(uint16_t port_id) {
  rte_eth_link link{};
  return rte_eth_link_get_nowait(port_id, &link) == 0 && link.link_status == RTE_ETH_LINK_UP;
}

}  // namespace

LinkWatch::LinkWatch(PodRuntime& pod) : pod_(pod), down_since_(pod.ports.size()) {
  const auto now = std::chrono::steady_clock::now();
  pod_.port_up = std::make_unique<std::atomic<bool>[]>(pod_.ports.size());
  for (std::size_t p = 0; p < pod_.ports.size(); ++p) {
    const bool memif = pod_.layout.ports[p].driver == PortDriverKind::kMemif;
    if (memif) watched_.push_back(static_cast<int>(p));
    // Other drivers' link state says nothing about a peer: always used.
    pod_.port_up[p].store(!memif || link_is_up(pod_.ports[p].port_id));
    down_since_[p] = now;
  }
}

void LinkWatch::poll(std::chrono::steady_clock::time_point now) {
  for (int p : watched_) {
    const bool up = link_is_up(pod_.ports[p].port_id);
    if (up != pod_.port_usable(p)) set_usable(p, up, now);
    if (up || !pod_.layout.ports[p].memif_client || now - down_since_[p] < kReconnectEvery) continue;
    down_since_[p] = now;
    reconnect(p);
  }
}

void LinkWatch::set_usable(int port, bool up, std::chrono::steady_clock::time_point now) {
  pod_.port_up[port].store(up, std::memory_order_relaxed);
  const PortInfo& info = pod_.layout.ports[port];
  if (up) {
    spdlog::info("port {}: link up again", info.name);
    return;
  }
  down_since_[port] = now;
  spdlog::warn("port {}: link down (peer gone); its packets are dropped as link_down{}", info.name,
               info.memif_client ? ", connecting again every second" : " until the peer connects again");
}

// Stop and start connect the client anew. Workers must not be inside the
// port's rx/tx meanwhile: they skip it while it is not usable, and the wait
// on the RCU lets any that read the flag just before it fell finish.
void LinkWatch::reconnect(int port) {
  const uint16_t id = pod_.ports[port].port_id;
  rte_rcu_qsbr_synchronize(pod_.rcu, RTE_QSBR_THRID_INVALID);
  const int rc = restart_port(id);
  spdlog::debug("port {}: connecting again ({})", pod_.layout.ports[port].name, rc == 0 ? "started" : "server not there yet");
}

}  // namespace nfv
