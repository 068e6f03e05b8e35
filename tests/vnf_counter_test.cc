// The counter VNF: each flow counted once, even within one burst; bad params
// are refused by name.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "mbuf_pool_test.h"
#include "packet_builder.h"
#include "vnf.h"

namespace nfv {
namespace {

using namespace nfv::test;

class CounterVnfTest : public MbufPoolTest {};

TEST_F(CounterVnfTest, CounterVnfCountsEachFlowOnceEvenWithinOneBurst) {
  auto vnf = VnfRegistry::instance().create("counter");
  VnfSettings settings;
  settings.params["flows"] = "128";
  vnf->init(settings);
  rte_mbuf* burst[32];
  for (int i = 0; i < 32; ++i)
    burst[i] = to_mbuf(pool_, concat({ethernet(0x0800), ipv4("10.0.0.1", "10.0.0.2", 17, 8), udp(static_cast<uint16_t>(i % 3), 53, 0)}));
  rte_mbuf* dropped[32];
  uint16_t n_dropped = 0;
  EXPECT_EQ(vnf->process(burst, 32, dropped, &n_dropped), 32);
  EXPECT_EQ(n_dropped, 0);
  std::map<std::string, uint64_t> counters;
  vnf->visit_counters([&](const std::string& name, uint64_t v) { counters[name] = v; });
  EXPECT_EQ(counters["flows"], 3u);
  EXPECT_EQ(counters["ip_packets"], 32u);
  rte_pktmbuf_free_bulk(burst, 32);

  settings.params["flows"] = "lots";
  EXPECT_THROW(VnfRegistry::instance().create("counter")->init(settings), VnfConfigError);
  settings.params = {{"flowz", "8"}};
  EXPECT_THROW(VnfRegistry::instance().create("counter")->init(settings), VnfConfigError);
}

}  // namespace
}  // namespace nfv
