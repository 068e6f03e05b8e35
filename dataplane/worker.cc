#include "worker.h"

#include <time.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <rte_ethdev.h>
#include <rte_pause.h>
#include <rte_pcapng.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "chain_meta.h"
#include "header_mark.h"
#include "memif_unmap_guard.h"
#include "nsh.h"
#include "packet_parser.h"

namespace nfv {
namespace {

constexpr uint32_t kSpinLoopsBeforeSleep = 256;
constexpr uint64_t kMinSleepNs = 20'000;
constexpr uint64_t kMaxSleepNs = 200'000;
constexpr uint64_t kDrainTimeoutNs = 5'000'000'000ull;
constexpr int kReleaseBurstsPerLoop = 4;  // 256 packets per link per loop (bursts of 64)

DropReason drop_reason_of(ParseStatus status) {
  switch (status) {
    case ParseStatus::kTruncatedL2: return DropReason::truncated_l2;
    case ParseStatus::kBadIpv4Header: return DropReason::bad_ipv4_header;
    case ParseStatus::kBadIpv4Length: return DropReason::bad_ipv4_length;
    case ParseStatus::kBadIpv6Header: return DropReason::bad_ipv6_header;
    case ParseStatus::kBadIpv6Length: return DropReason::bad_ipv6_length;
    default: return DropReason::truncated_l4;
  }
}

}  // namespace

Worker::Worker(int index, PodRuntime& pod, std::vector<int> rx_ports)
    : index_(index), pod_(pod), rx_ports_(std::move(rx_ports)) {}

void Worker::prepare() {
  const PodLayout& layout = pod_.layout;
  header_mark_ = g_header_mark;
  for (std::size_t c = 0; c < layout.chains.size(); ++c)
    for (std::size_t h = 0; h < layout.chains[c].hops.size(); ++h) {
      const HopInfo& hop = layout.chains[c].hops[h];
      for (int site : hop.sites) {
        hop_places_.push_back(HopPlace{static_cast<int>(c), static_cast<int>(h + 1), site});
        const InstancePool* pool = pod_.pools[hop_places_.size() - 1].get();
        std::unique_ptr<FlowAffinity> pins;
        // A pool that can never hold a second instance has no flows to keep apart.
        if (pool && pool->view().stateful && hop.max_instances > 1) {
          const uint64_t idle_tsc = pod_.clock.hz() / 1000 * hop.flow_idle_timeout_ms;
          pins = std::make_unique<FlowAffinity>(pool->name(), 1u << 18, idle_tsc, static_cast<int>(rte_socket_id()));
        }
        affinity_.push_back(std::move(pins));
      }
    }
  // Site pins for stateful hops placed at several sites.
  for (const auto& chain : layout.chains)
    for (const auto& hop : chain.hops) {
      std::unique_ptr<FlowAffinity> pins;
      if (hop.sites.size() > 1 && VnfRegistry::instance().stateful(hop.vnf))
        pins = std::make_unique<FlowAffinity>(chain.name + " site choice", 1u << 18,
                                              pod_.clock.hz() / 1000 * hop.flow_idle_timeout_ms, static_cast<int>(rte_socket_id()));
      site_pins_.push_back(std::move(pins));
    }
  tx_.resize(layout.ports.size());
  const std::size_t sites = layout.sites.size();
  link_matrix_.assign(sites * sites, nullptr);
  link_port_matrix_.assign(sites * sites, kNoIndex);
  for (const auto& link : layout.links) {
    links_.push_back(std::make_unique<WanLink>(link.params.queue_packets, pod_.start_tsc));
    link_matrix_[link.from * sites + link.to] = links_.back().get();
    link_port_matrix_[link.from * sites + link.to] = link.port;
  }
  prepare_fast_path();
  counters_.ports.resize(layout.ports.size());
  counters_.chains.resize(layout.chains.size());
  counters_.pools.resize(hop_places_.size());
  counters_.instance_queue_full.resize(hop_places_.size());
}

// A drop of a packet that is on its chain: counted for the chain too.
void Worker::drop_in_chain(rte_mbuf* m, DropReason reason) {
  counters_.chains[chain_meta(m).chain].drops[static_cast<int>(reason)]++;
  drop(m, reason);
}

void Worker::drop(rte_mbuf* m, DropReason reason) {
  counters_.drops[static_cast<int>(reason)]++;
  rte_pktmbuf_free(m);
}

// Copies for the pcapng writer (the originals go on; copies are cheap next
// to the file I/O the control thread does with them).
uint16_t Worker::copy_for_capture(int port, rte_mbuf** pkts, uint16_t n, bool tx, rte_mbuf** copies) {
  const PortRuntime& rt = pod_.ports[port];
  uint16_t made = 0;
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* copy = rte_pcapng_copy(rt.port_id, tx ? index_ : 0, pkts[i], rt.capture_pool, UINT32_MAX, now_tsc_,
                                     tx ? RTE_PCAPNG_DIRECTION_OUT : RTE_PCAPNG_DIRECTION_IN);
    if (!copy) {
      counters_.ports[port].capture_dropped++;
      continue;
    }
    copies[made++] = copy;
  }
  return made;
}

void Worker::hand_to_capture(int port, rte_mbuf** copies, uint16_t n) {
  const unsigned queued = rte_ring_enqueue_burst(pod_.ports[port].capture_ring, reinterpret_cast<void**>(copies), n, nullptr);
  if (queued < n) {
    counters_.ports[port].capture_dropped += n - queued;
    rte_pktmbuf_free_bulk(copies + queued, n - queued);
  }
}

