// Slows down guessing at the control API: each client address may fail
// authentication (a wrong token, a TLS handshake without a certificate the CA
// signed) a few times in a row; after that it is refused until time has given
// it another try (one every `refill`). IPv6 addresses count by their /64.
// When it remembers `max_peers` addresses, all of them blocked, it refuses
// addresses it does not know until one gets a try back. Used on the control
// thread only.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>

namespace nfv {

class AuthThrottle {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  struct Limits {
    int tries = 5;                                         // failures allowed in a row
    std::chrono::milliseconds refill{std::chrono::seconds(10)};  // one more try this often
    std::size_t max_peers = 4096;                          // addresses remembered at most
  };

  AuthThrottle() : AuthThrottle(Limits{}, &std::chrono::steady_clock::now) {}
  AuthThrottle(Limits limits, Clock clock) : limits_(limits), clock_(std::move(clock)) {}

  // Whether `peer` (an address) may try now.
  bool allows(const std::string& peer);
  // Records that `peer` failed to authenticate.
  void failed(const std::string& peer);
  // How long until `peer` may try again (zero when it may now).
  std::chrono::milliseconds retry_in(const std::string& peer);

 private:
  using Duration = std::chrono::steady_clock::duration;
  // Tries kept as time: `refill` is one try, so the sums stay exact.
  struct Peer {
    Duration credit;
    std::chrono::steady_clock::time_point at;
  };
  Duration full() const { return limits_.refill * limits_.tries; }
  Duration credit_at(const Peer& p, std::chrono::steady_clock::time_point now) const { return std::min(full(), p.credit + (now - p.at)); }
  // What a peer's failures count under: its address, or its /64 for IPv6.
  static std::string key(const std::string& peer);
  // The credit now of the peer under `key` (an unknown one has all its tries).
  Duration credit_now(const std::string& key);
  bool make_room();

  Limits limits_;
  Clock clock_;
  std::unordered_map<std::string, Peer> peers_;
};

}  // namespace nfv
