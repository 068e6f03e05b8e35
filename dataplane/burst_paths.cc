#include "burst_paths.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace nfv {
namespace {

static_assert(kMaxVnfBurst <= 255, "the sorts keep indices and places in bytes");

// Puts the packets, records and paths (given in arrival order) in `order`
// (order[j]: the arrival place of the j-th), which `arrival` keeps.
void apply_order(rte_mbuf** pkts, FastPathRecord** records, uint64_t* paths, uint16_t n, const uint8_t* order, uint8_t* arrival) {
  rte_mbuf* placed_pkts[kMaxVnfBurst];
  FastPathRecord* placed_records[kMaxVnfBurst];
  uint64_t placed_paths[kMaxVnfBurst];
  for (uint16_t j = 0; j < n; ++j) {
    placed_pkts[j] = pkts[order[j]];
    placed_records[j] = records[order[j]];
    placed_paths[j] = paths[order[j]];
  }
  std::copy_n(placed_pkts, n, pkts);
  std::copy_n(placed_records, n, records);
  std::copy_n(placed_paths, n, paths);
  std::copy_n(order, n, arrival);
}

// order_as_hop_by_hop for a burst of many paths (pools of several
// instances, one of them steering by another hash than the rest): a
// stable counting sort by each hop's instance slot, last hop first, which
// leaves them in first-hop-first order. Hops whose slot every record shares
// are skipped; the sorts move one-byte indices, and the packets move once.
// Linear in n per hop, where a comparison sort's moves grew with n squared.
void radix_sort(rte_mbuf** pkts, FastPathRecord** records, uint16_t n, uint64_t* paths, uint8_t* arrival) {
  uint64_t differ = 0, any = 0;
  for (uint16_t i = 0; i < n; ++i) {
    paths[i] = records[i]->path();
    differ |= paths[i] ^ paths[0];
    any |= paths[i];
  }
  uint8_t by_slot[2][kMaxVnfBurst];
  uint8_t* order = by_slot[0];
  uint8_t* sorted = by_slot[1];
  for (uint16_t i = 0; i < n; ++i) order[i] = static_cast<uint8_t>(i);
  for (int h = kFastPathMaxHops - 1; h >= 0; --h) {
    if (!FastPathRecord::path_slot(differ, h)) continue;
    const unsigned top = FastPathRecord::path_slot(any, h);  // no slot at this hop is above it
    uint8_t place[256];  // n <= 64 fits a byte
    std::fill_n(place, top + 1, 0);
    for (uint16_t j = 0; j < n; ++j) place[FastPathRecord::path_slot(paths[order[j]], h)]++;
    uint8_t at = 0;
    for (unsigned s = 0; s <= top; ++s) {
      const uint8_t here = place[s];
      place[s] = at;
      at = static_cast<uint8_t>(at + here);
    }
    for (uint16_t j = 0; j < n; ++j) sorted[place[FastPathRecord::path_slot(paths[order[j]], h)]++] = order[j];
    std::swap(order, sorted);
  }
  apply_order(pkts, records, paths, n, order, arrival);
}

}  // namespace

// A burst usually takes a few paths in any order (its flows spread over
// the pools): a counting sort over them.
void order_as_hop_by_hop(rte_mbuf** pkts, FastPathRecord** records, uint16_t n, uint64_t* paths, uint8_t* arrival,
                         BurstPaths& distinct) {
  if (distinct.of_n != n) distinct.find(records, n);
  const uint8_t* path_of = distinct.path_of;
  if (!distinct.listed) {
    distinct.of_n = 0;
    return radix_sort(pkts, records, n, paths, arrival);
  }
  for (uint16_t i = 0; i < n; ++i) paths[i] = distinct.path[path_of[i]];
  if (std::is_sorted(paths, paths + n)) {
    std::iota(arrival, arrival + n, uint8_t{0});
    return;
  }
  // Each path's first place: the records on the paths below it.
  uint16_t place[BurstPaths::kMax];
  for (int k = 0; k < distinct.count; ++k) {
    place[k] = 0;
    for (int j = 0; j < distinct.count; ++j)
      place[k] = static_cast<uint16_t>(place[k] + (distinct.path[j] < distinct.path[k]) * distinct.records_on[j]);  // no branch: paths come in any order, a compare would mispredict
  }
  uint8_t order[kMaxVnfBurst];
  for (uint16_t i = 0; i < n; ++i) order[place[path_of[i]]++] = static_cast<uint8_t>(i);
  apply_order(pkts, records, paths, n, order, arrival);
  distinct.of_n = 0;  // its path_of is in the order before
}

}  // namespace nfv
