// A test suite with a mempool of its own, made before the suite's first
// test and freed after its last; a test that leaves an mbuf out fails.
#pragma once

#include <gtest/gtest.h>
#include <rte_mempool.h>

#include "packet_builder.h"

namespace nfv::test {

class MbufPoolTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = test_pool("mbuf_pool_test", 65535); }
  static void TearDownTestSuite() { rte_mempool_free(pool_); }
  void TearDown() override { EXPECT_EQ(rte_mempool_in_use_count(pool_), 0) << "mbuf leak in the test"; }

  inline static rte_mempool* pool_ = nullptr;
};

}  // namespace nfv::test
