// One worker lcore: a cooperative scheduler that polls its rx ports, runs
// VNF bursts hop by hop, releases WAN delay lines when packets are due,
// flushes transmit buffers, and backs off (pause, then short sleeps bounded
// by the next due packet) when there is nothing to do.
#pragma once

#include <bitset>
#include <memory>
#include <vector>

#include <rte_mbuf.h>

#include "burst_size.h"
#include "chain_fast_path.h"
#include "pod_runtime.h"
#include "flow_affinity.h"
#include "vnf.h"
#include "wan_link.h"
#include "worker_counters.h"

namespace nfv {

struct BurstPaths;

static_assert(kBurstSize <= kMaxVnfBurst, "a burst goes through the VNFs whole");

class Worker {
 public:
  Worker(int index, PodRuntime& pod, std::vector<int> rx_ports);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Runs until the pod enters the draining state and nothing is left in flight.
  void run();

  int index() const { return index_; }
  const WorkerCounters& counters() const { return counters_; }
  const WanLink& link(int i) const { return *links_[i]; }
  // This worker's flow pins of a stateful pool (null for stateless ones).
  const FlowAffinity* affinity(int pool) const { return affinity_[pool].get(); }

  // Creates the flow tables and WAN links; control thread, before run().
  void prepare();

  // Feeds a burst as if received on `port` (tests and benchmarks use it too).
  void handle_rx(int port, rte_mbuf** pkts, uint16_t n);

 private:
  struct alignas(64) TxBuffer {
    static constexpr uint16_t kSize = 2 * kBurstSize;
    uint16_t count = 0;
    uint64_t bytes = 0;  // of the packets held, counted on the way in
    std::bitset<kSize> in_chain;  // bit i: pkts[i] is chain traffic (its drops count for its chain)
    rte_mbuf* pkts[kSize];
  };

  // Where a hop runs: its chain, its stage (1-based hop number) and site.
  struct HopPlace {
    int chain;
    int stage;
    int site;
  };

  static constexpr uint16_t kNoSlot = UINT16_MAX;

  // Packets on the packet path, all of one chain, due for `stage` at `site`:
  // a run of one burst's array, which forward() narrows to a pool of the
  // hop (a placement at this site), then to an instance slot of it.
  struct PathGroup {
    rte_mbuf** pkts;
    uint16_t n;
    int chain;
    int stage;
    int site;
    int pool = kNoIndex;      // kNoIndex: not placed yet
    int slot = kNoSlot;       // kNoSlot: not steered yet
    bool site_chosen = false; // just arrived at the site chosen for it: no split
    bool dequeued = false;    // taken from the instance's queue: tokens charged, steered counted
  };

