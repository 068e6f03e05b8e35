// The pool of VNF instances of one hop (chain, hop, site): each instance has
// its own VNF object (its own flow state), its own input queue, an owner
// worker that runs it, and a token bucket for its service rate.
//
// Thread contract: the pool itself (scale_to, reap, view) is control-thread
// only. Workers reach instances through the published RoutingSnapshot and
// never see a slot change state without an RCU grace period in between.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "maglev.h"
#include "pod_layout.h"
#include "token_bucket.h"
#include "vnf.h"

struct rte_ring;

namespace nfv {

enum class InstanceState : uint8_t { kFree, kActive, kDraining };

// Written only by the owner worker; read by the control thread.
struct alignas(64) InstanceCounters {
  uint64_t in_packets = 0;
  uint64_t out_packets = 0;
  uint64_t in_bytes = 0;
  uint64_t out_bytes = 0;
  uint64_t dropped = 0;      // by the VNF
  uint64_t busy_tsc = 0;     // time spent processing (sampled, see Worker::serve)
  uint64_t bursts = 0;
  uint64_t queue_depth = 0;  // sampled by the owner each run
};

struct Instance {
  uint32_t id = 0;              // unique in the pod, never reused: names it in telemetry
  uint32_t pool_serial = 0;     // its start's number in the pool: keys its Maglev entry
  std::unique_ptr<Vnf> vnf;     // null while the slot is free
  rte_ring* queue = nullptr;    // multi-producer (any worker steers), single consumer (owner)
  int owner = 0;                // worker index
  TokenBucket bucket;           // owner only
  InstanceCounters counters;
  uint64_t draining_since_tsc = 0;
};

// What workers read about a pool, by slot.
struct PoolView {
  std::array<InstanceState, kMaxInstancesPerPool> state{};
  std::array<uint32_t, kMaxInstancesPerPool> generation{};
  std::vector<uint16_t> maglev;  // entry -> slot, over active slots only
  bool stateful = false;
  const OwnerSlot* owner = nullptr;  // the VNF's reply steering, if any (lives as long as the pool)
  uint16_t active = 0;
  uint16_t slots_in_use = 0;  // every non-free slot is below this

  uint16_t slot_for(uint32_t flow_hash) const {
    return maglev[(static_cast<uint64_t>(flow_hash) * maglev.size()) >> 32];
  }
};

struct PoolTotals {  // counters of instances that have been freed
  uint64_t in_packets = 0, out_packets = 0, dropped = 0;
};

class InstancePool {
 public:
  // A pool of `hop` at `site` (one of the hop's placements), starting with
  // `instances` (0 is allowed for a placement that gets no flows yet).
  InstancePool(std::string name, const HopInfo& hop, int site, uint32_t instances, int workers, uint64_t tsc_hz);
  ~InstancePool();
  InstancePool(const InstancePool&) = delete;
  InstancePool& operator=(const InstancePool&) = delete;

  const std::string& name() const { return name_; }
  const HopInfo& hop() const { return hop_; }
  int site() const { return site_; }
  Instance& slot(int i) { return *slots_[i]; }
  const Instance& slot(int i) const { return *slots_[i]; }
  InstanceState state(int i) const { return view_.state[i]; }
  int active() const { return view_.active; }
  int draining() const;
  const PoolTotals& freed_totals() const { return freed_; }

  // Makes `n` instances active: starts new ones in free slots, or marks the
  // newest active ones as draining (no new flows; existing flows stay).
  // Returns false, with the reason in *error, when n is out of range
  // (0 is allowed: the placement then must get no new flows).
  bool scale_to(int n, uint64_t now_tsc, std::string* error);
  // Drains one active instance by id (never the last active one).
  bool drain_instance(uint32_t id, uint64_t now_tsc, std::string* error);

  // Slots that finished draining: no flow left on them (per the workers'
  // flow tables) and an empty queue, or past the drain timeout.
  std::vector<int> drained(const std::vector<uint32_t>& flows_per_slot, uint64_t now_tsc) const;
  // Marks slots free in the view (publish, wait for a grace period, then
  // call destroy_freed).
  void mark_free(const std::vector<int>& slots);
  // Releases the VNF objects of freed slots; returns mbufs left in their
  // queues (none when draining worked), which the caller frees.
  std::vector<struct rte_mbuf*> destroy_freed(const std::vector<int>& slots);

  // A state-changing operator request to the whole hop (e.g. lb "backend
  // down ..."): instances started from now on get it after init, in order.
  // Repeating a request moves it to the end, so toggles keep the list short.
  void add_standing_request(const std::string& request);

  // The view to publish after any change.
  const PoolView& view() const { return view_; }

 private:
  void start_instance(int slot);
  void rebuild_maglev();
  uint32_t started_ = 0;  // instances started in this pool
  void count_slots_in_use();

  std::string name_;
  HopInfo hop_;
  int site_;
  int workers_;
  uint64_t tsc_hz_;
  std::array<std::unique_ptr<Instance>, kMaxInstancesPerPool> slots_;
  PoolView view_;
  std::shared_ptr<const OwnerSlot> owner_slot_;  // from the first instance started
  std::vector<std::string> standing_requests_;
  PoolTotals freed_;
};

}  // namespace nfv
