// The chain fast path on a worker (chain_fast_path.h): which chains may take
// it, how a burst entering a chain splits, in order, into packets repeated
// from their flow's record and packets that go hop by hop, what a repeated
// packet does to each hop's instance, VNF and counters, and how a slow
// packet's passage becomes a record.
#include <netinet/in.h>

#include <rte_cycles.h>

#include "chain_meta.h"
#include "worker.h"

namespace nfv {

// A chain takes the fast path when it runs wholly at its ingress site, in
// this pod, with at most kFastPathMaxHops hops of VNFs that repeat flows,
// and when repeating saves something: two hops or more, or one with flow
// state (one stateless hop costs about what a repeat does; a lone router
// ran about 10% faster hop by hop in the bench).
void Worker::prepare_fast_path() {
  const PodLayout& layout = pod_.layout;
  chain_fast_.assign(layout.chains.size(), 0);
  if (layout.fast_path_flows == 0) return;
  bool any = false;
  for (std::size_t c = 0; c < layout.chains.size(); ++c) {
    const ChainInfo& chain = layout.chains[c];
    bool eligible = chain.fast_path && !chain.hops.empty() && chain.hops.size() <= kFastPathMaxHops &&
                    layout.sites[chain.ingress_site].hosted && chain.egress_site == chain.ingress_site &&
                    chain.egress_port != kNoIndex;
    bool stateful = false;
    for (std::size_t h = 0; eligible && h < chain.hops.size(); ++h) {
      const HopInfo& hop = chain.hops[h];
      const auto vnf = VnfRegistry::instance().create(hop.vnf);
      eligible = hop.sites.size() == 1 && hop.site == chain.ingress_site &&
                 pod_.pools[pod_.pool_base[pod_.hop_base[c] + h]] != nullptr && vnf->repeats_flows();
      stateful |= vnf->stateful();
    }
    eligible = eligible && (chain.hops.size() >= 2 || stateful);
    chain_fast_[c] = eligible;
    any |= eligible;
  }
  if (any) fast_path_ = std::make_unique<ChainFastPath>(layout.fast_path_flows, static_cast<int>(rte_socket_id()));
  fast_path_vnf_changes_ = pod_.vnf_changes.load();
}

// Records made under another snapshot (instances, pools, splits) or before
// a VNF control request may not hold any more: they all end.
void Worker::check_fast_path_generation() {
  const uint32_t changes = pod_.vnf_changes.load(std::memory_order_acquire);
  if (snapshot_->version == fast_path_snapshot_version_ && changes == fast_path_vnf_changes_) return;
  fast_path_snapshot_version_ = snapshot_->version;
  fast_path_vnf_changes_ = changes;
  fast_path_->new_generation();
}

// Whether every hop of `chain` can be gone past now: each pool sends all
// to one instance of ours that serves inline (the conditions under which
// the slow path would run it at once); those instances by hop.
bool Worker::fast_path_open(int chain, Instance** instances) {
  const ChainRoute& route = pod_.routes[chain];
  for (int stage = 1; stage < route.egress_stage; ++stage) {
    const int pool = pod_.pool_base[route.hop_base + stage - 1];
    const int slot = lone_slot(pool, snapshot_->pools[pool]);
    if (slot < 0) return false;
    Instance& instance = pod_.pools[pool]->slot(slot);
    if (!serves_inline(instance)) return false;
    instances[stage - 1] = &instance;
  }
  return true;
}

void Worker::enter_chain(int chain, int site, rte_mbuf** pkts, uint16_t n) {
  Instance* instances[kFastPathMaxHops];
  if (!chain_fast_[chain] || !fast_path_open(chain, instances)) return advance(chain, 1, site, pkts, n);
  check_fast_path_generation();  // records are used only here: a change counts from the next burst on
  for (uint16_t i = 0; i < n; ++i) fast_path_->prefetch(chain_meta(pkts[i]).flow_hash);
  // What each VNF does first in a burst, done before any ticket is checked.
  // (Its expiry sweep may so run once more per burst than hop by hop: after
  // a pause, a sweep that owes a pass catches up in fewer bursts. Either way
  // only entries idle past their timeout go.)
  const int hops = pod_.routes[chain].egress_stage - 1;
  const uint64_t now = rte_rdtsc();
  for (int h = 0; h < hops; ++h) instances[h]->vnf->upkeep(now);
  // Runs of repeated and of slow packets, in order; a run is checked only
  // after the slow run before it has changed the VNFs' state, and repeated
  // only while no slow run left packets queued at a hop (another worker
  // may fill the queue of an instance we run): they must not be overtaken.
  FastPathRecord* records[kMaxVnfBurst];
  bool open = true;
  for (uint16_t at = 0; at < n;) {
    const uint16_t repeated = open ? repeatable_prefix(chain, pkts + at, static_cast<uint16_t>(n - at), records) : 0;
    if (repeated) {
      repeat_hops(chain, site, pkts + at, records, repeated, instances);
      at = static_cast<uint16_t>(at + repeated);
      continue;
    }
    const uint16_t slow = open ? slow_prefix(chain, pkts + at, static_cast<uint16_t>(n - at)) : static_cast<uint16_t>(n - at);
    advance(chain, 1, site, pkts + at, slow);
    at = static_cast<uint16_t>(at + slow);
    open = fast_path_open(chain, instances);
  }
  recording_ = false;  // every tagged packet has left its chain or was dropped
}

// How many leading packets their records hold for.
uint16_t Worker::repeatable_prefix(int chain, rte_mbuf** pkts, uint16_t n, FastPathRecord** records) {
  uint16_t i = 0;
  for (; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    if (!(m->ol_flags & header_mark_)) break;  // headers the pod did not find plain
    FastPathRecord& r = fast_path_->record_for(chain_meta(m).flow_hash);
    if (fast_path_->check(r, FastPathKey::of(m, static_cast<uint16_t>(chain)), m) != FastPathCheck::kRepeat) break;
    records[i] = &r;
  }
  return i;
}

// How many leading packets (at least one) go hop by hop; a packet whose flow
// has no usable record is tagged to record it on the way.
uint16_t Worker::slow_prefix(int chain, rte_mbuf** pkts, uint16_t n) {
  const auto hops = static_cast<uint8_t>(pod_.routes[chain].egress_stage - 1);
  uint16_t i = 0;
  for (; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    if (!(m->ol_flags & header_mark_)) continue;
    const FastPathKey key = FastPathKey::of(m, static_cast<uint16_t>(chain));
    if (key.protocol != IPPROTO_TCP && key.protocol != IPPROTO_UDP) continue;
    ChainMeta& meta = chain_meta(m);
    FastPathRecord& r = fast_path_->record_for(meta.flow_hash);
    const FastPathCheck check = fast_path_->check(r, key, m);
    if (check == FastPathCheck::kRepeat && i > 0) break;
    if (check != FastPathCheck::kNoRecord) continue;  // the record holds, this packet needs the hops
    meta.fast_path_tag = fast_path_->start_recording(meta.flow_hash, key, hops, m);
    recording_ = true;
  }
  return i;
}

// Does to the packets what their records say the hops did, and to each hop
// what serving them would have: the VNF's state and counters, the
// instance's and the hop's counters. Then the
// packets leave the chain.
void Worker::repeat_hops(int chain, int site, rte_mbuf** pkts, FastPathRecord** records, uint16_t n,
                         Instance* const* instances) {
  const ChainRoute& route = pod_.routes[chain];
  const int hops = route.egress_stage - 1;
  const uint64_t now = rte_rdtsc();
  uint64_t bytes = 0;
  for (uint16_t i = 0; i < n; ++i) {
    ChainFastPath::rewrite(pkts[i], *records[i]);
    bytes += rte_pktmbuf_pkt_len(pkts[i]);
  }
  // The pools' memory of their flows (flow_affinity.h) needs nothing here:
  // a record is made by a packet the pool steered while it ran one instance,
  // and any change of the pool ends the record before the memory is reset.
  const FlowTicket* tickets[kMaxVnfBurst];
  for (int h = 0; h < hops; ++h) {
    for (uint16_t i = 0; i < n; ++i) tickets[i] = &records[i]->tickets[h];
    Instance& instance = *instances[h];
    instance.vnf->repeat(tickets, n, now);
    InstanceCounters& ic = instance.counters;
    ic.bursts++;
    ic.in_packets += n;
    ic.out_packets += n;
    ic.in_bytes += bytes;
    ic.out_bytes += bytes;
    const int pool = pod_.pool_base[route.hop_base + h];
    counters_.hops[pool].steered += n;
  }
  // Busy time, sampled as serve() samples it, shared by the hops.
  if (++fast_bursts_ % kBusySampleEvery == 0) {
    const uint64_t share = (rte_rdtsc() - now) * kBusySampleEvery / static_cast<uint64_t>(hops);
    for (int h = 0; h < hops; ++h) instances[h]->counters.busy_tsc += share;
  }
  counters_.chains[chain].fast_path_packets += n;
  advance(chain, route.egress_stage, site, pkts, n);
}

// process(), and for packets tagged for recording, their tickets noted.
uint16_t Worker::process_noting_tickets(int hop, Instance& instance, rte_mbuf** burst, uint16_t n, rte_mbuf** dropped,
                                        uint16_t* n_dropped) {
  bool tagged = false;
  for (uint16_t i = 0; i < n; ++i) tagged |= chain_meta(burst[i]).fast_path_tag != 0;
  if (!tagged) return instance.vnf->process(burst, n, dropped, n_dropped);
  rte_mbuf* given[kMaxVnfBurst];
  std::copy_n(burst, n, given);
  FlowTicketOut tickets[kMaxVnfBurst];
  const uint16_t kept = instance.vnf->process_with_tickets(burst, n, dropped, n_dropped, tickets);
  const int hop_index = hop_places_[hop].stage - 1;
  // process() keeps the survivors in order: pair each with its ticket.
  for (uint16_t j = 0, i = 0; j < kept; ++j, ++i) {
    while (given[i] != burst[j]) ++i;
    const uint32_t tag = chain_meta(burst[j]).fast_path_tag;
    if (tag) fast_path_->note_ticket(tag, hop_index, tickets[i]);
  }
  return kept;
}

void Worker::complete_recordings(rte_mbuf** pkts, uint16_t n) {
  for (uint16_t i = 0; i < n; ++i) {
    ChainMeta& meta = chain_meta(pkts[i]);
    if (!meta.fast_path_tag) continue;
    fast_path_->complete(meta.fast_path_tag, pkts[i]);
    meta.fast_path_tag = 0;
  }
}

}  // namespace nfv