inline void Worker::send_to_port(int port, rte_mbuf* m, bool in_chain) {
  TxBuffer& buffer = tx_[port];
  if (buffer.count == TxBuffer::kSize) {
    flush_port(port);
    if (buffer.count == TxBuffer::kSize) return in_chain ? drop_in_chain(m, DropReason::tx_full) : drop(m, DropReason::tx_full);
  }
  buffer.in_chain[buffer.count] = in_chain;
  buffer.pkts[buffer.count++] = m;
  buffer.bytes += rte_pktmbuf_pkt_len(m);
}

void Worker::send_burst_to_port(int port, rte_mbuf** pkts, uint16_t n, uint64_t bytes) {
  TxBuffer& buffer = tx_[port];
  if (buffer.count + n > TxBuffer::kSize) flush_port(port);
  const uint16_t room = static_cast<uint16_t>(TxBuffer::kSize - buffer.count);
  const uint16_t take = std::min(room, n);
  std::copy_n(pkts, take, buffer.pkts + buffer.count);
  if (take != 0) buffer.in_chain |= (std::bitset<TxBuffer::kSize>{}.set() >> (TxBuffer::kSize - take)) << buffer.count;
  buffer.count = static_cast<uint16_t>(buffer.count + take);
  for (uint16_t i = take; i < n; ++i) {
    bytes -= rte_pktmbuf_pkt_len(pkts[i]);
    drop_in_chain(pkts[i], DropReason::tx_full);
  }
  buffer.bytes += bytes;
}

// Transmits what the buffer holds. What the driver does not take stays for
// the next try (a memif ring drains as soon as the peer polls), so a short
// stall costs latency, not packets; only a full buffer drops (send_to_port).
void Worker::flush_port(int port) {
  TxBuffer& buffer = tx_[port];
  if (buffer.count == 0) return;
  if (!pod_.port_usable(port)) {
    // The peer is gone: what waits for it would never leave.
    for (uint16_t i = 0; i < buffer.count; ++i) {
      if (buffer.in_chain.test(i))
        drop_in_chain(buffer.pkts[i], DropReason::link_down);
      else
        drop(buffer.pkts[i], DropReason::link_down);
    }
    buffer.count = 0;
    buffer.bytes = 0;
    buffer.in_chain.reset();
    return;
  }
  const PortRuntime& rt = pod_.ports[port];
  // Copies are taken before transmit (the driver may free what it sends);
  // only the copies of what was sent reach the capture.
  rte_mbuf* copies[TxBuffer::kSize];
  uint16_t n_copies = 0;
  if (rt.capture_ring) n_copies = copy_for_capture(port, buffer.pkts, buffer.count, true, copies);
  const uint16_t sent = rte_eth_tx_burst(rt.port_id, static_cast<uint16_t>(index_), buffer.pkts, buffer.count);
  if (rt.capture_ring) {
    const uint16_t keep = std::min(sent, n_copies);
    hand_to_capture(port, copies, keep);
    if (n_copies > keep) rte_pktmbuf_free_bulk(copies + keep, n_copies - keep);
  }
  if (sent == 0) return;
  // Sent mbufs may already be freed: count bytes from what is still ours.
  uint64_t unsent_bytes = 0;
  for (uint16_t i = sent; i < buffer.count; ++i) unsent_bytes += rte_pktmbuf_pkt_len(buffer.pkts[i]);
  counters_.ports[port].tx_packets += sent;
  counters_.ports[port].tx_bytes += buffer.bytes - unsent_bytes;
  buffer.bytes = unsent_bytes;
  buffer.in_chain >>= sent;
  std::copy(buffer.pkts + sent, buffer.pkts + buffer.count, buffer.pkts);
  buffer.count = static_cast<uint16_t>(buffer.count - sent);
}

void Worker::flush_all() {
  for (std::size_t p = 0; p < tx_.size(); ++p) flush_port(static_cast<int>(p));
}

void Worker::take_default(int port, rte_mbuf* m, DropReason reason) {
  const PortInfo& info = pod_.layout.ports[port];
  if (!info.default_pass) return drop(m, reason);
  counters_.ports[port].default_passed++;
  send_to_port(info.default_port, m, /*in_chain=*/false);
}

// Decides the chain of one received packet. Returns the chain index for a
// packet that enters a chain here; handles (sends on, drops) every other.
// The caller counts the packet (per burst: counters kept in memory are
// read-modify-written per packet otherwise).
int Worker::classify_rx(int port, int site, rte_mbuf* m) {
  HeaderLayout plain;
  if (check_and_mark(m, header_mark_, plain)) {
    // The common case, from the headers: no flow key to build.
    const Ipv4Tuple tuple = Ipv4Tuple::read(m, plain);
    const int chain = pod_.classifier.classify_ipv4(port, tuple);
    if (chain == kNoIndex) {
      take_default(port, m, DropReason::unmatched_default);
      return kNoIndex;
    }
    enter(m, chain, tuple.flow_hash(), site);
    return chain;
  }
  ParsedPacket parsed;
  const ParseStatus status = parse_packet(m, parsed);
  if (status == ParseStatus::kNonIp) {
    if (parsed.ether_type == kEtherTypeNsh && parsed.vlan_tags == 0) {
      ingest_nsh(m);
      return kNoIndex;
    }
    take_default(port, m, DropReason::non_ip_default);
    return kNoIndex;
  }
  if (status != ParseStatus::kOk) {
    drop(m, drop_reason_of(status));
    return kNoIndex;
  }
  const int chain = pod_.classifier.classify(port, parsed);
  if (chain == kNoIndex) {
    take_default(port, m, DropReason::unmatched_default);
    return kNoIndex;
  }
  enter(m, chain, flow_hash(parsed.key), site);
  return chain;
}

