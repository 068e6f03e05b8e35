// The chain fast path: a per-worker table that remembers, per flow of a
// chain, what the chain's hops did to the flow's first packet, so that the
// flow's later packets get the same treatment in one step instead of one
// VNF burst per hop (SpeedyBox-style consolidation of header actions, with
// OVS-style exact-match lookup).
//
// A record is made by watching one packet go the slow way: the worker tags
// it, each hop's VNF answers with a ticket (vnfs/flow_ticket.h), and at the
// egress the record keeps the packet's rewritten header fields and the
// checksum changes that got it there. A later packet of the flow is
// repeated from the record when
//   - the record was made under the worker's current generation (bumped by
//     every routing snapshot and every VNF control request),
//   - its 5-tuple and chain equal the record's,
//   - every hop's ticket still holds (its flow state was not released),
//   - every hop's pool still steers the flow to the instance the record
//     names (the worker checks this: the snapshot fixes Maglev and reply
//     steering, and a pinned flow's pin is looked up, and so refreshed, at
//     least every 1/64 of its idle timeout: it moves only when it expires),
//   - its TTL survives the chain's decrements, and it carries no TCP flag a
//     hop must see (SYN, FIN, RST at the nat).
// Everything else takes the slow path, which is always right.
#pragma once

#include <cstdint>
#include <cstring>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "checksum.h"
#include "flow_ticket.h"

namespace nfv {

// Chains longer than this never take the fast path.
inline constexpr int kFastPathMaxHops = 8;

// An IPv4 TCP/UDP 5-tuple and the chain it is on, as read from a frame
// whose headers the pod checked (plain IPv4: IP header at 14, L4 at 34).
struct FastPathKey {
  uint32_t src, dst;         // network order
  uint32_t ports;            // source and destination, as in the header
  uint8_t protocol;
  uint8_t pad = 0;
  uint16_t chain;

  static constexpr uint32_t kL3 = 14, kL4 = 34;
  static FastPathKey of(const rte_mbuf* m, uint16_t chain) {
    const auto* ip = rte_pktmbuf_mtod_offset(m, const uint8_t*, kL3);
    FastPathKey k;
    std::memcpy(&k.src, ip + 12, 8);  // and dst
    std::memcpy(&k.ports, rte_pktmbuf_mtod_offset(m, const uint8_t*, kL4), 4);
    k.protocol = ip[9];
    k.chain = chain;
    return k;
  }
  bool operator==(const FastPathKey& o) const { return std::memcmp(this, &o, sizeof(*this)) == 0; }
};
static_assert(sizeof(FastPathKey) == 16);

struct alignas(64) FastPathRecord {
  // First cache line: what every packet reads.
  FastPathKey key;
  uint32_t generation = 0;   // the worker's, when completed; 0 = not usable
  uint8_t hops = 0;
  uint8_t ttl_decrement = 0;
  uint8_t tcp_slow_flags = 0;
  uint8_t writes = 0;        // FlowTicketWrites, over all hops
  uint32_t out_addresses[2]; // source, destination after the chain
  uint32_t out_ports;
  uint8_t out_eth[12];       // destination, source MAC after the chain
  uint32_t ip_delta = 0;     // ChecksumDelta::folded of the IPv4 header
  uint32_t l4_delta = 0;     // ... and of the TCP/UDP checksum
  uint8_t slots[kFastPathMaxHops];  // by hop: the instance the flow was steered to
  // Then one ticket per hop.
  FlowTicket tickets[kFastPathMaxHops];
  // By hop: the hash the pool's flow pins know the flow by; pinned: bit per
  // hop whose pool picked the instance by pin (a repeat refreshes the pin,
  // at least every 1/64 of its idle timeout: pins_seen_tsc).
  uint32_t pin_hashes[kFastPathMaxHops];
  uint8_t pinned = 0;
  uint64_t pins_seen_tsc = 0;  // when a repeat last looked the pins up (and so refreshed them)
  // Its instance slots as one number (0 past the last hop), which orders
  // records as hop by hop orders packets: by the instance at the first
  // hop, then at the second, ...; path_prefix keeps the slots up to a hop.
  uint64_t path() const {
    uint64_t p;
    std::memcpy(&p, slots, sizeof(p));
    return rte_be_to_cpu_64(p);
  }
  static uint64_t path_prefix(uint64_t path, int hop) { return path >> (8 * (kFastPathMaxHops - 1 - hop)); }
  static uint8_t path_slot(uint64_t path, int hop) { return static_cast<uint8_t>(path_prefix(path, hop)); }
  // While recording.
  uint8_t ticketed = 0;      // bit per hop that answered
  uint8_t steered = 0;       // bit per hop whose instance slot was noted
  uint8_t ingress_ttl = 0;   // the tagged packet's TTL on entry
  uint16_t serial = 0;       // of the recording in progress (tags name it)
  uint32_t recording_generation = 0;  // completes only under the generation it began in
};
static_assert(offsetof(FastPathRecord, slots) + kFastPathMaxHops <= 64);
static_assert(kFastPathMaxHops == sizeof(uint64_t), "path() reads the slots as one 64-bit number");
static_assert(offsetof(FastPathRecord, tickets) == 64);
static_assert(offsetof(FastPathRecord, pins_seen_tsc) / 64 == offsetof(FastPathRecord, pin_hashes) / 64);

enum class FastPathCheck : uint8_t {
  kRepeat,         // the packet is repeated from its record
  kPacketNeedsHops,  // the record holds, but this packet must go hop by hop (TTL, TCP flags)
  kNoRecord,       // no record holds for the packet's flow: record it
};

// A per-worker table of records, direct-mapped by the pod's flow hash.
class ChainFastPath {
 public:
  // `records` is rounded up to a power of two (at most 65536, tags hold 16 bits).
  ChainFastPath(uint32_t records, int socket_id);
  ~ChainFastPath();
  ChainFastPath(const ChainFastPath&) = delete;
  ChainFastPath& operator=(const ChainFastPath&) = delete;

