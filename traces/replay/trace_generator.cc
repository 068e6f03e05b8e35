#include "trace_generator.h"

#include <cmath>
#include <cstring>
#include <numeric>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "probe_payload.h"

namespace nfv {
namespace {

// Flow f of a chain: source host and port walk the source prefix, the
// destination host the destination prefix, so every flow is its own 5-tuple.
uint32_t host_in(const Ipv4Prefix& prefix, uint64_t index) {
  const uint64_t hosts = prefix.host_mask > 1 ? prefix.host_mask - 1 : 1;  // skip .0 and broadcast
  return prefix.network | static_cast<uint32_t>(prefix.host_mask > 1 ? 1 + index % hosts : 0);
}

void write_headers(uint8_t* at, const ChainTraffic& chain) {
  static const uint8_t kEthernet[14] = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00};
  std::memcpy(at, kEthernet, sizeof kEthernet);
  auto* ip = reinterpret_cast<rte_ipv4_hdr*>(at + 14);
  std::memset(ip, 0, sizeof *ip);
  ip->version_ihl = 0x45;
  ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
  ip->time_to_live = 64;
  ip->next_proto_id = IPPROTO_UDP;
  auto* udp = reinterpret_cast<rte_udp_hdr*>(at + 34);
  std::memset(udp, 0, sizeof *udp);
  udp->dst_port = rte_cpu_to_be_16(chain.dst_port);
}

}  // namespace

TraceGenerator::TraceGenerator(const GeneratorPlan& plan, uint16_t port_id, rte_mempool* pool, const WallClock& clock)
    : plan_(plan), port_id_(port_id), pool_(pool), clock_(clock), chains_(plan.chains.size()), random_(plan.seed) {
  for (std::size_t c = 0; c < chains_.size(); ++c) {
    const ChainTraffic& traffic = plan.chains[c];
    ChainState& state = chains_[c];
    write_headers(state.headers, traffic);
    const uint64_t src_hosts = traffic.src.host_mask > 1 ? traffic.src.host_mask - 1 : 1;
    state.flows.resize(traffic.flows);
    for (uint32_t f = 0; f < traffic.flows; ++f)
      state.flows[f] = {rte_cpu_to_be_32(host_in(traffic.src, f)), rte_cpu_to_be_32(host_in(traffic.dst, f)),
                        rte_cpu_to_be_16(static_cast<uint16_t>(1024 + (f / src_hosts) % 64512))};
    state.popularity = AliasTable(zipf_weights(traffic.flows, traffic.zipf_exponent));
  }
  std::vector<double> weights;
  for (const auto& s : plan.sizes) sizes_.push_back(s.bytes), weights.push_back(s.weight);
  size_mix_ = AliasTable(weights);
  sent_.assign(plan.slots * chains_.size(), 0);
  sent_bytes_.assign(plan.slots * chains_.size(), 0);
  behind_max_tsc_.assign(plan.slots, 0);
}

TraceGenerator::~TraceGenerator() {
  if (pending_count_) rte_pktmbuf_free_bulk(pending_, pending_count_);
}

void TraceGenerator::start(uint64_t start_tsc, std::size_t first_slot) {
  start_tsc_ = start_tsc;
  slot_tsc_ = static_cast<uint64_t>(plan_.scale.slot_wall_seconds * static_cast<double>(clock_.hz()));
  start_ns_ = clock_.to_ns(start_tsc);
  first_slot_ = first_slot;
}

uint64_t TraceGenerator::quota(std::size_t slot, std::size_t chain) const {
  return static_cast<uint64_t>(std::llround(plan_.target(slot, chain) * plan_.scale.slot_wall_seconds));
}

double TraceGenerator::behind_max_ms(std::size_t slot) const {
  return static_cast<double>(behind_max_tsc_[slot]) * 1e3 / static_cast<double>(clock_.hz());
}

uint64_t TraceGenerator::total_sent() const { return std::accumulate(sent_.begin(), sent_.end(), uint64_t{0}); }

void TraceGenerator::enter_slot(std::size_t slot) {
  slot_ = slot;
  slot_entered_ = true;
  slot_start_tsc_ = start_tsc_ + slot * slot_tsc_;
  const double hz = static_cast<double>(clock_.hz());
  for (std::size_t c = 0; c < chains_.size(); ++c) {
    chains_[c].packets_per_tsc = plan_.target(slot, c) / hz;
    chains_[c].quota = quota(slot, c);
    chains_[c].built = 0;
  }
}