// The chain state of a packet entering `chain` here.
void Worker::enter(rte_mbuf* m, int chain, uint32_t flow_hash, int site) {
  chain_meta(m) = ChainMeta{now_ns_, flow_hash, static_cast<uint16_t>(chain), static_cast<uint8_t>(site), 1};
}

// A packet from another pod: NSH says which chain, which stage and which of
// our sites it is for.
void Worker::ingest_nsh(rte_mbuf* m) {
  const PodLayout& layout = pod_.layout;
  NshFields nsh;
  const NshStatus status = nsh_decap(m, nsh);
  if (status == NshStatus::kTtlExpired) return drop(m, DropReason::nsh_ttl_expired);
  if (status != NshStatus::kOk) return drop(m, DropReason::nsh_malformed);
  HeaderLayout inner;
  check_and_mark(m, header_mark_, inner);  // the VNFs ahead may trust the inner headers
  const auto it = pod_.chain_of_spi.find(nsh.spi);
  if (it == pod_.chain_of_spi.end()) return drop(m, DropReason::nsh_unknown_chain);
  const ChainRoute& route = pod_.routes[it->second];
  const int stage = route.stage_count - nsh.si;
  if (nsh.si == 0 || stage < 1 || stage > route.egress_stage) return drop(m, DropReason::nsh_bad_index);
  if (nsh.dst_site >= layout.sites.size() || !layout.sites[nsh.dst_site].hosted) return drop(m, DropReason::nsh_wrong_site);
  const auto candidates = layout.chains[it->second].stage_sites(stage);
  if (std::find(candidates.begin(), candidates.end(), nsh.dst_site) == candidates.end())
    return drop(m, DropReason::nsh_wrong_site);
  chain_meta(m) = ChainMeta{nsh.ingress_ns, nsh.flow_hash, static_cast<uint16_t>(it->second), nsh.dst_site,
                            static_cast<uint8_t>(stage)};
  forward({.pkts = &m, .n = 1, .chain = it->second, .stage = stage, .site = nsh.dst_site, .site_chosen = true});
}

// The packet path of a group of one chain's packets, from its stage on,
// step by step until every packet has left the chain, waits (an instance
// queue, a WAN link) or was dropped. A group goes on hop after hop while it
// stays whole; a step that fans it out (the hop's placements, its
// instances) pushes the parts, last first, so each part crosses the rest of
// the chain before the next one starts: frames leave, and instances and
// links see their packets, in the order of a packet crossing hop after hop.
void Worker::forward(PathGroup g) {
  do {
    while (g.n != 0) {
      // 1. Past the last hop: out of the egress port, or over the WAN to the
      //    egress site.
      if (g.stage >= pod_.routes[g.chain].egress_stage) {
        leave_chain(g);
        break;
      }
      // 2. The hop's pool at this site; the packets for other sites go over
      //    the WAN (a hop placed at several sites splits by flow).
      if (g.pool == kNoIndex && !place(g)) break;
      // 3. The instance: a flow's pin, the reply's owner or the Maglev table.
      if (g.slot == kNoSlot && !steer(g)) break;
      // 4. Served now if the instance can take the whole group, else queued
      //    for run_instances (a group from the queue paid when dequeued).
      Instance& instance = pod_.pools[g.pool]->slot(g.slot);
      if (!g.dequeued) {
        if (!can_take_now(instance, g.n)) {
          enqueue_instance(g.pool, g.slot, instance, g.pkts, g.n);
          break;
        }
        instance.bucket.consume(g.n, false);
        counters_.pools[g.pool].steered += g.n;
      }
      // 5. The VNF runs; what it keeps is due for the next stage, here.
      const uint16_t kept = serve(g.pool, instance, g.pkts, g.n);
      g = PathGroup{.pkts = g.pkts, .n = kept, .chain = g.chain, .stage = g.stage + 1, .site = g.site};
    }
  } while (pop(g));
}

bool Worker::pop(PathGroup& g) {
  if (path_depth_ == 0) return false;
  g = path_[--path_depth_];
  return true;
}

void Worker::push(const PathGroup& group) {
  if (group.n == 0) return;
  if (path_depth_ == kPathDepth) [[unlikely]] {
    for (uint16_t i = 0; i < group.n; ++i) drop_in_chain(group.pkts[i], DropReason::path_overflow);
    return;
  }
  path_[path_depth_++] = group;
}

