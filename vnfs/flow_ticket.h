// What a VNF tells the chain fast path (dataplane/chain_fast_path.h) about
// one packet it processed: whether every later packet of the same IPv4
// TCP/UDP 5-tuple would be treated alike, and what the VNF needs to be told
// when the fast path repeats that treatment without calling process().
//
// A ticket holds while *stamp == expected: a VNF with per-flow state points
// the stamp at its record's generation, which it bumps whenever the record
// is released or reused, so a flow whose session expired is never repeated
// from a stale answer. Changes to a VNF's configuration (lb backends up or
// down) go through the pod's control requests, which end every ticket.
#pragma once

#include <cstdint>

namespace nfv {

struct FlowTicket {
  const uint32_t* stamp = nullptr;  // null: holds as long as the configuration does
  uint32_t expected = 0;
  uint32_t data = 0;                // the VNF's own (which record, which direction)
};
static_assert(sizeof(FlowTicket) == 16);

// Header fields a VNF rewrote for the packet, besides IPv4 addresses, ports
// and the TTL (whose new values the fast path reads from the packet itself).
enum FlowTicketWrites : uint8_t {
  kWritesEthDst = 1,
  kWritesEthSrc = 2,
};

// One packet's answer, filled in by process() when the framework asks.
struct FlowTicketOut {
  FlowTicket ticket;
  bool repeatable = false;     // false: this packet's treatment depends on more than its 5-tuple
  uint8_t writes = 0;          // FlowTicketWrites
  uint8_t tcp_slow_flags = 0;  // TCP packets with any of these flags must see process() (they change state)
};

}  // namespace nfv
