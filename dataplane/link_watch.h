// The control thread's watch over the memif links to other pods: it tells
// the workers which ports they may use (a port whose peer is gone carries
// nothing; its packets are dropped as link_down), and connects a memif
// client again when its server comes back (DPDK's client never retries by
// itself: the port is restarted, with the workers kept off it).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "pod_runtime.h"

namespace nfv {

class LinkWatch {
 public:
  // How long a memif client waits between two tries to connect again.
  static constexpr std::chrono::milliseconds kReconnectEvery{1000};

  // Marks every port usable but the memif ports without link.
  explicit LinkWatch(PodRuntime& pod);

  // Control thread, each period: follows link state, restarts clients.
  void poll(std::chrono::steady_clock::time_point now);

 private:
  void set_usable(int port, bool up, std::chrono::steady_clock::time_point now);
  void reconnect(int port);

  PodRuntime& pod_;
  std::vector<int> watched_;  // memif ports
  std::vector<std::chrono::steady_clock::time_point> down_since_;  // by port; last try for clients
};

}  // namespace nfv
