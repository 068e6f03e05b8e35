#include "burst_paths.h"

#include <algorithm>

namespace nfv {
namespace {

// order_as_hop_by_hop for a burst of many paths: stable, and n is small.
void insertion_sort(rte_mbuf** pkts, FastPathRecord** records, uint16_t n, uint64_t* paths) {
  for (uint16_t i = 0; i < n; ++i) paths[i] = records[i]->path();
  for (uint16_t i = 1; i < n; ++i) {
    const uint64_t path = paths[i];
    rte_mbuf* m = pkts[i];
    FastPathRecord* r = records[i];
    uint16_t j = i;
    for (; j > 0 && paths[j - 1] > path; --j) {
      paths[j] = paths[j - 1];
      pkts[j] = pkts[j - 1];
      records[j] = records[j - 1];
    }
    paths[j] = path;
    pkts[j] = m;
    records[j] = r;
  }
}

}  // namespace

// A burst usually takes a few paths in any order (its flows spread over
// the pools): a counting sort over them.
void order_as_hop_by_hop(rte_mbuf** pkts, FastPathRecord** records, uint16_t n, uint64_t* paths, BurstPaths& distinct) {
  if (distinct.of_n != n) distinct.find(records, n);
  const uint8_t* path_of = distinct.path_of;
  if (!distinct.listed) {
    distinct.of_n = 0;
    return insertion_sort(pkts, records, n, paths);
  }
  bool sorted = true;
  for (uint16_t i = 1; i < n && sorted; ++i) sorted = distinct.path[path_of[i - 1]] <= distinct.path[path_of[i]];
  if (sorted) {
    for (uint16_t i = 0; i < n; ++i) paths[i] = distinct.path[path_of[i]];
    return;
  }
  // Each path's first place: the records on the paths below it.
  uint16_t place[BurstPaths::kMax];
  for (int k = 0; k < distinct.count; ++k) {
    place[k] = 0;
    for (int j = 0; j < distinct.count; ++j)
      place[k] = static_cast<uint16_t>(place[k] + (distinct.path[j] < distinct.path[k]) * distinct.records_on[j]);  // no branch: paths come in any order, a compare would mispredict
  }
  rte_mbuf* placed_pkts[kMaxVnfBurst];
  FastPathRecord* placed_records[kMaxVnfBurst];
  for (uint16_t i = 0; i < n; ++i) {
    const uint16_t at = place[path_of[i]]++;
    placed_pkts[at] = pkts[i];
    placed_records[at] = records[i];
    paths[at] = distinct.path[path_of[i]];
  }
  std::copy_n(placed_pkts, n, pkts);
  std::copy_n(placed_records, n, records);
  distinct.of_n = 0;  // its path_of is in the order before
}

}  // namespace nfv
