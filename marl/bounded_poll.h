// Polls `ready` with growing pauses (50 us to 5 ms) until it holds or
// `limit` has passed; false on the limit. The agents' processes wait on the
// rendezvous store this way rather than with the store's own blocking
// waits: one that times out leaves a reply on the socket that a later
// request would read as its own.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace nfv {

template <typename Ready>
bool poll_until(std::chrono::milliseconds limit, Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::chrono::microseconds pause{50};
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds{5000});
  }
  return true;
}

}  // namespace nfv
