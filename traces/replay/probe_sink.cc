#include "probe_sink.h"

#include <algorithm>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "probe_payload.h"

namespace nfv {

ProbeSink::ProbeSink(const SinkPlan& plan, uint16_t port_id, const WallClock& clock)
    : plan_(plan), port_id_(port_id), clock_(clock),
      slot_ns_(static_cast<uint64_t>(plan.slot_wall_seconds * 1e9)), chain_totals_(plan.chain_names.size()) {}

void ProbeSink::align_slots(uint64_t start_ns) {
  start_ns_ = start_ns;
  aligned_ = true;
}

std::string ProbeSink::chain_name(std::size_t chain) const {
  return chain < plan_.chain_names.size() ? plan_.chain_names[chain] : "chain" + std::to_string(chain);
}

ProbeSink::Percentiles ProbeSink::SlotCounters::percentiles() const {
  if (!latency) return folded;
  return {latency->percentile(0.50), latency->percentile(0.95), latency->percentile(0.99)};
}

const ProbeSink::SlotCounters& ProbeSink::at(std::size_t slot, std::size_t chain) const {
  static const SlotCounters kNone;
  if (slot >= slot_rows_.size() || chain >= slot_rows_[slot]->size()) return kNone;
  return (*slot_rows_[slot])[chain];
}

int64_t ProbeSink::lost_by_sequence(std::size_t slot, std::size_t chain) const {
  const SlotCounters& here = at(slot, chain);
  if (here.packets == 0) return 0;
  uint64_t before = 0;  // where the previous slot with this chain left off
  for (std::size_t s = slot; s-- > 0;)
    if (at(s, chain).packets) {
      before = at(s, chain).seq_end;
      break;
    }
  return static_cast<int64_t>(here.seq_end) - static_cast<int64_t>(before) - static_cast<int64_t>(here.packets);
}

ProbeSink::SlotCounters& ProbeSink::cell(std::size_t slot, std::size_t chain) {
  if (slot_rows_.size() <= slot) {
    while (slot_rows_.size() <= slot) slot_rows_.push_back(std::make_unique<std::vector<SlotCounters>>(chain_totals_.size()));
    fold_before(slot);
  }
  auto& row = *slot_rows_[slot];
  if (row.size() <= chain) row.resize(chain + 1);
  SlotCounters& c = row[chain];
  // A slot already folded counts its late probes, without their latency.
  if (!c.latency && slot >= folded_slots_) {
    c.latency = std::make_unique<LatencyHistogram>();
    slot_histograms_++;
  }
  return c;
}

void ProbeSink::fold_before(std::size_t slot) {
  const std::size_t keep = std::max<std::size_t>(plan_.slot_histograms, 1);
  for (; folded_slots_ + keep <= slot; ++folded_slots_)
    for (SlotCounters& c : *slot_rows_[folded_slots_]) {
      if (!c.latency) continue;
      c.folded = c.percentiles();
      c.latency.reset();
      slot_histograms_--;
    }
}

void ProbeSink::count_probe(uint16_t chain, uint64_t seq, uint64_t sent_ns, uint32_t bytes, uint64_t now_ns) {
  if (!aligned_) align_slots(sent_ns);
  // A chain seen for the first time gets its counters once.
  if (chain >= chain_totals_.size()) chain_totals_.resize(chain + 1u);
  // No later than the slot after now's: a forged sent_ns must not add rows without end.
  const std::size_t now_slot = now_ns > start_ns_ ? (now_ns - start_ns_) / slot_ns_ : 0;
  const std::size_t slot = std::min<std::size_t>(sent_ns > start_ns_ ? (sent_ns - start_ns_) / slot_ns_ : 0, now_slot + 1);
  const uint64_t latency = now_ns > sent_ns ? now_ns - sent_ns : 0;
  Counters& total = chain_totals_[chain];
  SlotCounters& in_slot = cell(slot, chain);
  total.packets++, in_slot.packets++;
  total.bytes += bytes, in_slot.bytes += bytes;
  total.latency.record(latency);
  if (in_slot.latency) in_slot.latency->record(latency);
  total.seq_end = std::max(total.seq_end, seq + 1);
  in_slot.seq_end = std::max(in_slot.seq_end, seq + 1);
  // Late against the chain's whole history: a packet overtaken by a later one.
  if (seq + 1 < total.seq_end) {
    total.reordered++;
    in_slot.reordered++;
  }
}

uint16_t ProbeSink::poll(uint64_t now_tsc) {
  rte_mbuf* burst[kBurst];
  const uint16_t received = rte_eth_rx_burst(port_id_, 0, burst, kBurst);
  if (received == 0) return 0;
  const uint64_t now_ns = clock_.to_ns(now_tsc);
  for (uint16_t i = 0; i < received; ++i) {
    Probe probe;
    if (read_probe(burst[i], probe))
      count_probe(probe.chain, probe.seq, probe.sent_ns, burst[i]->pkt_len, now_ns);
    else
      foreign_packets_++, foreign_bytes_ += burst[i]->pkt_len;
  }
  rte_pktmbuf_free_bulk(burst, received);
  packets_ += received;
  last_receive_tsc_ = now_tsc;
  return received;
}

}  // namespace nfv
