// A burst's paths through a chain's pools (FastPathRecord::path): which
// distinct paths its records take, and the order hop by hop would hand its
// packets out in. Fast-path work per hop can then go by path, not by packet.
#pragma once

#include <cstdint>

#include <rte_mbuf.h>

#include "chain_fast_path.h"
#include "vnf.h"

namespace nfv {

// The distinct paths (FastPathRecord::path) of a run of records and how
// many records take each: usually a few, since pools of one size that
// steer by the flow's hash steer it alike (their Maglev tables are keyed by
// their instances' serials in the pool); a pool that steers by another hash
// (lb, by its connection) multiplies them by its instances. Per-hop work
// can then go by path rather than by record.
struct BurstPaths {
  static constexpr int kMax = 16;
  bool listed = false;  // false: more than kMax paths, none listed
  int count = 0;
  uint16_t of_n = 0;    // the records counted (a run is only ever cut to a prefix: n says which)
  uint64_t path[kMax];
  uint16_t records_on[kMax];
  uint8_t path_of[kMaxVnfBurst];  // each record's index into path[]

  // path, records_on and path_of hold only when `listed`.
  void find(FastPathRecord* const* records, uint16_t n) {
    count = 0;
    of_n = n;
    listed = true;
    for (uint16_t i = 0; i < n; ++i) {
      const uint64_t p = records[i]->path();
      int k = 0;
      while (k < count && path[k] != p) ++k;
      if (k == count) {
        if (count == kMax) {
          listed = false;
          return;
        }
        path[count] = p;
        records_on[count++] = 0;
      }
      records_on[k]++;
      path_of[i] = static_cast<uint8_t>(k);
    }
  }
};

// Puts a burst in the order hop by hop sends it out: by path (the instance
// slot at each hop, first hop first), stable. `paths` gets each packet's
// path in that order, `arrival` its place in the burst as it came (an
// instance at a hop gets its packets by the path up to the hop before,
// then in arrival order). n: at most kMaxVnfBurst. `distinct`: the
// records' paths if found for these n records already (of_n == n), else
// found here.
void order_as_hop_by_hop(rte_mbuf** pkts, FastPathRecord** records, uint16_t n, uint64_t* paths, uint8_t* arrival,
                         BurstPaths& distinct);

}  // namespace nfv
