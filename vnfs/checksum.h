// Incremental Internet checksum updates (RFC 1624): rewriting an address or
// port adjusts the stored checksum instead of summing the whole packet again.
#pragma once

#include <cstdint>
#include <cstring>

namespace nfv {

// The change of some header words, applied to a checksum with RFC 1624's
// eqn. 3, HC' = ~(~HC + ~m + m'). Words are native-order loads of network
// order data (one's-complement sums do not care about byte order as long as
// every word is loaded alike), and a 32-bit word counts as its two 16-bit
// halves once the sum is folded, so an address goes in as one word. The
// fold takes a fixed four steps: no loop, no branch.
class ChecksumDelta {
 public:
  ChecksumDelta() = default;
  // A delta kept as folded() and applied later (the chain fast path keeps one per flow).
  static ChecksumDelta from_folded(uint32_t folded) {
    ChecksumDelta d;
    d.sum_ = folded;
    return d;
  }
  uint32_t folded() const {
    uint64_t sum = (sum_ & 0xffffffff) + (sum_ >> 32);
    return static_cast<uint32_t>((sum & 0xffffffff) + (sum >> 32));
  }

  void replace32(uint32_t old_value, uint32_t new_value) {
    sum_ += static_cast<uint32_t>(~old_value);
    sum_ += new_value;
  }
  void replace16(uint16_t old_value, uint16_t new_value) {
    sum_ += static_cast<uint16_t>(~old_value);
    sum_ += new_value;
  }

  // The checksum stored at `at` (unaligned), updated.
  void apply(uint8_t* at) const { store(at, updated(load(at))); }

  // UDP over IPv4: a zero checksum means "none" and stays zero; a computed
  // zero is sent as 0xffff.
  void apply_udp(uint8_t* at) const {
    const uint16_t stored = load(at);
    if (stored == 0) return;
    const uint16_t now = updated(stored);
    store(at, now ? now : 0xffff);
  }

 private:
  static uint16_t load(const uint8_t* at) {
    uint16_t v;
    std::memcpy(&v, at, 2);
    return v;
  }
  static void store(uint8_t* at, uint16_t v) { std::memcpy(at, &v, 2); }

  uint16_t updated(uint16_t stored) const {
    uint64_t sum = sum_ + static_cast<uint16_t>(~stored);
    sum = (sum & 0xffffffff) + (sum >> 32);
    sum = (sum & 0xffffffff) + (sum >> 32);
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
  }

  uint64_t sum_ = 0;
};

// Which L4 checksum covers a rewritten endpoint: TCP's and UDP's include the
// addresses through the pseudo-header (UDP's may be absent), ICMP's does not.
enum class L4Checksum : uint8_t { kTcp, kUdp, kIcmp };

// Rewrites an IPv4 address (source or destination) and the L4 port next to
// it (for ICMP, the echo id) to `new_addr`/`new_port` (network order), and
// adjusts the IPv4 header checksum and the L4 checksum. Pointers may be
// unaligned (packed headers).
inline void rewrite_endpoint(uint8_t* ip_checksum, uint8_t* addr, uint8_t* port, uint32_t new_addr, uint16_t new_port,
                             uint8_t* l4_checksum, L4Checksum kind) {
  uint32_t old_addr;
  uint16_t old_port;
  std::memcpy(&old_addr, addr, 4);
  std::memcpy(&old_port, port, 2);
  std::memcpy(addr, &new_addr, 4);
  std::memcpy(port, &new_port, 2);
  ChecksumDelta header;
  header.replace32(old_addr, new_addr);
  header.apply(ip_checksum);
  ChecksumDelta l4;
  l4.replace16(old_port, new_port);
  if (kind == L4Checksum::kIcmp) return l4.apply(l4_checksum);
  l4.replace32(old_addr, new_addr);
  if (kind == L4Checksum::kUdp) l4.apply_udp(l4_checksum);
  else l4.apply(l4_checksum);
}

// Decrements the TTL of the IPv4 header at `ip` (the caller has checked it
// is above 1) and adjusts the header checksum. The TTL and protocol word is
// worked out in a register and stored once: decrementing the TTL byte in
// memory and loading the word back makes the load wait for a store it cannot
// be forwarded from (a byte store cannot feed a 16-bit load), which perf
// showed as most of the router's time.
inline void decrement_ipv4_ttl(uint8_t* ip) {
  constexpr int kTtlOffset = 8, kChecksumOffset = 10;  // RFC 791; the protocol follows the TTL
  constexpr uint8_t kOneTtl[2] = {1, 0};               // one TTL step, in the word's byte order
  uint16_t old_word, one;
  std::memcpy(&old_word, ip + kTtlOffset, 2);
  std::memcpy(&one, kOneTtl, 2);
  const uint16_t new_word = static_cast<uint16_t>(old_word - one);  // TTL > 1: no borrow from the protocol
  std::memcpy(ip + kTtlOffset, &new_word, 2);
  ChecksumDelta delta;
  delta.replace16(old_word, new_word);
  delta.apply(ip + kChecksumOffset);
}

}  // namespace nfv
