// The DPDK lookups the 4-VNF chain makes per packet, each timed alone on the
// bench's flows at the pod's burst (kBurstSize) with keys built beforehand: rte_acl over
// 1,000 rules (firewall; on flows it has seen, the firewall finds the
// answer in its verdict cache instead), rte_hash on 16-byte keys (nat's sessions and lb's
// connections: two per packet; on flows they have seen, nat and lb find the
// position in their flow cache instead), rte_lpm over 10,000 routes
// (router). What they cost together is a floor under the chain that no
// rewrite of the VNFs' own code can go below.
#pragma once

namespace nfv::bench {

struct LookupFloor {
  double acl = 0;          // cycles per packet, rte_acl_classify, 1 category
  double verdict_hit = 0;  // one key found in a verdict cache (verdict_cache.h)
  double hash = 0;       // one rte_hash_lookup_bulk key
  double cache_hit = 0;  // one key found in a flow cache (flow_cache.h)
  double lpm = 0;        // rte_lpm_lookup_bulk
  // Flows the caches have seen: the bench's steady state.
  double chain() const { return verdict_hit + 2 * cache_hit + lpm; }
};

// Needs EAL. `flows` distinct UDP flows shaped like the bench's frames.
LookupFloor measure_lookup_floor(int flows, int burst);

}  // namespace nfv::bench
