// The monitor's count-min sketch (vnfs/count_min_sketch.h): an estimate
// never undercounts, and items spread over the columns (a mapping that
// crowded them would make every estimate a sum of many flows).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "count_min_sketch.h"

namespace nfv {
namespace {

TEST(CountMinSketch, NeverUndercountsWhateverTheCollisions) {
  CountMinSketch sketch;
  sketch.init(64, 3);  // far fewer columns than flows: most estimates are inflated
  std::mt19937 random(7);
  std::vector<uint32_t> hashes(2000);
  std::vector<uint64_t> truth(hashes.size(), 0), last_estimate(hashes.size(), 0);
  for (auto& h : hashes) h = random();
  for (int packet = 0; packet < 50000; ++packet) {
    const std::size_t flow = random() % hashes.size();
    const uint64_t bytes = 64 + random() % 1400;
    truth[flow] += bytes;
    last_estimate[flow] = sketch.add(hashes[flow], bytes);
    ASSERT_GE(last_estimate[flow], truth[flow]) << "flow " << flow << " at packet " << packet;
  }
}

TEST(CountMinSketch, SpreadsItemsOverTheColumns) {
  // 1024 items, one count each, in 1024 columns x 4 rows: an item is counted
  // exactly unless it shares a column with another in all four rows, which
  // happens to about 16% of them when columns are uniform.
  CountMinSketch sketch;
  sketch.init(1024, 4);
  std::mt19937 random(11);
  std::vector<uint32_t> hashes(1024);
  for (auto& h : hashes) h = random();
  for (uint32_t h : hashes) sketch.add(h, 1);
  int exact = 0;
  for (uint32_t h : hashes) exact += sketch.add(h, 0) == 1;
  EXPECT_GE(exact, 700) << "of 1024 items, only " << exact << " counted exactly";
}

}  // namespace
}  // namespace nfv
