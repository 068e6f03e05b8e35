// The service-rate token bucket: an idle instance saves up at most 1 ms of
// work; a backlogged one serves its rate over time even when the worker that
// runs it is off the CPU now and then, as happens when pods share cores.
#include <gtest/gtest.h>

#include <cstdint>

#include "token_bucket.h"

namespace nfv {
namespace {

constexpr uint64_t kHz = 1'000'000'000;  // one tick a nanosecond
constexpr uint64_t kMs = kHz / 1000;
constexpr double kRate = 10'000;         // packets/s: depth max(32, 10) = 32

// Serves a queue that never empties for one second, polled every 20 us, with
// the worker away for `gap_ms` every 50 ms. Returns the packets served.
uint64_t serve_backlog_for_a_second(uint64_t gap_ms) {
  TokenBucket bucket(kRate, kHz, 32);
  uint64_t served = 0;
  for (uint64_t now = 1; now <= 1000 * kMs;) {
    const uint32_t n = bucket.available(now, 32);
    bucket.consume(n, /*left_waiting=*/true);
    served += n;
    const bool away = gap_ms && now % (50 * kMs) < 20'000;
    now += away ? gap_ms * kMs : 20'000;
  }
  return served;
}

TEST(TokenBucket, AnIdleInstanceSavesUpOnlyItsDepth) {
  TokenBucket bucket(kRate, kHz, 32);
  EXPECT_EQ(bucket.available(1, 1000), 32u);
  bucket.consume(32, /*left_waiting=*/false);
  EXPECT_EQ(bucket.available(1 + 100 * kMs, 1000), 32u) << "100 ms idle still gives one depth";
  bucket.consume(10, false);
  EXPECT_EQ(bucket.available(1 + 100 * kMs, 1000), 22u);
}

TEST(TokenBucket, ABackloggedInstanceKeepsTheTimeItWasNotRun) {
  TokenBucket bucket(kRate, kHz, 32);
  bucket.consume(bucket.available(1, 32), /*left_waiting=*/true);
  // The worker is away 60 ms while packets wait: 600 packets of work are due.
  const uint32_t due = bucket.available(1 + 60 * kMs, 1000);
  EXPECT_EQ(due, 600u);
  bucket.consume(500, /*left_waiting=*/true);
  EXPECT_EQ(bucket.available(1 + 60 * kMs, 1000), 100u);
  // The queue empties: what is left shrinks to the depth.
  bucket.consume(50, /*left_waiting=*/false);
  EXPECT_EQ(bucket.available(1 + 60 * kMs, 1000), 32u);
}

TEST(TokenBucket, ServesItsRateWhetherOrNotTheWorkerIsInterrupted) {
  const uint64_t steady = serve_backlog_for_a_second(0);
  EXPECT_NEAR(static_cast<double>(steady), kRate, 40);
  // Away 5 ms in every 50: 10% of the time, far past the 1 ms depth.
  EXPECT_NEAR(static_cast<double>(serve_backlog_for_a_second(5)), static_cast<double>(steady), 40);
}

TEST(TokenBucket, RateZeroIsUnlimited) {
  TokenBucket bucket(0, kHz, 32);
  EXPECT_TRUE(bucket.unlimited());
  EXPECT_EQ(bucket.available(1, 4096), 4096u);
}

}  // namespace
}  // namespace nfv
