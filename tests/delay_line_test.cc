// The delay line: packets leave in due order, ties in arrival order.
#include <algorithm>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "delay_line.h"
#include "mbuf_pool_test.h"

namespace nfv {
namespace {

using namespace nfv::test;

class DelayLineTest : public MbufPoolTest {};

TEST_F(DelayLineTest, DelayLineReleasesInDueOrderAndKeepsTiesInArrivalOrder) {
  DelayLine line(1000);
  std::mt19937 rng(3);
  std::map<rte_mbuf*, int> arrival;
  std::vector<std::pair<uint64_t, int>> expected;
  for (int i = 0; i < 1000; ++i) {
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    arrival[m] = i;
    const uint64_t due = rng() % 50;  // many equal due times
    ASSERT_TRUE(line.push(due, m));
    expected.emplace_back(due, i);
  }
  EXPECT_FALSE(line.push(0, nullptr)) << "full";
  std::stable_sort(expected.begin(), expected.end(), [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<int> released;
  rte_mbuf* out[64];
  for (uint64_t now = 0; now < 50; ++now) {
    const auto due_now = std::count_if(expected.begin(), expected.end(), [&](auto& e) { return e.first == now; });
    long got = 0;
    uint16_t n;
    while ((n = line.pop_due(now, out, 64)) > 0) {
      got += n;
      for (uint16_t i = 0; i < n; ++i) released.push_back(arrival[out[i]]);
      rte_pktmbuf_free_bulk(out, n);
    }
    EXPECT_EQ(got, due_now) << "at " << now;
  }
  ASSERT_EQ(released.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(released[k], expected[k].second) << k;
}

}  // namespace
}  // namespace nfv
