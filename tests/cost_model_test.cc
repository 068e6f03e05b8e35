// The one cost model: its four terms at the topology's prices.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "calibration.h"
#include "cost_model.h"
#include "episode.h"
#include "scaler_cases.h"
#include "plan.h"
#include "plan_file.h"
#include "pod_calibration.h"
#include "policy.h"
#include "rate_trace.h"
#include "simulator.h"
#include "topology.h"

namespace nfv {
namespace {

using test::two_sites;

TEST(CostModel, AddsTheFourTermsAtTheTopologysPrices) {
  // Prices: A operating 2, deploying 7; B operating 3, deploying 11; link 0.05/GB;
  // SLA 10 per GB at 1000-B packets.
  // operating  = 2 x 2 (A) + 3 x 1 (B)        = 7
  // deployment = 7 x 1 (A) + 11 x 0 (B)       = 7
  // wan        = 0.05 x 4e9 B / 1e9           = 0.2
  // sla        = 10 x (1e6 + 5e5) x 1000 B / 1e9 = 15
  // total      = 29.2
  const Topology t = two_sites(1000);
  const CostModel model(t, SlaPenalty{SlaPenalty::Basis::per_gb, 10}, 1000);
  SlotUsage usage{{2, 1}, {1, 0}, {4e9}, 1e6, 5e5};
  const CostBreakdown cost = model.slot_cost(usage);
  EXPECT_DOUBLE_EQ(cost.operating, 7);
  EXPECT_DOUBLE_EQ(cost.deployment, 7);
  EXPECT_DOUBLE_EQ(cost.wan, 0.2);
  EXPECT_DOUBLE_EQ(cost.sla_penalty, 15);
  EXPECT_DOUBLE_EQ(cost.total(), 29.2);
  // Per packet: 1e-5 x 1.5e6 packets = 15, the same.
  const CostModel per_packet(t, SlaPenalty{SlaPenalty::Basis::per_packet, 1e-5}, 1000);
  EXPECT_DOUBLE_EQ(per_packet.slot_cost(usage).sla_penalty, 15);
}

TEST(CostModel, RejectsUsageOfAnotherTopology) {
  const CostModel model(two_sites(1000), SlaPenalty{}, 1000);
  EXPECT_THROW(model.slot_cost(SlotUsage{{1}, {0}, {0}, 0, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace nfv
