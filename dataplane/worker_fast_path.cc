// The chain fast path on a worker (chain_fast_path.h): which chains and
// flows may take it (the one place that decides), how a burst entering a
// chain splits, in order, into packets repeated from their flow's record
// and packets that go hop by hop, where a repeated packet goes in each
// hop's pool, what it does to that instance, its VNF and the counters, and
// how a slow packet's passage becomes a record.
#include <netinet/in.h>

#include <algorithm>

#include <rte_cycles.h>
#include <rte_ring.h>

#include "burst_paths.h"
#include "chain_meta.h"
#include "worker.h"

namespace nfv {

// --- Eligibility: the one place ---------------------------------------------
//
// A chain may take the fast path when it runs wholly at its ingress site, in
// this pod, with at most kFastPathMaxHops hops of VNFs that repeat flows,
// and when repeating saves something: two hops or more, or one with flow
// state (one stateless hop costs about what a repeat does; a lone router
// ran about 10% faster hop by hop in the bench).
bool Worker::chain_eligible(int c) const {
  const PodLayout& layout = pod_.layout;
  const ChainInfo& chain = layout.chains[c];
  if (!chain.fast_path || chain.hops.empty() || chain.hops.size() > kFastPathMaxHops || !layout.sites[chain.ingress_site].hosted ||
      chain.egress_site != chain.ingress_site || chain.egress_port == kNoIndex)
    return false;
  bool stateful = false;
  for (std::size_t h = 0; h < chain.hops.size(); ++h) {
    const HopInfo& hop = chain.hops[h];
    if (hop.sites.size() != 1 || hop.site != chain.ingress_site || !pod_.pools[pod_.index(c, static_cast<int>(h), 0)] ||
        !VnfRegistry::instance().repeats_flows(hop.vnf))
      return false;
    stateful |= VnfRegistry::instance().stateful(hop.vnf);
  }
  return chain.hops.size() >= 2 || stateful;
}

// A packet's flow may have a record when the pod found its headers plain
// IPv4 and it is TCP or UDP (the VNFs' tickets speak of 5-tuples).
bool Worker::flow_eligible(const rte_mbuf* m, const FastPathKey& key) const {
  return (m->ol_flags & header_mark_) && (key.protocol == IPPROTO_TCP || key.protocol == IPPROTO_UDP);
}

// Where a repeated packet goes at each hop, and whether the instance there
// can take it now: the one the record names (the snapshot fixes Maglev and
// reply steering; a pinned flow's pin is looked up, which refreshes it as
// steering would, and must still name that instance, at least every 1/64
// of the pool's idle timeout: a held pin moves only when it expires or its
// instance goes, which is a new snapshot), ours to run, nothing
// queued ahead of it (packets of the flow may wait there), and tokens for
// every packet the run sends it (else hop by hop queues them). Returns how
// many leading packets may be repeated: it only ever cuts the run to a
// prefix and never reorders it (repeat_hops reuses `paths` by count).
uint16_t Worker::route_repeats(int chain, FastPathRecord** records, uint16_t n, const FirstHop* first, BurstPaths& paths) {
  const int hops = pod_.routes[chain].egress_stage - 1;
  if (first) {
    // Served from the first hop's queue: the pool steered them there (and
    // the worker that steered them refreshed their pins), the instance took
    // their tokens.
    for (uint16_t i = 0; i < n; ++i)
      if (records[i]->slots[0] != first->slot) {
        ChainFastPath::end(*records[i]);
        n = i;
        break;
      }
  }
  // Records whose pins were looked up too long ago: only those look them up
  // (a pin moves only when it expires or its instance goes, and the latter
  // is a new snapshot, which ends every record).
  uint64_t stale = 0, stale_unheld = 0;
  if (chain_fast_[chain] & kChainPins)
    for (uint16_t i = 0; i < n; ++i)
      if (records[i]->pinned && now_tsc_ - records[i]->pins_seen_tsc >= pin_refresh_tsc_[chain]) stale |= 1ull << i;
  for (int h = first ? 1 : 0; h < hops && n; ++h) {
    const int pool = pod_.index(chain, h, 0);
    const PoolView& view = snapshot_->pools[pool];
    if (const int lone = lone_slot(pool, view); lone >= 0) {
      // One instance: the records of this generation name it (a snapshot
      // that changed the pool ended the others), so one check for the run.
      uint16_t same = 0;
      while (same < n && records[same]->slots[h] == lone) ++same;
      n = can_take_now(pod_.pools[pool]->slot(lone), same) ? same : 0;
      continue;
    }
    if (FlowAffinity* pins = affinity_[pool].get(); pins && stale) {
      uint32_t hashes[kMaxVnfBurst];
      uint16_t pinned[kMaxVnfBurst], slots[kMaxVnfBurst];
      uint16_t n_pinned = 0;
      for (uint64_t left = stale & (n < 64 ? (1ull << n) - 1 : ~0ull); left; left &= left - 1) {
        const int i = __builtin_ctzll(left);
        if (!(records[i]->pinned & (1u << h))) continue;
        hashes[n_pinned] = records[i]->pin_hashes[h];
        pinned[n_pinned++] = static_cast<uint16_t>(i);
      }
      uint64_t unheld = 0;
      pins->slots_for(hashes, n_pinned, view, now_tsc_, slots, &unheld);
      for (; unheld; unheld &= unheld - 1) stale_unheld |= 1ull << pinned[__builtin_ctzll(unheld)];
      for (uint16_t j = 0; j < n_pinned; ++j)
        if (slots[j] != records[pinned[j]]->slots[h]) {
          ChainFastPath::end(*records[pinned[j]]);  // the pin moved: record the flow again
          n = pinned[j];
          break;
        }
    }
    uint16_t demand[kMaxInstancesPerPool];
    uint64_t used = 0;
    auto add_demand = [&](uint8_t slot, uint16_t count) {
      if (!(used & (1ull << slot))) {
        used |= 1ull << slot;
        demand[slot] = 0;
      }
      demand[slot] = static_cast<uint16_t>(demand[slot] + count);
    };
    if (paths.of_n != n) paths.find(records, n);
    if (paths.listed)
      for (int k = 0; k < paths.count; ++k) add_demand(FastPathRecord::path_slot(paths.path[k], h), paths.records_on[k]);
    else
      for (uint16_t i = 0; i < n; ++i) add_demand(records[i]->slots[h], 1);
    for (uint64_t left = used; left; left &= left - 1) {
      const int slot = __builtin_ctzll(left);
      if (can_take_now(pod_.pools[pool]->slot(slot), demand[slot])) continue;
      for (uint16_t i = 0; i < n; ++i)
        if (records[i]->slots[h] == slot) {
          n = i;  // this instance's packets and those after them go hop by hop
          break;
        }
    }
  }
  // Stamped where every pin was looked up now and held: not when the first
  // hop's was looked up at enqueue time (perhaps a queue's wait ago), nor
  // for a flow beyond a full pin table (its instance may change with time).
  const uint64_t looked = (first ? 0 : stale & ~stale_unheld) & (n < 64 ? (1ull << n) - 1 : ~0ull);
  for (uint64_t left = looked; left; left &= left - 1) records[__builtin_ctzll(left)]->pins_seen_tsc = now_tsc_;
  return n;
}

// ---------------------------------------------------------------------------

void Worker::prepare_fast_path() {
  const PodLayout& layout = pod_.layout;
  chain_fast_.assign(layout.chains.size(), 0);
  chain_ordered_hops_.assign(layout.chains.size(), 0);
  pin_refresh_tsc_.assign(layout.chains.size(), 0);
  if (layout.fast_path_flows == 0) return;
  bool any = false;
  for (std::size_t c = 0; c < layout.chains.size(); ++c) {
    if (!chain_eligible(static_cast<int>(c))) continue;
    uint8_t flags = kChainFast;
    uint64_t refresh = UINT64_MAX;
    for (std::size_t h = 0; h < layout.chains[c].hops.size(); ++h) {
      const HopInfo& hop = layout.chains[c].hops[h];
      if (affinity_[pod_.index(static_cast<int>(c), static_cast<int>(h), 0)]) {
        flags |= kChainPins;
        // A pin forgets a flow idle for a timeout: looked up at least every
        // 1/64 of it, it lives 63/64 to 1.25 timeouts past the flow's last packet.
        refresh = std::min(refresh, pod_.clock.hz() / 1000 * hop.flow_idle_timeout_ms / 64);
      }
      if (VnfRegistry::instance().order_across_flows(hop.vnf)) chain_ordered_hops_[c] |= static_cast<uint8_t>(1u << h);
    }
    chain_fast_[c] = flags;
    pin_refresh_tsc_[c] = refresh;
    any = true;
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

void Worker::enter_chain(int chain, int site, rte_mbuf** pkts, uint16_t n) {
  if (!chain_fast_[chain]) return forward({.pkts = pkts, .n = n, .chain = chain, .stage = 1, .site = site});
  run_fast_path(chain, site, pkts, n, nullptr);
}

// Packets of `chain` at its first hop: entering it (first null) or served
// by the first hop's instance `first` from its queue (another worker, or a
// rate, put them there).
void Worker::run_fast_path(int chain, int site, rte_mbuf** pkts, uint16_t n, const FirstHop* first) {
  check_fast_path_generation();  // records are used only here: a change counts from the next burst on
  const bool pins = chain_fast_[chain] & kChainPins;
  for (uint16_t i = 0; i < n; ++i) fast_path_->prefetch(chain_meta(pkts[i]).flow_hash, pins);
  // What each VNF does first in a burst, done before any ticket is checked,
  // for every instance of ours the burst may reach. (Its expiry sweep may so
  // run more often than hop by hop: after a pause, a sweep that owes a pass
  // catches up in fewer bursts. Either way only entries idle past their
  // timeout go.)
  // The pod's VNFs run on the hardware TSC (VnfSettings' default): one
  // reading serves them all.
  const int hops = pod_.routes[chain].egress_stage - 1;
  const uint64_t now = rte_rdtsc();
  for (int h = 0; h < hops; ++h) {
    const int pool = pod_.index(chain, h, 0);
    const PoolView& view = snapshot_->pools[pool];
    for (int slot = index_; slot < view.slots_in_use; slot += pod_.worker_count)
      if (view.state[slot] != InstanceState::kFree) pod_.pools[pool]->slot(slot).vnf->upkeep(now);
  }
  // Runs of repeated and of slow packets, in order; a run is checked only
  // after the slow run before it has changed the VNFs' state (an instance
  // with packets queued takes no repeats: they would overtake them). A
  // packet whose first hop is another worker's goes there alone (hop by
  // hop, which changes nothing here); after any other failed route the
  // rest of the burst goes hop by hop.
  FastPathRecord* records[kMaxVnfBurst];
  bool open = true;
  for (uint16_t at = 0; at < n;) {
    const auto left = static_cast<uint16_t>(n - at);
    uint16_t repeated = open ? repeatable_prefix(chain, pkts + at, left, records) : 0;
    BurstPaths paths;  // of the run's records: routing finds them, ordering reuses them unless routing cut the run after
    if (repeated) {
      const uint16_t routed = route_repeats(chain, records, repeated, first, paths);
      if (routed < repeated && !first && pod_.pools[pod_.index(chain, 0, 0)]->slot(records[routed]->slots[0]).owner != index_) {
        if (routed) repeat_hops(chain, site, pkts + at, records, routed, first, paths);
        forward({.pkts = pkts + at + routed, .n = 1, .chain = chain, .stage = 1, .site = site});
        at = static_cast<uint16_t>(at + routed + 1);
        continue;
      }
      open = routed == repeated;
      repeated = routed;
    }
    if (repeated) {
      repeat_hops(chain, site, pkts + at, records, repeated, first, paths);
      at = static_cast<uint16_t>(at + repeated);
      continue;
    }
    const uint16_t slow = slow_prefix(chain, pkts + at, left, open);
    if (first) {
      note_first_slot(*first, pkts + at, slow);
      forward(from_queue(first->pool, first->slot, pkts + at, slow));
    } else {
      forward({.pkts = pkts + at, .n = slow, .chain = chain, .stage = 1, .site = site});
    }
    at = static_cast<uint16_t>(at + slow);
  }
  recording_ = false;  // every tagged packet has left its chain, was dropped or waits in a queue
}

// How many leading packets their records hold for.
uint16_t Worker::repeatable_prefix(int chain, rte_mbuf** pkts, uint16_t n, FastPathRecord** records) {
  uint16_t i = 0;
  for (; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    const FastPathKey key = FastPathKey::of(m, static_cast<uint16_t>(chain));
    if (!flow_eligible(m, key)) break;
    FastPathRecord& r = fast_path_->record_for(chain_meta(m).flow_hash);
    if (fast_path_->check(r, key, m) != FastPathCheck::kRepeat) break;
    records[i] = &r;
  }
  return i;
}

// How many leading packets (at least one) go hop by hop: up to the next
// that may be repeated (`stop_at_repeat`) or all; a packet whose flow has
// no usable record is tagged to record it on the way.
uint16_t Worker::slow_prefix(int chain, rte_mbuf** pkts, uint16_t n, bool stop_at_repeat) {
  const auto hops = static_cast<uint8_t>(pod_.routes[chain].egress_stage - 1);
  uint16_t i = 0;
  for (; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    const FastPathKey key = FastPathKey::of(m, static_cast<uint16_t>(chain));
    if (!flow_eligible(m, key)) continue;
    ChainMeta& meta = chain_meta(m);
    FastPathRecord& r = fast_path_->record_for(meta.flow_hash);
    const FastPathCheck check = fast_path_->check(r, key, m);
    if (check == FastPathCheck::kRepeat && i > 0 && stop_at_repeat) break;
    if (check != FastPathCheck::kNoRecord) continue;  // the record holds, this packet needs the hops
    meta.fast_path_tag = fast_path_->start_recording(meta.flow_hash, key, hops, m);
    recording_ = true;
  }
  return i;
}

// Does to the packets what their records say the hops did, and to each hop
// what serving them would have: the VNF's state and counters (a meter may
// drop some), the instance's token bucket and counters, the pool's. Hop by
// hop a pool splits a burst by instance and each part crosses the rest of
// the chain before the next: the packets are put in that order first (a
// stable sort by their instances, hop by hop), so the frames leave and
// every instance sees its packets as hop by hop. Then they leave the chain.
void Worker::repeat_hops(int chain, int site, rte_mbuf** pkts, FastPathRecord** records, uint16_t n, const FirstHop* first,
                         BurstPaths& distinct) {
  const ChainRoute& route = pod_.routes[chain];
  const int hops = route.egress_stage - 1;
  uint64_t paths[kMaxVnfBurst];
  uint8_t arrival[kMaxVnfBurst];
  order_as_hop_by_hop(pkts, records, n, paths, arrival, distinct);
  for (uint16_t i = 0; i < n; ++i) ChainFastPath::rewrite(pkts[i], *records[i]);
  // Runs of packets that take one path (ending at run_end[r]), found once:
  // at each hop, a part is the path runs that agree up to it.
  uint16_t run_end[kMaxVnfBurst];
  uint32_t run_bytes[kMaxVnfBurst];
  int runs = 0;
  auto find_runs = [&] {
    runs = 0;
    for (uint16_t i = 0; i < n; ++i) {
      if (i == 0 || paths[i] != paths[i - 1]) run_bytes[runs++] = 0;
      run_end[runs - 1] = static_cast<uint16_t>(i + 1);
      run_bytes[runs - 1] += rte_pktmbuf_pkt_len(pkts[i]);
    }
  };
  find_runs();
  counters_.chains[chain].fast_path_packets += n;
  const bool sample = ++fast_bursts_ % kBusySampleEvery == 0;
  // The VNFs' clock (the hardware TSC), read once for every instance the
  // packets cross: after any slow packets before them, which their
  // instances timed by their own readings (a VNF's time never goes back).
  const uint64_t now = rte_rdtsc();
  const FlowTicket* tickets[kMaxVnfBurst];
  for (int h = 0; h < hops && n; ++h) {
    const int pool = pod_.index(chain, h, 0);
    // A lone instance's flows are remembered every burst, as steer() does
    // (route_repeats checks the pins of a pool that picks per flow).
    if (FlowAffinity* pins = affinity_[pool].get(); pins && !(first && h == 0)) {
      const PoolView& view = snapshot_->pools[pool];
      if (lone_slot(pool, view) >= 0) {
        uint32_t hashes[kMaxVnfBurst];
        for (uint16_t i = 0; i < n; ++i) hashes[i] = chain_meta(pkts[i]).flow_hash;
        pins->note_single(hashes, n, view);
      }
    }
    // The instances' parts: each a run of packets whose paths agree up to
    // this hop. An instance whose flows came by different instances before
    // (a pool that steers by another hash, as lb's connections do) has
    // several parts; it serves them all in one call, in their order (hop by
    // hop's), so a hop makes at most one call per instance however the
    // paths split. Within a part the burst's order is by the later hops'
    // instances; hop by hop hands the part over in arrival order, which a
    // VNF whose repeats depend on other flows' packets gets.
    const bool in_arrival_order = chain_ordered_hops_[chain] & (1u << h);
    uint8_t part_slot[kMaxVnfBurst];
    uint16_t part_end[kMaxVnfBurst];
    uint64_t part_bytes[kMaxVnfBurst];
    uint64_t reordered = 0;  // by part: to be handed over in arrival order
    int parts = 0;
    uint64_t seen = 0, gather = 0;  // by slot
    for (int r = 0; r < runs; ++parts) {
      const uint64_t prefix = FastPathRecord::path_prefix(paths[r ? run_end[r - 1] : 0], h);
      const auto slot = static_cast<uint8_t>(prefix);
      const int first_run = r;
      part_bytes[parts] = 0;
      for (; r < runs && FastPathRecord::path_prefix(paths[run_end[r] - 1], h) == prefix; ++r) part_bytes[parts] += run_bytes[r];
      part_end[parts] = run_end[r - 1];
      part_slot[parts] = slot;
      if (in_arrival_order && r - first_run > 1) {
        reordered |= 1ull << parts;
        gather |= 1ull << slot;
      }
      gather |= seen & (1ull << slot);
      seen |= 1ull << slot;
    }
    uint64_t dropped = 0;  // by place in the burst
    for (int p = 0; p < parts; ++p) {
      const uint8_t slot = part_slot[p];
      const uint16_t at = p ? part_end[p - 1] : 0;
      if (!(gather & (1ull << slot))) {
        for (uint16_t i = at; i < part_end[p]; ++i) tickets[i - at] = &records[i]->tickets[h];
        dropped |= serve_repeats(pool, slot, tickets, pkts + at, static_cast<uint16_t>(part_end[p] - at), part_bytes[p], first && h == 0,
                                 now, sample)
                   << at;
        continue;
      }
      if (!(seen & (1ull << slot))) continue;  // served with its first part
      seen &= ~(1ull << slot);
      rte_mbuf* gathered[kMaxVnfBurst];
      uint8_t place[kMaxVnfBurst];
      uint16_t count = 0;
      uint64_t bytes_in = 0;
      const auto take = [&](uint16_t i) {
        tickets[count] = &records[i]->tickets[h];
        gathered[count] = pkts[i];
        place[count++] = static_cast<uint8_t>(i);
      };
      for (int q = p; q < parts; ++q) {
        if (part_slot[q] != slot) continue;
        bytes_in += part_bytes[q];
        const uint16_t from = q ? part_end[q - 1] : 0;
        if (!(reordered & (1ull << q))) {
          for (uint16_t i = from; i < part_end[q]; ++i) take(i);
          continue;
        }
        uint8_t at_arrival[kMaxVnfBurst];  // arrivals are distinct and below 64: a set of them lists them in order
        uint64_t arrivals = 0;
        for (uint16_t i = from; i < part_end[q]; ++i) {
          at_arrival[arrival[i]] = static_cast<uint8_t>(i);
          arrivals |= 1ull << arrival[i];
        }
        for (; arrivals; arrivals &= arrivals - 1) take(at_arrival[__builtin_ctzll(arrivals)]);
      }
      for (uint64_t drops = serve_repeats(pool, slot, tickets, gathered, count, bytes_in, first && h == 0, now, sample); drops;
           drops &= drops - 1)
        dropped |= 1ull << place[__builtin_ctzll(drops)];
    }
    if (dropped) {  // the runs of those left
      uint16_t kept = 0;
      for (uint16_t i = 0; i < n; ++i) {
        if (dropped & (1ull << i)) {
          drop_in_chain(pkts[i], DropReason::vnf);
          continue;
        }
        pkts[kept] = pkts[i];
        paths[kept] = paths[i];
        arrival[kept] = arrival[i];
        records[kept++] = records[i];
      }
      n = kept;
      find_runs();
    }
  }
  forward({.pkts = pkts, .n = n, .chain = chain, .stage = route.egress_stage, .site = site});
}

// One instance's repeated packets at a hop: what serving them would have
// done to its token bucket, its VNF and the counters. `queued`: served from
// the instance's queue, steered and charged when they were queued. Returns
// the packets the VNF drops (bit i: pkts[i]).
uint64_t Worker::serve_repeats(int pool, uint8_t slot, const FlowTicket* const* tickets, rte_mbuf* const* pkts, uint16_t n,
                               uint64_t bytes_in, bool queued, uint64_t now, bool sample) {
  Instance& instance = pod_.pools[pool]->slot(slot);
  if (!queued) {
    instance.bucket.consume(n, false);
    counters_.pools[pool].steered += n;
  }
  const uint64_t start = sample ? rte_rdtsc() : 0;
  const uint64_t drops = instance.vnf->repeat(tickets, pkts, n, now);
  if (sample) instance.counters.busy_tsc += (rte_rdtsc() - start) * kBusySampleEvery;
  uint64_t bytes_dropped = 0;
  for (uint64_t left = drops; left; left &= left - 1) bytes_dropped += rte_pktmbuf_pkt_len(pkts[__builtin_ctzll(left)]);
  const auto n_dropped = static_cast<uint16_t>(__builtin_popcountll(drops));
  instance.counters.bursts++;
  count_served(instance.counters, n, static_cast<uint16_t>(n - n_dropped), n_dropped, bytes_in, bytes_in - bytes_dropped);
  return drops;
}

// process(), and for packets tagged for recording, their tickets noted.
uint16_t Worker::process_noting_tickets(int pool, Instance& instance, rte_mbuf** burst, uint16_t n, rte_mbuf** dropped,
                                        uint16_t* n_dropped) {
  bool tagged = false;
  for (uint16_t i = 0; i < n; ++i) tagged |= chain_meta(burst[i]).fast_path_tag != 0;
  if (!tagged) return instance.vnf->process(burst, n, dropped, n_dropped);
  rte_mbuf* given[kMaxVnfBurst];
  std::copy_n(burst, n, given);
  FlowTicketOut tickets[kMaxVnfBurst];
  const uint16_t kept = instance.vnf->process_with_tickets(burst, n, dropped, n_dropped, tickets);
  const int hop_index = hop_places_[pool].stage - 1;
  // process() keeps the survivors in order: pair each with its ticket.
  for (uint16_t j = 0, i = 0; j < kept; ++j, ++i) {
    while (given[i] != burst[j]) ++i;
    const uint32_t tag = chain_meta(burst[j]).fast_path_tag;
    if (tag) fast_path_->note_ticket(tag, hop_index, tickets[i]);
  }
  return kept;
}

// Where a pool steered packets tagged for recording (slots[i]; pins:
// bit i set where a pin chose, by pin_hashes[i]).
void Worker::note_slots(int pool, rte_mbuf** pkts, uint16_t n, const uint16_t* slots, uint64_t pins, const uint32_t* pin_hashes) {
  const int hop_index = hop_places_[pool].stage - 1;
  for (uint16_t i = 0; i < n; ++i) {
    const uint32_t tag = chain_meta(pkts[i]).fast_path_tag;
    if (!tag || slots[i] == kNoSlot) continue;
    const bool pinned = (pins >> i) & 1;
    fast_path_->note_slot(tag, hop_index, slots[i], pinned, pinned ? pin_hashes[i] : 0);
  }
}

// Packets tagged for recording, served from the first hop's queue: the
// worker that queued them steered them, and their tags were its own. A flow
// that steer() chose by pin (pick_slots: pins kept apart, not the owner's)
// keeps that pin in its record, so that its repeats from rx refresh it.
void Worker::note_first_slot(const FirstHop& first, rte_mbuf** pkts, uint16_t n) {
  if (!recording_) return;
  const PoolView& view = snapshot_->pools[first.pool];
  uint16_t slots[kMaxVnfBurst];
  uint32_t pin_hashes[kMaxVnfBurst];
  uint64_t pinned = 0;
  std::fill_n(slots, n, static_cast<uint16_t>(first.slot));
  if (affinity_[first.pool] && lone_slot(first.pool, view) < 0)
    for (uint16_t i = 0; i < n; ++i) {
      if (!chain_meta(pkts[i]).fast_path_tag) continue;
      uint32_t hash = chain_meta(pkts[i]).flow_hash;
      if (view.owner && view.owner->slot_of(pkts[i], hash) >= 0) continue;
      pin_hashes[i] = hash;
      pinned |= 1ull << i;
    }
  note_slots(first.pool, pkts, n, slots, pinned, pin_hashes);
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