  // Ends every record (a new routing snapshot, a VNF control request).
  void new_generation() { generation_ = generation_ == UINT32_MAX ? 1 : generation_ + 1; }

  FastPathRecord& record_for(uint32_t flow_hash) { return records_[flow_hash & mask_]; }
  void prefetch(uint32_t flow_hash, bool pins) const;

  // Whether `m` (key `key`, its flow's record `r`) may be repeated from the record.
  FastPathCheck check(const FastPathRecord& r, const FastPathKey& key, const rte_mbuf* m) const;

  // Starts recording the flow of `m` in its record; returns the tag the
  // packet carries along its chain (never 0).
  uint32_t start_recording(uint32_t flow_hash, const FastPathKey& key, uint8_t hops, const rte_mbuf* m);
  // A hop's answer for the tagged packet; an unrepeatable one ends the recording.
  void note_ticket(uint32_t tag, int hop, const FlowTicketOut& out);
  // The instance slot a hop's pool steered the tagged packet to, and the
  // hash its pins know the flow by (pinned) or none.
  void note_slot(uint32_t tag, int hop, uint16_t slot, bool pinned, uint32_t pin_hash);
  // A record that no longer says where its flow goes (a pin moved): the
  // flow's next packet records it again.
  static void end(FastPathRecord& r) { r.generation = 0; }
  // The tagged packet left the chain as `m`: completes the record if every
  // hop answered with a ticket.
  void complete(uint32_t tag, const rte_mbuf* m);

  // Gives `m` the record's header fields and checksums.
  static void rewrite(rte_mbuf* m, const FastPathRecord& r);

 private:
  // The record a tag names, or null when another recording took it since.
  FastPathRecord* recording(uint32_t tag);

  FastPathRecord* records_ = nullptr;
  uint32_t mask_ = 0;
  uint32_t generation_ = 1;
  uint16_t serial_ = 0;
};

}  // namespace nfv
