// Pins flows to instances of a stateful pool: a flow keeps the instance it
// started on while the pool scales (an active or draining instance), and only
// new flows follow the pool's Maglev table. One table per worker and pool,
// so the fast path takes no locks; idle flows expire a few per loop.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "instance_pool.h"

struct rte_hash;

namespace nfv {

class FlowAffinity {
 public:
  FlowAffinity(const std::string& name, uint32_t capacity, uint64_t idle_timeout_tsc, int socket_id);
  ~FlowAffinity();
  FlowAffinity(const FlowAffinity&) = delete;
  FlowAffinity& operator=(const FlowAffinity&) = delete;

  // The slot for this flow: the pinned one while it still serves the pool,
  // else a fresh pick from the Maglev table (and the flow is pinned to it).
  uint16_t slot_for(uint32_t flow_hash, const PoolView& view, uint64_t now_tsc);

  // Looks at the next `budget` table positions and forgets the flows there
  // that have been idle for longer than the timeout (bounded work per loop).
  void expire_some(uint64_t now_tsc, uint32_t budget);

  // Read by the control thread.
  uint32_t flows_on(int slot) const { return __atomic_load_n(&flows_[slot], __ATOMIC_RELAXED); }
  uint64_t moved() const { return __atomic_load_n(&moved_, __ATOMIC_RELAXED); }
  uint64_t table_full() const { return __atomic_load_n(&table_full_, __ATOMIC_RELAXED); }

 private:
  struct Pin {
    uint64_t last_seen_tsc;
    uint32_t generation;
    uint16_t slot;
    bool in_use;
  };
  void unpin(int32_t position);

  rte_hash* table_ = nullptr;
  std::vector<Pin> pins_;  // by rte_hash position
  uint64_t idle_timeout_tsc_;
  uint32_t sweep_cursor_ = 0;
  std::array<uint32_t, kMaxInstancesPerPool> flows_{};
  uint64_t moved_ = 0;       // pinned to an instance that was freed: had to move
  uint64_t table_full_ = 0;  // could not pin (the flow still gets an instance)
};

}  // namespace nfv
