// The immutable picture of the pod's instance pools that workers route by.
// The control thread builds a new one for every change and publishes it
// with an RCU pointer swap (rte_rcu_qsbr): workers load the pointer once per
// loop, report quiescence at the end of the loop, and never take a lock.
#pragma once

#include <cstdint>
#include <vector>

#include "instance_pool.h"
#include "wan_link.h"

namespace nfv {

struct RoutingSnapshot {
  uint64_t version = 0;
  std::vector<PoolView> pools;      // by flat hop index; empty view for hops of other pods
  std::vector<LinkSettings> links;  // by link index
};

}  // namespace nfv
