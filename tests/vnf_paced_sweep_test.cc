// The time-paced expiry sweep of nat, lb and monitor (vnfs/paced_sweep.h):
// positions come due with time, not with calls.
#include <gtest/gtest.h>

#include <vector>

#include "paced_sweep.h"

namespace nfv {
namespace {

// Runs the sweep at `now` and returns the positions it visited.
std::vector<uint32_t> visit_at(PacedSweep& sweep, uint64_t now) {
  std::vector<uint32_t> visited;
  sweep.run(now, [&](uint32_t pos) { visited.push_back(pos); });
  return visited;
}

TEST(PacedSweep, CoversTheTableOncePerPeriodHoweverOftenItIsCalled) {
  PacedSweep sweep;
  sweep.init(100, 1000, 0);  // one position per 10 ticks
  std::vector<uint32_t> visits(100, 0);
  uint64_t calls_with_work = 0;
  for (uint64_t now = 0; now < 1000; ++now) {  // a call every tick: most find nothing due
    const auto visited = visit_at(sweep, now);
    calls_with_work += !visited.empty();
    for (uint32_t pos : visited) visits[pos]++;
  }
  EXPECT_EQ(calls_with_work, 99u) << "one position comes due every 10 ticks";
  for (uint32_t pos = 0; pos < 99; ++pos) EXPECT_EQ(visits[pos], 1u) << "position " << pos;
  EXPECT_EQ(visit_at(sweep, 1000), std::vector<uint32_t>{99});
  EXPECT_EQ(visit_at(sweep, 1010), std::vector<uint32_t>{0}) << "the next pass starts over";
}

TEST(PacedSweep, PaysAPauseBackAtMostOnePassAndAFewPositionsPerCall) {
  PacedSweep sweep;
  sweep.init(1000, 1000, 0);  // one position per tick
  // Idle for ten periods: one pass is owed, in calls of kMaxPerCall.
  std::vector<uint32_t> visits(1000, 0);
  uint64_t calls = 0;
  bool caught_up = false;
  for (uint64_t now = 10'000; calls < 1000 && !caught_up; ++now, ++calls) {
    const auto visited = visit_at(sweep, now);
    ASSERT_LE(visited.size(), PacedSweep::kMaxPerCall);
    for (uint32_t pos : visited) visits[pos]++;
    caught_up = visited.size() <= 1;  // what comes due now is the pace's
  }
  ASSERT_TRUE(caught_up) << "still paying the pause back after 1,000 calls";
  for (uint32_t pos = 0; pos < 1000; ++pos) EXPECT_GE(visits[pos], 1u) << "position " << pos;
  EXPECT_LT(calls, 1000u / PacedSweep::kMaxPerCall + 20) << "the rest of the pause is forgiven";
}

TEST(PacedSweep, NothingBeforeInit) {
  PacedSweep sweep;
  EXPECT_TRUE(visit_at(sweep, UINT64_MAX - 1).empty());
}

}  // namespace
}  // namespace nfv
