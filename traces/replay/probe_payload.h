// The payload nfv-replay puts after the UDP header of every generated packet,
// so that a sink (in this process or another) can tell its own packets from
// foreign ones, which chain they belong to, what was lost or reordered and
// how long they took. 22 bytes in network byte order, so the smallest frame
// (64 bytes: Ethernet 14 + IPv4 20 + UDP 8 + 22) still carries all of it:
//
//   offset 0  magic    u32  0x4E465652 ("NFVR")
//          4  chain    u16  the generator's chain number (0, 1, ...)
//          6  seq      u64  per-chain sequence number, from 0
//         14  sent_ns  u64  CLOCK_REALTIME ns when the burst was built
#pragma once

#include <cstdint>
#include <cstring>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "packet_parser.h"

namespace nfv {

inline constexpr uint32_t kProbeMagic = 0x4E465652;
inline constexpr uint16_t kProbeBytes = 22;
inline constexpr uint16_t kProbeHeadersBytes = 14 + 20 + 8;  // Ethernet, IPv4, UDP
inline constexpr uint16_t kMinProbeFrameBytes = kProbeHeadersBytes + kProbeBytes;  // 64

struct Probe {
  uint16_t chain;
  uint64_t seq;
  uint64_t sent_ns;
};

inline void write_probe(uint8_t* at, uint16_t chain, uint64_t seq, uint64_t sent_ns) {
  const uint32_t magic = rte_cpu_to_be_32(kProbeMagic);
  const uint16_t chain_be = rte_cpu_to_be_16(chain);
  const uint64_t seq_be = rte_cpu_to_be_64(seq), sent_be = rte_cpu_to_be_64(sent_ns);
  std::memcpy(at, &magic, 4);
  std::memcpy(at + 4, &chain_be, 2);
  std::memcpy(at + 6, &seq_be, 8);
  std::memcpy(at + 14, &sent_be, 8);
}

// Finds the probe in a UDP packet (IPv4 or IPv6, VLAN tags allowed, as the
// pods' parser reads them). False for anything else: a foreign packet.
inline bool read_probe(const rte_mbuf* m, Probe& probe) {
  ParsedPacket parsed;
  if (parse_packet(m, parsed) != ParseStatus::kOk || parsed.key.protocol != 17 || parsed.later_fragment) return false;
  const uint32_t at = parsed.l4_offset + 8u;
  if (at + kProbeBytes > m->data_len) return false;
  const uint8_t* p = rte_pktmbuf_mtod_offset(m, const uint8_t*, at);
  uint32_t magic;
  uint16_t chain;
  uint64_t seq, sent;
  std::memcpy(&magic, p, 4);
  if (rte_be_to_cpu_32(magic) != kProbeMagic) return false;
  std::memcpy(&chain, p + 4, 2);
  std::memcpy(&seq, p + 6, 8);
  std::memcpy(&sent, p + 14, 8);
  probe = {rte_be_to_cpu_16(chain), rte_be_to_cpu_64(seq), rte_be_to_cpu_64(sent)};
  return true;
}

}  // namespace nfv