void Worker::push_parts(const PathGroup& group, const uint16_t* part, int PathGroup::*field, int base) {
  static_assert(kMaxInstancesPerPool <= 64 && kMaxPlacements <= 64, "a part is a bit of a uint64_t");
  uint16_t count[64];
  uint64_t used = 0;  // bit per part with packets
  for (uint16_t i = 0; i < group.n; ++i) {
    if (part[i] == kNoSlot) continue;
    if (!(used & (1ull << part[i]))) {
      used |= 1ull << part[i];
      count[part[i]] = 0;
    }
    count[part[i]]++;
  }
  if ((used & (used - 1)) == 0 && used != 0) {
    // All in one part (a lone placement or instance took the burst): it
    // stays as it is, with no reordering.
    const int p = __builtin_ctzll(used);
    if (count[p] == group.n) {
      PathGroup whole = group;
      whole.*field = base + p;
      return push(whole);
    }
  }
  uint16_t start[64], fill[64];
  uint16_t at = 0;
  for (uint64_t left = used; left; left &= left - 1) {
    const int p = __builtin_ctzll(left);
    start[p] = fill[p] = at;
    at = static_cast<uint16_t>(at + count[p]);
  }
  rte_mbuf* given[kMaxVnfBurst];
  std::copy_n(group.pkts, group.n, given);
  for (uint16_t i = 0; i < group.n; ++i)
    if (part[i] != kNoSlot) group.pkts[fill[part[i]]++] = given[i];
  while (used) {
    const int p = 63 - __builtin_clzll(used);
    used &= ~(1ull << p);
    PathGroup part_group = group;
    part_group.pkts = group.pkts + start[p];
    part_group.n = count[p];
    part_group.*field = base + p;
    push(part_group);
  }
}

// Step 2 of forward(): the hop's pool at this site. False where the group
// is done with here: sent over the WAN, dropped, or split across the hop's
// placements by flow (the parts here pushed, each with its pool). A packet
// that has just arrived at the site chosen for it (`site_chosen`) is not
// split again.
bool Worker::place(PathGroup& g) {
  const int hop_number = static_cast<int>(pod_.routes[g.chain].first_hop) + g.stage - 1;
  const int first_pool = pod_.index.first_pool(hop_number);
  const std::vector<int>& sites = pod_.layout.chains[g.chain].hops[g.stage - 1].sites;
  if (g.site_chosen) {
    const auto at = std::find(sites.begin(), sites.end(), g.site);
    if (at == sites.end()) {
      for (uint16_t i = 0; i < g.n; ++i) drop_in_chain(g.pkts[i], DropReason::no_route);
      return false;
    }
    g.pool = first_pool + static_cast<int>(at - sites.begin());
    return true;
  }
  if (sites.size() == 1) {
    if (sites[0] != g.site) {
      send_over_wan(g.site, sites[0], g.stage, g.pkts, g.n);
      return false;
    }
    g.pool = first_pool;
    return true;
  }
  // Several placements: each flow goes to the one the snapshot's split
  // picks; a stateful hop's flows stay at the site they started at.
  const PoolView& split = snapshot_->splits[hop_number];
  uint32_t hashes[kMaxVnfBurst];
  uint16_t placement[kMaxVnfBurst];
  for (uint16_t i = 0; i < g.n; ++i) hashes[i] = site_choice_hash(chain_meta(g.pkts[i]).flow_hash);
  if (FlowAffinity* pins = site_pins_[hop_number].get()) pins->slots_for(hashes, g.n, split, now_tsc_, placement);
  else for (uint16_t i = 0; i < g.n; ++i) placement[i] = split.slot_for(hashes[i]);
  for (uint16_t i = 0; i < g.n; ++i)
    if (sites[placement[i]] != g.site) {
      send_over_wan(g.site, sites[placement[i]], g.stage, &g.pkts[i], 1);
      placement[i] = kNoSlot;
    }
  push_parts(g, placement, &PathGroup::pool, first_pool);
  return false;
}

// Step 1 of forward(): past the last hop. Away from the egress site the
// packets go over the WAN towards it; there they leave the chain, counted
// (packets, bytes, latency), out of its egress port.
void Worker::leave_chain(const PathGroup& g) {
  const ChainRoute& route = pod_.routes[g.chain];
  const int target = route.stage_site[g.stage];
  if (target != g.site) return send_over_wan(g.site, target, g.stage, g.pkts, g.n);
  rte_mbuf** pkts = g.pkts;
  const uint16_t n = g.n;
  ChainCounters& cc = counters_.chains[g.chain];
  cc.out_packets += n;
  uint64_t bytes = 0;
  // Packets received in one poll share their ingress time, so they come in
  // runs of one latency: the histogram is updated once per run.
  uint64_t run_ingress_ns = chain_meta(pkts[0]).ingress_ns;
  uint32_t run = 0;
  const uint64_t sla_ns = pod_.layout.chains[g.chain].sla_ns;
  const auto record_run = [&] {
    if (now_ns_ < run_ingress_ns) return;  // from a pod whose clock runs ahead
    const uint64_t latency = now_ns_ - run_ingress_ns;
    cc.latency.record_n(latency, run);
    if (sla_ns != 0 && latency > sla_ns) cc.late_packets += run;
  };
  for (uint16_t i = 0; i < n; ++i) {
    bytes += rte_pktmbuf_pkt_len(pkts[i]);
    const uint64_t ingress_ns = chain_meta(pkts[i]).ingress_ns;
    if (ingress_ns != run_ingress_ns) {
      record_run();
      run_ingress_ns = ingress_ns;
      run = 0;
    }
    ++run;
  }
  record_run();
  cc.out_bytes += bytes;
  if (recording_) complete_recordings(pkts, n);
  send_burst_to_port(route.egress_port, pkts, n, bytes);
}

void Worker::send_over_wan(int site, int target, int stage, rte_mbuf** pkts, uint16_t n) {
  const std::size_t at = site * pod_.layout.sites.size() + target;
  WanLink* link = link_matrix_[at];
  const bool peer_gone = link_port_matrix_[at] != kNoIndex && !pod_.port_usable(link_port_matrix_[at]);
  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    if (!link || peer_gone) {
      drop_in_chain(m, link ? DropReason::link_down : DropReason::no_route);
      continue;
    }
    ChainMeta& meta = chain_meta(m);
    meta.site = static_cast<uint8_t>(site);
    meta.next_stage = static_cast<uint8_t>(stage);
    switch (link->offer(m, now_tsc_)) {
      case WanVerdict::kQueued: break;
      case WanVerdict::kLost: drop_in_chain(m, DropReason::wan_loss); break;
      case WanVerdict::kQueueFull: drop_in_chain(m, DropReason::wan_queue_full); break;
      case WanVerdict::kBandwidthExceeded: drop_in_chain(m, DropReason::wan_bandwidth); break;
    }
  }
}

