#include "auth_throttle.h"

#include <arpa/inet.h>

#include <cstring>

namespace nfv {

// One IPv6 host has a whole /64 to dial from: its addresses count as one.
// IPv4 (and IPv4 mapped into IPv6) counts per address.
std::string AuthThrottle::key(const std::string& peer) {
  in6_addr v6;
  if (inet_pton(AF_INET6, peer.c_str(), &v6) != 1) return peer;
  char text[INET6_ADDRSTRLEN];
  if (IN6_IS_ADDR_V4MAPPED(&v6)) return inet_ntop(AF_INET, v6.s6_addr + 12, text, sizeof text) ? text : peer;
  std::memset(v6.s6_addr + 8, 0, 8);
  return inet_ntop(AF_INET6, &v6, text, sizeof text) ? std::string(text) + "/64" : peer;
}

AuthThrottle::Duration AuthThrottle::credit_now(const std::string& k) {
  const auto it = peers_.find(k);
  return it == peers_.end() ? full() : credit_at(it->second, clock_());
}

bool AuthThrottle::allows(const std::string& peer) {
  const std::string k = key(peer);
  // A table full of blocked peers admits no unknown one: a flood of
  // addresses must neither grow it nor free those it holds back.
  if (!peers_.count(k) && !make_room()) return false;
  return credit_now(k) >= limits_.refill;
}

void AuthThrottle::failed(const std::string& peer) {
  const std::string k = key(peer);
  const Duration credit = credit_now(k);
  if (!peers_.count(k) && !make_room()) return;  // refused by allows() until there is room
  peers_[k] = Peer{std::max(Duration::zero(), credit - limits_.refill), clock_()};
}

std::chrono::milliseconds AuthThrottle::retry_in(const std::string& peer) {
  const std::string k = key(peer);
  Duration wait = limits_.refill - credit_now(k);
  if (!peers_.count(k) && !make_room()) {
    // Until the first blocked peer gets a try back and so can be dropped.
    const auto now = clock_();
    wait = limits_.refill;
    for (const auto& [_, p] : peers_) wait = std::min(wait, limits_.refill - credit_at(p, now));
  }
  return std::chrono::ceil<std::chrono::milliseconds>(std::max(Duration::zero(), wait));
}

// Room for one more peer: drops those whose tries have all come back, then,
// if still full, the one nearest to that among those not blocked. False when
// every peer remembered is blocked.
bool AuthThrottle::make_room() {
  if (peers_.size() < limits_.max_peers) return true;
  const auto now = clock_();
  for (auto it = peers_.begin(); it != peers_.end();) it = credit_at(it->second, now) >= full() ? peers_.erase(it) : std::next(it);
  if (peers_.size() < limits_.max_peers) return true;
  const auto most = std::max_element(peers_.begin(), peers_.end(),
                                     [&](const auto& a, const auto& b) { return credit_at(a.second, now) < credit_at(b.second, now); });
  if (credit_at(most->second, now) < limits_.refill) return false;
  peers_.erase(most);
  return true;
}

}  // namespace nfv
