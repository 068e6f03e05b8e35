// The header mark: an mbuf flag that says "this frame's headers have been
// checked and are plain IPv4 (is_plain_ipv4) in a standard-size frame". The
// pod checks every frame once when it classifies it and marks it; each VNF
// of the chain then trusts the mark instead of checking the same headers
// again (8 to 10 cycles per packet over the 4-VNF bench chain). A VNF run
// outside a pod sees no mark and checks as before.
//
// It is an mbuf dynamic flag (a bit of ol_flags, in the mbuf's first cache
// line), which fresh mbufs never carry. The pod sets or clears it on every
// frame it classifies (so a mark from elsewhere is never trusted), and NSH
// encapsulation (dataplane/nsh.cc) clears it. A VNF that changes where a
// frame's headers lie or how long they are (encapsulation, options, length),
// or its EtherType, protocol, fragment bits or TCP data offset, must clear
// it too; none of ours does.
#pragma once

#include <cstdint>

#include <rte_mbuf.h>

#include "packet_parser.h"

namespace nfv {

// The flag's bit in ol_flags; 0 until register_header_mark() succeeded
// (a zero mark is never set, so nothing is trusted).
extern uint64_t g_header_mark;

// Registers the flag (once per process, after EAL init; later calls
// return the same bit). Returns g_header_mark.
uint64_t register_header_mark();

// Checks `m` and sets the mark if it is plain IPv4 of standard size,
// clears it otherwise. Returns whether the headers are plain IPv4 (of any
// size), with their layout in `out`.
[[gnu::always_inline]] inline bool check_and_mark(rte_mbuf* m, uint64_t mark, HeaderLayout& out) {
  const bool plain = plain_ipv4_layout(m, out);
  const bool standard = rte_pktmbuf_pkt_len(m) <= kLongestStandardFrame;
  m->ol_flags = (m->ol_flags & ~mark) | (plain && standard ? mark : 0);
  return plain;
}

inline void clear_header_mark(rte_mbuf* m, uint64_t mark) { m->ol_flags &= ~mark; }

// The layout of a marked frame (the protocol is the only thing that varies).
[[gnu::always_inline]] inline HeaderLayout marked_layout(const rte_mbuf* m) {
  const uint8_t protocol = rte_pktmbuf_mtod(m, const uint8_t*)[kPlainL3Offset + 9];
  return HeaderLayout{AddressFamily::kIpv4, protocol, false, 0, kPlainL3Offset, kPlainL4Offset};
}

// parse_packet for a frame that may carry the mark: a marked frame's flow
// key is read without checking its headers again.
[[gnu::always_inline]] inline ParseStatus parse_trusting_mark(const rte_mbuf* m, uint64_t mark, ParsedPacket& out) {
  if (!(m->ol_flags & mark)) return parse_packet(m, out);
  fill_plain_ipv4(m, marked_layout(m).protocol, out);
  return ParseStatus::kOk;
}

}  // namespace nfv