int Worker::lone_slot(int pool, const PoolView& view) const {
  if (view.active != 1) return -1;
  // No flow pins to keep (stateless, or a pool of at most one instance): the active one.
  if (!affinity_[pool]) return view.maglev.empty() ? -1 : view.maglev[0];
  // Pins to keep: only while no other instance is left draining, in slot 0.
  return view.slots_in_use == 1 ? 0 : -1;
}

// Our own instance, nothing queued ahead and tokens for the whole burst: it
// is served now rather than through the queue (same order, the same tokens,
// fewer cycles). The token bucket's state changes only as run_instance()
// would change it at this instant.
bool Worker::can_take_now(Instance& instance, uint16_t n) {
  return instance.owner == index_ && rte_ring_count(instance.queue) == 0 && instance.bucket.available(now_tsc_, n) == n;
}

// Step 4 of forward(), when the instance cannot take the group now: into
// its queue, which run_instances serves (its owner, at its rate).
void Worker::enqueue_instance(int pool, int slot, Instance& instance, rte_mbuf** pkts, uint16_t n) {
  // Tags name records of this worker's: another worker's recording never completes.
  if (recording_ && instance.owner != index_)
    for (uint16_t i = 0; i < n; ++i) chain_meta(pkts[i]).fast_path_tag = 0;
  const unsigned queued = rte_ring_enqueue_burst(instance.queue, reinterpret_cast<void**>(pkts), n, nullptr);
  queues_used_ = true;
  counters_.pools[pool].steered += queued;
  if (queued == n) return;
  counters_.pools[pool].queue_full += n - queued;
  counters_.instance_queue_full[pool][slot] += n - queued;
  for (uint16_t i = static_cast<uint16_t>(queued); i < n; ++i) drop_in_chain(pkts[i], DropReason::instance_queue_full);
}

// Step 3 of forward(): the hop's instance for each packet. A stateful VNF's
// flows stay on the instance they are pinned to; other packets follow the
// Maglev table. True where the whole group goes to one instance it knew
// beforehand (g.slot set); else the parts are pushed, one per instance in
// slot order, or the packets dropped.
bool Worker::steer(PathGroup& g) {
  const int pool = g.pool;
  rte_mbuf** pkts = g.pkts;
  const uint16_t n = g.n;
  const PoolView& view = snapshot_->pools[pool];
  if (view.active == 0) {
    // A placement without instances (a plan that kept flows away from it).
    for (uint16_t i = 0; i < n; ++i) drop_in_chain(pkts[i], DropReason::no_route);
    return false;
  }
  uint16_t slots[kMaxVnfBurst];
  uint32_t pin_hashes[kMaxVnfBurst];
  uint64_t pinned = 0;
  const int lone = lone_slot(pool, view);
  if (lone >= 0) {
    // With pins to keep, the flows are remembered for when the pool grows (flow_affinity.h).
    if (affinity_[pool]) {
      for (uint16_t i = 0; i < n; ++i) pin_hashes[i] = chain_meta(pkts[i]).flow_hash;
      affinity_[pool]->note_single(pin_hashes, n, view);
    }
    if (recording_) {
      std::fill_n(slots, n, static_cast<uint16_t>(lone));
      note_slots(pool, pkts, n, slots, 0, pin_hashes);
    }
    g.slot = lone;
    return true;
  }
  pick_slots(pool, view, pkts, n, slots, pinned, pin_hashes);
  if (recording_) note_slots(pool, pkts, n, slots, pinned, pin_hashes);
  for (uint16_t i = 0; i < n; ++i)
    if (slots[i] == kNoSlot) drop_in_chain(pkts[i], DropReason::no_owner_instance);
  push_parts(g, slots, &PathGroup::slot, 0);
  return false;
}

// The instance slot of each packet (kNoSlot: its owner is not running).
// Replies the VNF knows the owner of go there, and it may give others the
// hash of their flow's other direction; with a single slot in use there is
// no choice to make for them. Packets of a stateful VNF go by flow pin, the
// rest by Maglev.
void Worker::pick_slots(int pool, const PoolView& view, rte_mbuf** pkts, uint16_t n, uint16_t* slots, uint64_t& pinned,
                        uint32_t* pin_hashes) {
  FlowAffinity* pins = affinity_[pool].get();
  pinned = 0;
  if (!view.owner || view.slots_in_use <= 1) {
    if (!pins) {
      for (uint16_t i = 0; i < n; ++i) slots[i] = view.slot_for(chain_meta(pkts[i]).flow_hash);
      return;
    }
    for (uint16_t i = 0; i < n; ++i) pin_hashes[i] = chain_meta(pkts[i]).flow_hash;
    pinned = n == 64 ? ~0ull : (1ull << n) - 1;
    return pins->slots_for(pin_hashes, n, view, now_tsc_, slots);
  }
  uint32_t hashes[kMaxVnfBurst];
  uint16_t by_hash[kMaxVnfBurst];  // packets without an owner, by index
  uint16_t n_by_hash = 0;
  for (uint16_t i = 0; i < n; ++i) {
    uint32_t hash = chain_meta(pkts[i]).flow_hash;
    const int owner = view.owner->slot_of(pkts[i], hash);
    if (owner >= 0) {
      slots[i] = owner < kMaxInstancesPerPool && view.state[owner] != InstanceState::kFree ? static_cast<uint16_t>(owner) : kNoSlot;
      continue;
    }
    hashes[n_by_hash] = hash;
    by_hash[n_by_hash++] = i;
  }
  uint16_t picked[kMaxVnfBurst];
  if (pins) pins->slots_for(hashes, n_by_hash, view, now_tsc_, picked);
  else for (uint16_t j = 0; j < n_by_hash; ++j) picked[j] = view.slot_for(hashes[j]);
  for (uint16_t j = 0; j < n_by_hash; ++j) {
    slots[by_hash[j]] = picked[j];
    pin_hashes[by_hash[j]] = hashes[j];
    if (pins) pinned |= 1ull << by_hash[j];
  }
}

