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

// How a hop's flows are shared between its placements: weighted Maglev
// over the placements, looked up with a re-hash of the flow hash (so the
// site choice and the instance choice at a site stay independent).
struct SiteSplit {
  bool multi = false;             // more than one placement with a share
  std::vector<uint16_t> table;    // entry -> placement index
  uint16_t only = 0;              // the placement when not multi

  uint16_t placement_for(uint32_t flow_hash) const {
    if (!multi) return only;
    const uint32_t h = rte_hash_crc_4byte(flow_hash, 0x2545f491);
    return table[(static_cast<uint64_t>(h) * table.size()) >> 32];
  }
};

struct RoutingSnapshot {
  uint64_t version = 0;
  std::vector<PoolView> pools;      // by pool index (a hop's placements are consecutive)
  std::vector<SiteSplit> splits;    // by flat hop index
  std::vector<LinkSettings> links;  // by link index
};

}  // namespace nfv
