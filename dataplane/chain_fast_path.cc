#include "chain_fast_path.h"

#include <netinet/in.h>

#include <cstddef>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

namespace nfv {
namespace {

constexpr uint32_t kMaxRecords = 1u << 16;  // a tag holds the index in 16 bits
constexpr int kTtlOffset = 8, kProtocolOffset = 9, kIpChecksumOffset = 10;
constexpr int kTcpFlagsOffset = 13, kTcpChecksumOffset = 16, kUdpChecksumOffset = 6;

const uint8_t* l3_of(const rte_mbuf* m) { return rte_pktmbuf_mtod_offset(m, const uint8_t*, FastPathKey::kL3); }

// The TTL and protocol word as checksums see it.
uint16_t ttl_word(uint8_t ttl, uint8_t protocol) {
  const uint8_t bytes[2] = {ttl, protocol};
  uint16_t word;
  std::memcpy(&word, bytes, 2);
  return word;
}

}  // namespace

ChainFastPath::ChainFastPath(uint32_t records, int socket_id) {
  const uint32_t count = rte_align32pow2(std::clamp<uint32_t>(records, 1, kMaxRecords));
  records_ = static_cast<FastPathRecord*>(rte_zmalloc_socket("chain_fast_path", sizeof(FastPathRecord) * count, 64, socket_id));
  if (!records_) throw std::runtime_error("cannot allocate the chain fast path (" + std::to_string(count) + " records)");
  mask_ = count - 1;
}

ChainFastPath::~ChainFastPath() { rte_free(records_); }

void ChainFastPath::prefetch(uint32_t flow_hash, bool pins) const {
  const auto* r = reinterpret_cast<const uint8_t*>(&records_[flow_hash & mask_]);
  rte_prefetch0(r);
  rte_prefetch0(r + 64);
  if (pins) rte_prefetch0(r + offsetof(FastPathRecord, pin_hashes));
}

FastPathCheck ChainFastPath::check(const FastPathRecord& r, const FastPathKey& key, const rte_mbuf* m) const {
  if (r.generation != generation_ || !(r.key == key)) return FastPathCheck::kNoRecord;
  // Stamps are read only under the current generation: their VNFs still live.
  for (uint8_t h = 0; h < r.hops; ++h)
    if (r.tickets[h].stamp && *r.tickets[h].stamp != r.tickets[h].expected) return FastPathCheck::kNoRecord;
  const uint8_t* ip = l3_of(m);
  if (ip[kTtlOffset] <= r.ttl_decrement) return FastPathCheck::kPacketNeedsHops;
  if (key.protocol == IPPROTO_TCP && (ip[20 + kTcpFlagsOffset] & r.tcp_slow_flags)) return FastPathCheck::kPacketNeedsHops;
  return FastPathCheck::kRepeat;
}

uint32_t ChainFastPath::start_recording(uint32_t flow_hash, const FastPathKey& key, uint8_t hops, const rte_mbuf* m) {
  if (++serial_ == 0) serial_ = 1;
  FastPathRecord& r = record_for(flow_hash);
  r.key = key;
  r.generation = 0;
  r.recording_generation = generation_;
  r.serial = serial_;
  r.hops = hops;
  r.ticketed = 0;
  r.steered = 0;
  std::memset(r.slots, 0, sizeof(r.slots));  // path() reads them all
  r.pinned = 0;
  r.pins_seen_tsc = 0;
  r.writes = 0;
  r.tcp_slow_flags = 0;
  r.ingress_ttl = l3_of(m)[kTtlOffset];
  return static_cast<uint32_t>(serial_) << 16 | (flow_hash & mask_);
}

// A recording that outlived its generation is dropped: a hop that answered
// may have been replaced since (its stamps would point into a freed VNF).
FastPathRecord* ChainFastPath::recording(uint32_t tag) {
  FastPathRecord& r = records_[tag & 0xffff];
  return r.serial == tag >> 16 && r.generation == 0 && r.recording_generation == generation_ ? &r : nullptr;
}

void ChainFastPath::note_ticket(uint32_t tag, int hop, const FlowTicketOut& out) {
  FastPathRecord* r = recording(tag);
  if (!r) return;
  if (!out.repeatable || hop >= r->hops) {
    r->serial = 0;  // this flow is not repeated; the record stays unusable
    return;
  }
  r->tickets[hop] = out.ticket;
  r->ticketed = static_cast<uint8_t>(r->ticketed | 1u << hop);
  r->writes |= out.writes;
  r->tcp_slow_flags |= out.tcp_slow_flags;
}

void ChainFastPath::note_slot(uint32_t tag, int hop, uint16_t slot, bool pinned, uint32_t pin_hash) {
  FastPathRecord* r = recording(tag);
  if (!r || hop >= r->hops) return;
  r->slots[hop] = static_cast<uint8_t>(slot);
  r->pin_hashes[hop] = pin_hash;
  r->steered = static_cast<uint8_t>(r->steered | 1u << hop);
  if (pinned) r->pinned = static_cast<uint8_t>(r->pinned | 1u << hop);
}

void ChainFastPath::complete(uint32_t tag, const rte_mbuf* m) {
  FastPathRecord* r = recording(tag);
  if (!r) return;
  r->serial = 0;
  const uint8_t* ip = l3_of(m);
  const uint8_t out_ttl = ip[kTtlOffset];
  const unsigned all_hops = (1u << r->hops) - 1;
  if (r->ticketed != all_hops || r->steered != all_hops || out_ttl > r->ingress_ttl) return;
  std::memcpy(r->out_addresses, ip + 12, 8);
  std::memcpy(&r->out_ports, ip + 20, 4);
  std::memcpy(r->out_eth, rte_pktmbuf_mtod(m, const uint8_t*), 12);
  r->ttl_decrement = static_cast<uint8_t>(r->ingress_ttl - out_ttl);
  // The checksum changes of the fields that changed, as the hops made them
  // one by one (RFC 1624 updates add up); unchanged fields add nothing.
  ChecksumDelta ip_delta, l4_delta;
  const uint32_t in_addresses[2] = {r->key.src, r->key.dst};
  for (int a = 0; a < 2; ++a) {
    if (in_addresses[a] == r->out_addresses[a]) continue;
    ip_delta.replace32(in_addresses[a], r->out_addresses[a]);
    l4_delta.replace32(in_addresses[a], r->out_addresses[a]);
  }
  if (r->key.ports != r->out_ports) l4_delta.replace32(r->key.ports, r->out_ports);
  if (r->ttl_decrement) ip_delta.replace16(ttl_word(r->ingress_ttl, r->key.protocol), ttl_word(out_ttl, r->key.protocol));
  r->ip_delta = ip_delta.folded();
  r->l4_delta = l4_delta.folded();
  r->generation = generation_;
}

void ChainFastPath::rewrite(rte_mbuf* m, const FastPathRecord& r) {
  uint8_t* eth = rte_pktmbuf_mtod(m, uint8_t*);
  uint8_t* ip = eth + FastPathKey::kL3;
  uint8_t* l4 = eth + FastPathKey::kL4;
  std::memcpy(ip + 12, r.out_addresses, 8);
  std::memcpy(l4, &r.out_ports, 4);
  ip[kTtlOffset] = static_cast<uint8_t>(ip[kTtlOffset] - r.ttl_decrement);
  ChecksumDelta::from_folded(r.ip_delta).apply(ip + kIpChecksumOffset);
  const ChecksumDelta l4_delta = ChecksumDelta::from_folded(r.l4_delta);
  if (ip[kProtocolOffset] == IPPROTO_TCP) l4_delta.apply(l4 + kTcpChecksumOffset);
  else l4_delta.apply_udp(l4 + kUdpChecksumOffset);
  if (r.writes & kWritesEthDst) std::memcpy(eth, r.out_eth, 6);
  if (r.writes & kWritesEthSrc) std::memcpy(eth + 6, r.out_eth + 6, 6);
}

}  // namespace nfv