// Runs one instance on what its token bucket allows from its queue.
uint16_t Worker::run_instance(int pool, int slot, Instance& instance) {
  const unsigned waiting = rte_ring_count(instance.queue);
  instance.counters.queue_depth = waiting;
  if (waiting == 0) return 0;
  const uint32_t allowed = instance.bucket.available(now_tsc_, std::min<unsigned>(waiting, kMaxVnfBurst));
  if (allowed == 0) return 0;
  rte_mbuf* burst[kMaxVnfBurst];
  const uint16_t n = static_cast<uint16_t>(rte_ring_dequeue_burst(instance.queue, reinterpret_cast<void**>(burst), allowed, nullptr));
  instance.bucket.consume(n, waiting > n);
  const HopPlace& place = hop_places_[pool];
  // A chain's first hop: its packets may take the fast path from here on.
  if (place.stage == 1 && chain_fast_[place.chain]) {
    const FirstHop first{pool, slot, &instance};
    run_fast_path(place.chain, place.site, burst, n, &first);
  } else {
    forward(from_queue(pool, slot, burst, n));
  }
  return n;
}

// Step 5 of forward(): the VNF processes the burst, the survivors first.
uint16_t Worker::serve(int pool, Instance& instance, rte_mbuf** burst, uint16_t n) {
  rte_mbuf* dropped[kMaxVnfBurst];
  // Busy time is sampled (one burst in kBusySampleEvery, scaled up): two TSC
  // reads per burst would cost the fast path more than the estimate is worth.
  const bool sample = (++instance.counters.bursts % kBusySampleEvery) == 0;
  const uint64_t start = sample ? rte_rdtsc() : 0;
  uint64_t bytes_in = 0;
  for (uint16_t i = 0; i < n; ++i) bytes_in += rte_pktmbuf_pkt_len(burst[i]);
  uint16_t n_dropped = 0;
  const uint16_t kept = recording_ ? process_noting_tickets(pool, instance, burst, n, dropped, &n_dropped)
                                   : instance.vnf->process(burst, n, dropped, &n_dropped);
  if (sample) instance.counters.busy_tsc += (rte_rdtsc() - start) * kBusySampleEvery;
  uint64_t bytes_out = bytes_in;
  if (n_dropped || kept != n) {
    bytes_out = 0;
    for (uint16_t i = 0; i < kept; ++i) bytes_out += rte_pktmbuf_pkt_len(burst[i]);
  }
  count_served(instance.counters, n, kept, n_dropped, bytes_in, bytes_out);
  for (uint16_t i = 0; i < n_dropped; ++i) drop_in_chain(dropped[i], DropReason::vnf);
  return kept;
}

// Runs this worker's instances in chain and hop order, so a packet can cross
// every hop of its chain in one pass.
bool Worker::run_instances() {
  bool moved = false;
  const int workers = pod_.worker_count;
  for (std::size_t p = 0; p < hop_places_.size(); ++p) {
    InstancePool* pool = pod_.pools[p].get();
    if (!pool) continue;
    const PoolView& view = snapshot_->pools[p];
    for (int slot = index_; slot < view.slots_in_use; slot += workers)
      if (view.state[slot] != InstanceState::kFree) moved |= run_instance(static_cast<int>(p), slot, pool->slot(slot)) > 0;
  }
  return moved;
}

void Worker::handle_rx(int port, rte_mbuf** pkts, uint16_t n) {
  // Consecutive packets of the same chain move on together.
  rte_mbuf* run[kMaxVnfBurst];
  uint16_t run_length = 0;
  uint64_t run_bytes = 0, rx_bytes = 0;
  int run_chain = kNoIndex;
  const int site = pod_.layout.ports[port].site;
  const auto enter_run = [&] {
    if (run_length == 0) return;
    ChainCounters& cc = counters_.chains[run_chain];
    cc.in_packets += run_length;
    cc.in_bytes += run_bytes;
    enter_chain(run_chain, site, run, run_length);
    run_length = 0;
    run_bytes = 0;
  };
  for (uint16_t i = 0; i < n; ++i) {
    const uint32_t bytes = rte_pktmbuf_pkt_len(pkts[i]);
    rx_bytes += bytes;
    const int chain = classify_rx(port, site, pkts[i]);
    if (chain == kNoIndex) continue;
    if (chain != run_chain || run_length == kMaxVnfBurst) enter_run();
    run_chain = chain;
    run[run_length] = pkts[i];
    run_length++;
    run_bytes += bytes;
  }
  enter_run();
  counters_.ports[port].rx_bytes += rx_bytes;
}

