// The monitor's count-min sketch (vnfs/count_min_sketch.h): every column
// lies inside its row whatever the width, and the rows hash independently,
// so that an item is counted exactly unless it collides in every row.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "count_min_sketch.h"

namespace nfv {
namespace {

TEST(CountMinSketch, ColumnsLieInsideTheirRowForAnyWidth) {
  std::mt19937 random(3);
  std::vector<uint32_t> hashes = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
  for (int i = 0; i < 2000; ++i) hashes.push_back(random());
  for (uint32_t width : {1u, 3u, 61u, 1000u, 4096u, (1u << 24) - 1}) {
    CountMinSketch sketch;
    sketch.init(width, 1);  // columns of every row are asked for; one row of counters is enough
    for (uint32_t h : hashes)
      for (uint32_t row = 0; row < CountMinSketch::kMaxDepth; ++row)
        ASSERT_LT(sketch.column(h, row), width) << "hash " << h << " row " << row;
  }
}

// 1000 items, one count each, in 1000 columns x 4 rows. With independent
// rows an item shares its column with another in one row with probability
// about 1 - 1/e, in all four with about 0.16: some 840 are counted
// exactly. Rows that agree on collisions count one row's share, about 370.
TEST(CountMinSketch, RowsCollideIndependently) {
  for (uint32_t width : {1000u, 1024u}) {
    CountMinSketch sketch;
    sketch.init(width, 4);
    std::mt19937 random(11);
    std::vector<uint32_t> hashes(width);
    for (auto& h : hashes) h = random();
    for (uint32_t h : hashes) sketch.add(h, 1);
    int exact = 0;
    for (uint32_t h : hashes) {
      ASSERT_EQ(sketch.estimate(h), sketch.add(h, 0)) << "estimate() reads what add() returns";
      exact += sketch.estimate(h) == 1;
    }
    EXPECT_GE(exact, static_cast<int>(width * 7 / 10)) << "width " << width << ": of " << width << " items, only " << exact
                                                       << " counted exactly";
    // The same pairs colliding row after row: how often two items that
    // share row 0's column also share row 1's (independent rows: 1/width).
    int both = 0, first = 0;
    for (std::size_t i = 0; i < hashes.size(); ++i)
      for (std::size_t j = i + 1; j < hashes.size(); ++j)
        if (sketch.column(hashes[i], 0) == sketch.column(hashes[j], 0)) {
          ++first;
          both += sketch.column(hashes[i], 1) == sketch.column(hashes[j], 1);
        }
    EXPECT_LE(both, first / 20 + 2) << "width " << width << ": " << both << " of " << first
                                     << " pairs colliding in row 0 collide in row 1 too";
  }
}

}  // namespace
}  // namespace nfv