void TraceGenerator::build(uint16_t chain, uint16_t count, uint64_t now_ns) {
  ChainState& state = chains_[chain];
  rte_mbuf** mbufs = pending_ + pending_count_;
  for (uint16_t i = 0; i < count; ++i) {
    const FlowAddress& flow = state.flows[state.popularity.pick(random_.next())];
    const uint16_t bytes = sizes_[size_mix_.pick(random_.next())];
    uint8_t* p = rte_pktmbuf_mtod(mbufs[i], uint8_t*);
    std::memcpy(p, state.headers, sizeof state.headers);
    auto* ip = reinterpret_cast<rte_ipv4_hdr*>(p + 14);
    ip->total_length = rte_cpu_to_be_16(static_cast<uint16_t>(bytes - 14));
    ip->src_addr = flow.src;
    ip->dst_addr = flow.dst;
    ip->hdr_checksum = rte_ipv4_cksum(ip);
    auto* udp = reinterpret_cast<rte_udp_hdr*>(p + 34);
    udp->src_port = flow.src_port;
    udp->dgram_len = rte_cpu_to_be_16(static_cast<uint16_t>(bytes - 34));
    write_probe(p + kProbeHeadersBytes, chain, state.next_seq++, now_ns);
    mbufs[i]->data_len = bytes;
    mbufs[i]->pkt_len = bytes;
    pending_chain_[pending_count_ + i] = chain;
    pending_bytes_[pending_count_ + i] = bytes;
    pending_slot_[pending_count_ + i] = static_cast<uint32_t>(slot_);
  }
  pending_count_ = static_cast<uint16_t>(pending_count_ + count);
  state.built += count;
}

void TraceGenerator::transmit() {
  if (pending_count_ == 0) return;
  const uint16_t taken = rte_eth_tx_burst(port_id_, 0, pending_, pending_count_);
  const std::size_t chains = chains_.size();
  for (uint16_t i = 0; i < taken; ++i) {
    const std::size_t cell = pending_slot_[i] * chains + pending_chain_[i];
    sent_[cell]++;
    sent_bytes_[cell] += pending_bytes_[i];
  }
  if (taken == pending_count_) {
    pending_count_ = 0;
    return;
  }
  // Keep the rest, oldest first, for the next try.
  const uint16_t left = static_cast<uint16_t>(pending_count_ - taken);
  std::memmove(pending_, pending_ + taken, left * sizeof pending_[0]);
  std::memmove(pending_chain_, pending_chain_ + taken, left * sizeof pending_chain_[0]);
  std::memmove(pending_bytes_, pending_bytes_ + taken, left * sizeof pending_bytes_[0]);
  std::memmove(pending_slot_, pending_slot_ + taken, left * sizeof pending_slot_[0]);
  pending_count_ = left;
}

bool TraceGenerator::poll(uint64_t now_tsc) {
  if (now_tsc < start_tsc_) return true;
  const std::size_t slot = static_cast<std::size_t>((now_tsc - start_tsc_) / slot_tsc_);
  if (slot < first_slot_) return true;
  if (slot >= plan_.slots) {
    slot_ = plan_.slots;
    transmit();
    return pending_count_ > 0;
  }
  if (!slot_entered_ || slot != slot_) enter_slot(slot);
  const double into_slot = static_cast<double>(now_tsc - slot_start_tsc_);
  const uint64_t now_ns = clock_.to_ns(now_tsc);
  for (std::size_t c = 0; c < chains_.size(); ++c) {
    ChainState& state = chains_[c];
    if (state.built >= state.quota) continue;
    const uint64_t due = std::min(state.quota, static_cast<uint64_t>(into_slot * state.packets_per_tsc) + 1);
    if (state.built >= due) continue;
    // The oldest packet not yet built was due at built / rate into the slot.
    const double behind = into_slot - static_cast<double>(state.built) / state.packets_per_tsc;
    if (behind > static_cast<double>(behind_max_tsc_[slot])) behind_max_tsc_[slot] = static_cast<uint64_t>(behind);
    // At most one burst per chain per pass: a generator that fell behind
    // catches up burst by burst and never builds past the slot it is in.
    if (pending_count_ == kBurst) {
      transmit();
      if (pending_count_ == kBurst) return true;  // the port is full: come back later
    }
    const uint16_t count = static_cast<uint16_t>(std::min<uint64_t>(due - state.built, kBurst - pending_count_));
    if (rte_pktmbuf_alloc_bulk(pool_, pending_ + pending_count_, count) != 0) {
      // Every mbuf is in flight somewhere: send what we have, build later.
      mbuf_shortages_++;
      break;
    }
    build(static_cast<uint16_t>(c), count, now_ns);
  }
  transmit();
  return true;
}

void TraceGenerator::finish(uint64_t deadline_tsc) {
  while (pending_count_ > 0 && rte_rdtsc() < deadline_tsc) transmit();
  if (pending_count_ == 0) return;
  unsent_at_end_ += pending_count_;
  rte_pktmbuf_free_bulk(pending_, pending_count_);
  pending_count_ = 0;
}

}  // namespace nfv