void Worker::deliver_from_link(int link_index, rte_mbuf** pkts, uint16_t n) {
  const LinkInfo& link = pod_.layout.links[link_index];
  if (link.port == kNoIndex) {
    // Arrived at another site of this pod: continue the chain there.
    for (uint16_t i = 0; i < n; ++i) {
      const ChainMeta& meta = chain_meta(pkts[i]);
      forward({.pkts = &pkts[i], .n = 1, .chain = meta.chain, .stage = meta.next_stage, .site = link.to, .site_chosen = true});
    }
    return;
  }
  // Leaves for a site of another pod: NSH carries the chain state.
  if (!pod_.port_usable(link.port)) {
    for (uint16_t i = 0; i < n; ++i) drop_in_chain(pkts[i], DropReason::link_down);
    return;
  }
  const PortRuntime& out = pod_.ports[link.port];
  const PortInfo& port_info = pod_.layout.ports[link.port];
  rte_ether_addr peer_mac{};
  if (port_info.peer_mac_set) {
    std::copy(port_info.peer_mac.begin(), port_info.peer_mac.end(), peer_mac.addr_bytes);
  } else {
    peer_mac.addr_bytes[0] = 0x02;
    peer_mac.addr_bytes[5] = static_cast<uint8_t>(link.to);
  }
  for (uint16_t i = 0; i < n; ++i) {
    const ChainMeta& meta = chain_meta(pkts[i]);
    const ChainRoute& route = pod_.routes[meta.chain];
    NshFields nsh;
    nsh.spi = route.spi;
    // Stages still ahead, so SI is 1 (never 0) on the way to the egress site.
    nsh.si = static_cast<uint8_t>(route.stage_count - meta.next_stage);
    nsh.ingress_ns = meta.ingress_ns;
    nsh.flow_hash = meta.flow_hash;
    nsh.src_site = meta.site;
    nsh.dst_site = static_cast<uint8_t>(link.to);
    if (!nsh_encap(pkts[i], out.mac, peer_mac, nsh)) {
      drop_in_chain(pkts[i], DropReason::no_headroom);
      continue;
    }
    send_to_port(link.port, pkts[i], /*in_chain=*/true);
  }
}

bool Worker::release_links() {
  bool moved = false;
  uint64_t in_flight = 0;
  rte_mbuf* pkts[kBurstSize];
  for (std::size_t l = 0; l < links_.size(); ++l) {
    WanLink& link = *links_[l];
    if (link.next_due_tsc() <= now_tsc_) {
      uint16_t n;
      // Towards another pod, take only what the port's buffer can hold: a
      // busy peer leaves packets waiting on the link rather than dropped.
      const int port = pod_.layout.links[l].port;
      auto room = [&]() -> uint16_t {
        if (port == kNoIndex) return kBurstSize;
        if (tx_[port].count > TxBuffer::kSize - kBurstSize) flush_port(port);
        return static_cast<uint16_t>(std::min<int>(kBurstSize, TxBuffer::kSize - tx_[port].count));
      };
      // A bounded share per loop: what arrives must also find room in the
      // next hop's instance queues, which run between two releases.
      for (int bursts = 0; bursts < kReleaseBurstsPerLoop && (n = link.release(now_tsc_, pkts, room())) > 0; ++bursts) {
        counters_.busy_packets += n;
        deliver_from_link(static_cast<int>(l), pkts, n);
        moved = true;
      }
    }
    in_flight += link.in_flight();
  }
  for (const auto& buffer : tx_) in_flight += buffer.count;  // waiting for a busy peer
  // Instance queues matter only to the idle check: look at them now and then.
  if ((counters_.loops & 31) == 0) queued_snapshot_ = queued_in_owned_instances();
  in_flight += queued_snapshot_;
  __atomic_store_n(&counters_.in_flight, in_flight, __ATOMIC_RELAXED);
  return moved;
}

bool Worker::poll_once(uint64_t now_tsc) {
  now_tsc_ = now_tsc;
  now_ns_ = pod_.clock.to_ns(now_tsc_);
  load_snapshot();
  bool moved = false;
  rte_mbuf* pkts[kBurstSize];
  for (int port : rx_ports_) {
    if (!pod_.port_usable(port)) continue;  // may be restarting: hands off
    const PortRuntime& rt = pod_.ports[port];
    const uint16_t n = rte_eth_rx_burst(rt.port_id, 0, pkts, kBurstSize);
    if (n == 0) continue;
    // With WAN links, time the burst when it is in hand: a worker preempted
    // between the loop's clock reading and this rx would otherwise schedule
    // the packets' delivery too early.
    if (!links_.empty()) {
      now_tsc_ = rte_rdtsc();
      now_ns_ = pod_.clock.to_ns(now_tsc_);
    }
    moved = true;
    if (rt.capture_ring) {
      rte_mbuf* copies[kBurstSize];
      hand_to_capture(port, copies, copy_for_capture(port, pkts, n, false, copies));
    }
    counters_.ports[port].rx_packets += n;
    counters_.busy_packets += n;
    handle_rx(port, pkts, n);
  }
  moved |= release_links();
  // Instance queues fill only when a burst could not be served inline (a
  // rate limit, a backlog, another worker's instance): until then, skip them.
  if (queues_used_ || pod_.worker_count > 1) moved |= run_instances();
  expire_idle_flows();
  flush_all();
  // Done with this snapshot: the control thread may free older ones.
  rte_rcu_qsbr_quiescent(pod_.rcu, static_cast<unsigned>(index_));
  return moved;
}

