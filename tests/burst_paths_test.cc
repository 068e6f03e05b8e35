// A burst's paths (dataplane/burst_paths.h): the order the fast path hands
// repeated packets to a chain's instances must be hop by hop's, which splits
// a burst by instance at each hop, lowest slot first, and sends each part
// through the rest of the chain before the next. Checked against that split
// done literally, on random bursts of few paths (the counting sort) and of
// many (its fallback, a radix sort by slot).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "burst_paths.h"

namespace nfv {
namespace {

struct Burst {
  std::vector<FastPathRecord> records;  // by arrival
  std::vector<rte_mbuf*> pkts;          // stand-ins: never dereferenced
};

Burst random_burst(std::mt19937& rng, int n, int hops, int distinct, int slots) {
  std::vector<std::vector<uint8_t>> paths(static_cast<std::size_t>(distinct));
  for (auto& p : paths)
    for (int h = 0; h < hops; ++h) p.push_back(static_cast<uint8_t>(rng() % slots));
  Burst b;
  b.records.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    FastPathRecord& r = b.records[static_cast<std::size_t>(i)];
    std::fill(std::begin(r.slots), std::end(r.slots), 0);
    const auto& p = paths[rng() % paths.size()];
    std::copy(p.begin(), p.end(), r.slots);
    b.pkts.push_back(reinterpret_cast<rte_mbuf*>(static_cast<uintptr_t>(0x1000 + 64 * i)));
  }
  return b;
}

// Hop by hop, literally: at `hop`, the part's packets split by slot, in
// slot order, each sub-part going through the later hops before the next.
void split(const Burst& b, const std::vector<int>& part, int hop, int hops, std::vector<int>& out) {
  if (hop == hops || part.size() <= 1) {
    out.insert(out.end(), part.begin(), part.end());
    return;
  }
  for (int slot = 0; slot < 256; ++slot) {
    std::vector<int> sub;
    for (int i : part)
      if (b.records[static_cast<std::size_t>(i)].slots[hop] == slot) sub.push_back(i);
    if (!sub.empty()) split(b, sub, hop + 1, hops, out);
  }
}

// `found`: the burst's paths were found before (as route_repeats finds
// them) for all its records, and then the run was cut to its first `cut`
// (-1: not cut); ordering must reuse them only for the same records.
void expect_hop_by_hop_order(const Burst& b, int hops, bool found = false, int cut = -1) {
  const int n = cut < 0 ? static_cast<int>(b.records.size()) : cut;
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  std::vector<int> want;
  split(b, all, 0, hops, want);

  std::vector<rte_mbuf*> pkts = b.pkts;
  std::vector<FastPathRecord*> records;
  for (const auto& r : b.records) records.push_back(const_cast<FastPathRecord*>(&r));
  std::vector<uint64_t> paths(static_cast<std::size_t>(n));
  std::vector<uint8_t> arrival(static_cast<std::size_t>(n));
  BurstPaths distinct;
  if (found) distinct.find(records.data(), static_cast<uint16_t>(records.size()));
  order_as_hop_by_hop(pkts.data(), records.data(), static_cast<uint16_t>(n), paths.data(), arrival.data(), distinct);
  for (int j = 0; j < n; ++j) {
    const int i = want[static_cast<std::size_t>(j)];
    ASSERT_EQ(pkts[static_cast<std::size_t>(j)], b.pkts[static_cast<std::size_t>(i)]) << "place " << j;
    ASSERT_EQ(records[static_cast<std::size_t>(j)], &b.records[static_cast<std::size_t>(i)]) << "place " << j;
    ASSERT_EQ(paths[static_cast<std::size_t>(j)], b.records[static_cast<std::size_t>(i)].path()) << "place " << j;
    ASSERT_EQ(arrival[static_cast<std::size_t>(j)], i) << "place " << j;
  }
}

TEST(BurstPaths, OrdersABurstOfFewPathsAsHopByHopWould) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int hops = 1 + static_cast<int>(rng() % kFastPathMaxHops);
    const Burst b = random_burst(rng, 1 + static_cast<int>(rng() % kMaxVnfBurst), hops, 1 + static_cast<int>(rng() % 6),
                                 2 + static_cast<int>(rng() % 4));
    expect_hop_by_hop_order(b, hops);
    expect_hop_by_hop_order(b, hops, true);  // the paths found for routing, reused
    if (b.records.size() > 1) expect_hop_by_hop_order(b, hops, true, static_cast<int>(b.records.size() / 2));  // found, then cut
    if (HasFatalFailure()) return;
  }
}

TEST(BurstPaths, OrdersABurstOfManyPathsAsHopByHopWould) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    const int hops = 2 + static_cast<int>(rng() % (kFastPathMaxHops - 1));
    const Burst b = random_burst(rng, 48 + static_cast<int>(rng() % 17), hops, 40, 64);
    expect_hop_by_hop_order(b, hops);
    if (HasFatalFailure()) return;
  }
}

// Paths that share a slot at a later hop but not at the first stay apart:
// hop by hop serves (0,1) and (1,1) in different parts.
TEST(BurstPaths, KeepsPathsThatMeetLaterApart) {
  Burst b;
  const uint8_t slots[][2] = {{1, 1}, {0, 1}, {1, 0}, {0, 1}, {1, 1}};
  b.records.resize(5);
  for (int i = 0; i < 5; ++i) {
    std::fill(std::begin(b.records[i].slots), std::end(b.records[i].slots), 0);
    b.records[i].slots[0] = slots[i][0];
    b.records[i].slots[1] = slots[i][1];
    b.pkts.push_back(reinterpret_cast<rte_mbuf*>(static_cast<uintptr_t>(0x1000 + 64 * i)));
  }
  expect_hop_by_hop_order(b, 2);  // 1, 3 (slots 0,1), then 2 (1,0), then 0, 4 (1,1)
}

TEST(BurstPaths, CountsEachPathsRecordsOrSaysThereAreTooMany) {
  std::mt19937 rng(3);
  Burst few = random_burst(rng, 64, 4, 5, 4);
  std::vector<FastPathRecord*> records;
  for (auto& r : few.records) records.push_back(&r);
  BurstPaths paths;
  paths.find(records.data(), 64);
  ASSERT_TRUE(paths.listed);
  int total = 0;
  for (int k = 0; k < paths.count; ++k) {
    int on = 0;
    for (auto* r : records) on += r->path() == paths.path[k];
    EXPECT_EQ(paths.records_on[k], on);
    total += paths.records_on[k];
  }
  EXPECT_EQ(total, 64);
  EXPECT_EQ(paths.of_n, 64);

  Burst many = random_burst(rng, 64, 8, 64, 64);
  records.clear();
  for (auto& r : many.records) records.push_back(&r);
  paths.find(records.data(), 64);
  EXPECT_FALSE(paths.listed) << "64 random paths of 8 hops over 64 slots: more than " << BurstPaths::kMax;
}

}  // namespace
}  // namespace nfv
