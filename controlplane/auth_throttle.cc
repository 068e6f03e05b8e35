#include "auth_throttle.h"

namespace nfv {

AuthThrottle::Duration AuthThrottle::credit_now(const std::string& peer) {
  const auto it = peers_.find(peer);
  return it == peers_.end() ? full() : credit_at(it->second, clock_());
}

bool AuthThrottle::allows(const std::string& peer) { return credit_now(peer) >= limits_.refill; }

void AuthThrottle::failed(const std::string& peer) {
  const Duration credit = credit_now(peer);
  if (!peers_.count(peer) && peers_.size() >= limits_.max_peers) forget_refilled();
  peers_[peer] = Peer{std::max(Duration::zero(), credit - limits_.refill), clock_()};
}

std::chrono::milliseconds AuthThrottle::retry_in(const std::string& peer) {
  return std::chrono::ceil<std::chrono::milliseconds>(std::max(Duration::zero(), limits_.refill - credit_now(peer)));
}

// Drops the peers whose tries have all come back; if none has, the one
// nearest to it (a flood of addresses must not grow the table).
void AuthThrottle::forget_refilled() {
  const auto now = clock_();
  for (auto it = peers_.begin(); it != peers_.end();) it = credit_at(it->second, now) >= full() ? peers_.erase(it) : std::next(it);
  if (peers_.size() < limits_.max_peers) return;
  peers_.erase(std::max_element(peers_.begin(), peers_.end(),
                                [&](const auto& a, const auto& b) { return credit_at(a.second, now) < credit_at(b.second, now); }));
}

}  // namespace nfv