void Worker::idle_backoff() {
  if (++idle_loops_ < kSpinLoopsBeforeSleep) {
    rte_pause();
    return;
  }
  // Sleep longer the longer we idle, but never past the next due packet.
  uint64_t sleep_ns = std::min<uint64_t>(kMaxSleepNs, kMinSleepNs << std::min<uint32_t>((idle_loops_ - kSpinLoopsBeforeSleep) / 64, 4));
  uint64_t next_due = UINT64_MAX;
  for (const auto& link : links_) next_due = std::min(next_due, link->next_due_tsc());
  if (next_due != UINT64_MAX) {
    const uint64_t now = rte_rdtsc();
    const uint64_t until_due_ns = next_due > now ? pod_.clock.to_ns(next_due) - pod_.clock.to_ns(now) : 0;
    sleep_ns = std::min(sleep_ns, until_due_ns);
  }
  if (sleep_ns == 0) return;
  const timespec ts{0, static_cast<long>(sleep_ns)};
  // Asleep we hold no snapshot: the control thread need not wait for us.
  rte_rcu_qsbr_thread_offline(pod_.rcu, static_cast<unsigned>(index_));
  nanosleep(&ts, nullptr);
  rte_rcu_qsbr_thread_online(pod_.rcu, static_cast<unsigned>(index_));
  counters_.sleeps++;
}

void Worker::drain_on_stop() {
  // Packets already on a WAN link still arrive (their delay is bounded);
  // only what is left after the timeout is counted as lost to the stop.
  const uint64_t deadline = rte_rdtsc() + pod_.clock.ns_to_tsc(kDrainTimeoutNs);
  for (;;) {
    now_tsc_ = rte_rdtsc();
    now_ns_ = pod_.clock.to_ns(now_tsc_);
    load_snapshot();
    release_links();
    run_instances();
    flush_all();
    rte_rcu_qsbr_quiescent(pod_.rcu, static_cast<unsigned>(index_));
    uint64_t in_flight = 0;
    for (const auto& link : links_) in_flight += link->in_flight();
    for (const auto& buffer : tx_) in_flight += buffer.count;
    in_flight += queued_in_owned_instances();
    if (in_flight == 0 || now_tsc_ > deadline) break;
    idle_loops_ = kSpinLoopsBeforeSleep;
    idle_backoff();
  }
  for (auto& link : links_)
    while (rte_mbuf* m = link->take_any()) drop_in_chain(m, DropReason::shutdown);
  // Instance queues that could not drain (a rate-limited instance at stop).
  for (std::size_t p = 0; p < pod_.pools.size(); ++p) {
    InstancePool* pool = pod_.pools[p].get();
    if (!pool) continue;
    for (int slot = index_; slot < kMaxInstancesPerPool; slot += pod_.worker_count) {
      rte_ring* queue = pool->slot(slot).queue;
      rte_mbuf* m;
      while (queue && rte_ring_dequeue(queue, reinterpret_cast<void**>(&m)) == 0) drop_in_chain(m, DropReason::shutdown);
    }
  }
  for (auto& buffer : tx_) {
    for (uint16_t i = 0; i < buffer.count; ++i) drop(buffer.pkts[i], DropReason::shutdown);
    buffer.count = 0;
    buffer.bytes = 0;
  }
  __atomic_store_n(&counters_.in_flight, 0, __ATOMIC_RELAXED);
}

void Worker::load_snapshot() {
  const RoutingSnapshot* latest = pod_.snapshot.load(std::memory_order_acquire);
  if (latest == snapshot_) return;
  snapshot_ = latest;
  for (std::size_t l = 0; l < links_.size(); ++l) links_[l]->use(&snapshot_->links[l]);
}

void Worker::expire_idle_flows() {
  for (auto& pins : affinity_)
    if (pins) pins->expire_due(now_tsc_);
  for (auto& pins : site_pins_)
    if (pins) pins->expire_due(now_tsc_);
}

uint64_t Worker::queued_in_owned_instances() const {
  uint64_t queued = 0;
  for (std::size_t p = 0; p < pod_.pools.size(); ++p) {
    if (!pod_.pools[p]) continue;
    const PoolView& view = snapshot_->pools[p];
    for (int slot = index_; slot < view.slots_in_use; slot += pod_.worker_count)
      if (view.state[slot] != InstanceState::kFree) queued += rte_ring_count(pod_.pools[p]->slot(slot).queue);
  }
  return queued;
}

void Worker::run() {
  const MemifGuardWorkerThread memif_guard_worker;
  rte_rcu_qsbr_thread_register(pod_.rcu, static_cast<unsigned>(index_));
  rte_rcu_qsbr_thread_online(pod_.rcu, static_cast<unsigned>(index_));
  pod_.workers_running.fetch_add(1);
  while (pod_.state.load(std::memory_order_relaxed) == RunState::kForwarding) {
    const uint64_t start = rte_rdtsc();
    counters_.loops++;
    if (poll_once(start)) {
      idle_loops_ = 0;
      counters_.busy_tsc += rte_rdtsc() - start;
    } else {
      idle_backoff();
    }
  }
  drain_on_stop();
  rte_rcu_qsbr_thread_offline(pod_.rcu, static_cast<unsigned>(index_));
  rte_rcu_qsbr_thread_unregister(pod_.rcu, static_cast<unsigned>(index_));
  pod_.workers_running.fetch_sub(1);
}

}  // namespace nfv