  bool poll_once(uint64_t now_tsc);  // the loop's TSC reading
  bool release_links();
  int classify_rx(int port, int site, rte_mbuf* m);
  void enter(rte_mbuf* m, int chain, uint32_t flow_hash, int site);
  void ingest_nsh(rte_mbuf* m);
  // The packet path: moves a group along its chain until every packet has
  // left it, waits (an instance queue, a WAN link) or was dropped.
  void forward(PathGroup group);
  // A burst taken from instance `slot`'s queue in `pool`, to be served there.
  PathGroup from_queue(int pool, int slot, rte_mbuf** pkts, uint16_t n) const {
    const HopPlace& place = hop_places_[pool];
    return PathGroup{.pkts = pkts, .n = n, .chain = place.chain, .stage = place.stage, .site = place.site, .pool = pool,
                     .slot = slot, .dequeued = true};
  }
  // forward()'s worklist: parts of a group split by a step wait here.
  void push(const PathGroup& group);
  bool pop(PathGroup& group);
  // Orders the group's packets by part (part[i] for pkts[i]; kNoSlot: gone
  // already), stably, and pushes a group per part, `field` = base + part.
  void push_parts(const PathGroup& group, const uint16_t* part, int PathGroup::*field, int base);
  bool place(PathGroup& group);
  bool steer(PathGroup& group);
  void leave_chain(const PathGroup& group);
  // The chain fast path (worker_fast_path.cc): packets entering `chain` at
  // `site` go through it where their flow's record holds, the rest hop by hop.
  void enter_chain(int chain, int site, rte_mbuf** pkts, uint16_t n);
  // A chain's first hop, when its packets come from that instance's queue.
  struct FirstHop {
    int pool;
    int slot;
    Instance* instance;
  };
  void run_fast_path(int chain, int site, rte_mbuf** pkts, uint16_t n, const FirstHop* first);
  void note_first_slot(const FirstHop& first, rte_mbuf** pkts, uint16_t n);
  // What may take the fast path: a chain (at prepare), a packet's flow, and
  // a run of repeatable packets through the pools now (how many of them).
  bool chain_eligible(int chain) const;
  bool flow_eligible(const rte_mbuf* m, const FastPathKey& key) const;
  uint16_t route_repeats(int chain, FastPathRecord** records, uint16_t n, const FirstHop* first, BurstPaths& paths);
  uint16_t repeatable_prefix(int chain, rte_mbuf** pkts, uint16_t n, FastPathRecord** records);
  uint16_t slow_prefix(int chain, rte_mbuf** pkts, uint16_t n, bool stop_at_repeat);
  void repeat_hops(int chain, int site, rte_mbuf** pkts, FastPathRecord** records, uint16_t n, const FirstHop* first,
                   BurstPaths& paths);
  uint64_t serve_repeats(int pool, uint8_t slot, const FlowTicket* const* tickets, rte_mbuf* const* pkts, uint16_t n, uint64_t bytes_in,
                         bool queued, uint64_t now, bool sample);
  uint16_t process_noting_tickets(int pool, Instance& instance, rte_mbuf** burst, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped);
  void note_slots(int pool, rte_mbuf** pkts, uint16_t n, const uint16_t* slots, uint64_t pins, const uint32_t* pin_hashes);
  void complete_recordings(rte_mbuf** pkts, uint16_t n);
  void check_fast_path_generation();
  void prepare_fast_path();
  // The one slot a pool sends everything to, when it makes no per-flow
  // choice (one active instance, no pins to keep apart); else -1.
  int lone_slot(int pool, const PoolView& view) const;
  void send_over_wan(int site, int target, int stage, rte_mbuf** pkts, uint16_t n);
  // The instance slot of each packet; pins: bit i where a flow pin chose
  // it, by the hash pin_hashes[i].
  void pick_slots(int pool, const PoolView& view, rte_mbuf** pkts, uint16_t n, uint16_t* slots, uint64_t& pins, uint32_t* pin_hashes);
  void enqueue_instance(int pool, int slot, Instance& instance, rte_mbuf** pkts, uint16_t n);
  // Whether `instance` can serve `n` packets now, rather than queue them:
  // ours, nothing queued ahead, tokens for all n (taken by consume()).
  bool can_take_now(Instance& instance, uint16_t n);
  // Runs the VNF on the burst; returns how many it kept (the first ones).
  uint16_t serve(int pool, Instance& instance, rte_mbuf** burst, uint16_t n);
  // An instance's counters for a burst served or repeated (one place, so
  // the two paths count alike).
  static void count_served(InstanceCounters& counters, uint16_t in, uint16_t out, uint16_t dropped, uint64_t bytes_in,
                           uint64_t bytes_out) {
    counters.in_packets += in;
    counters.out_packets += out;
    counters.in_bytes += bytes_in;
    counters.out_bytes += bytes_out;
    counters.dropped += dropped;
  }
  bool run_instances();
  uint16_t run_instance(int pool, int slot, Instance& instance);
  [[gnu::always_inline]] inline void send_to_port(int port, rte_mbuf* m, bool in_chain);
  void send_burst_to_port(int port, rte_mbuf** pkts, uint16_t n, uint64_t bytes);
  void flush_port(int port);
  void flush_all();
  void take_default(int port, rte_mbuf* m, DropReason reason);
  void deliver_from_link(int link, rte_mbuf** pkts, uint16_t n);
  void drop(rte_mbuf* m, DropReason reason);
  void drop_in_chain(rte_mbuf* m, DropReason reason);
  uint16_t copy_for_capture(int port, rte_mbuf** pkts, uint16_t n, bool tx, rte_mbuf** copies);
  void hand_to_capture(int port, rte_mbuf** copies, uint16_t n);
  void idle_backoff();
  void drain_on_stop();
  uint64_t queued_in_owned_instances() const;
  void load_snapshot();
  void expire_idle_flows();

  // Busy time is sampled: one burst in this many is timed (and scaled up).
  static constexpr uint64_t kBusySampleEvery = 16;

  int index_;
  PodRuntime& pod_;
  std::vector<int> rx_ports_;
  std::vector<HopPlace> hop_places_;             // by pool index
  std::vector<std::unique_ptr<FlowAffinity>> affinity_;  // by pool index
  std::vector<std::unique_ptr<FlowAffinity>> site_pins_; // by hop number: stateful hops at several sites
  const RoutingSnapshot* snapshot_ = nullptr;    // loaded once per loop
  std::vector<TxBuffer> tx_;
  std::vector<std::unique_ptr<WanLink>> links_;
  std::vector<WanLink*> link_matrix_;            // [from * sites + to]
  std::vector<int> link_port_matrix_;            // [from * sites + to]: the port towards another pod, or kNoIndex
  WorkerCounters counters_;
  uint64_t now_tsc_ = 0;
  uint64_t now_ns_ = 0;
  uint64_t header_mark_ = 0;      // header_mark.h: set on frames whose headers we checked
  uint32_t idle_loops_ = 0;
  uint64_t queued_snapshot_ = 0;  // packets in owned instance queues, last looked
  bool queues_used_ = false;      // this worker has put packets in an instance queue
  // The chain fast path: its records, the chains that may take it, and what
  // ends its generation (a new snapshot, a VNF control request).
  std::unique_ptr<ChainFastPath> fast_path_;
  static constexpr uint8_t kChainFast = 1, kChainPins = 2;  // may take it; a pool keeps flow pins
  std::vector<uint8_t> chain_fast_;        // by chain
  std::vector<uint8_t> chain_ordered_hops_;  // by chain: bit h where hop h's VNF repeats depending on other flows (order_across_flows)
  // By chain: how often a repeat looks its flow's pins up (a fraction of the
  // shortest idle timeout of its pools).
  std::vector<uint64_t> pin_refresh_tsc_;
  uint64_t fast_path_snapshot_version_ = 0;
  uint32_t fast_path_vnf_changes_ = 0;
  bool recording_ = false;                 // packets tagged for recording are on their way
  uint64_t fast_bursts_ = 0;               // for sampling busy time
  // forward()'s worklist, last pushed first. Every group in it holds at
  // least one packet, and no two the same: a burst (at most kMaxVnfBurst
  // packets) never needs more (push() drops, counted, should it ever).
  static constexpr uint16_t kPathDepth = kMaxVnfBurst;
  PathGroup path_[kPathDepth];
  uint16_t path_depth_ = 0;
};

}  // namespace nfv
