// The immutable picture of the pod's instance pools that workers route by.
// The control thread builds a new one for every change and publishes it
// with an RCU pointer swap (rte_rcu_qsbr): workers load the pointer once per
// loop, report quiescence at the end of the loop, and never take a lock.
#pragma once

#include <cstdint>
#include <vector>

#include <rte_hash_crc.h>

#include "instance_pool.h"
#include "wan_link.h"

namespace nfv {

// How a hop's flows are shared between its placements is a PoolView whose
// "slots" are the placements: active when their share is > 0, draining
// (no new flows, pinned flows stay) when it is 0. Its Maglev table is
// weighted by the shares. Lookups use a re-hash of the flow hash, so the
// site choice and the instance choice at a site stay independent.
inline uint32_t site_choice_hash(uint32_t flow_hash) { return rte_hash_crc_4byte(flow_hash, 0x2545f491); }

struct RoutingSnapshot {
  uint64_t version = 0;
  std::vector<PoolView> pools;      // by pool index (a hop's placements are consecutive)
  std::vector<PoolView> splits;     // by flat hop index: the hop's placements
  std::vector<LinkSettings> links;  // by link index
};

}  // namespace nfv
