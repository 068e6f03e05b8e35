// The threshold policy: Kubernetes HPA semantics per instance pool.
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

using test::one_pool;
using test::two_sites;

Observation observed(std::int32_t instances, double utilisation) {
  Observation obs;
  obs.plan = one_pool(0, instances);
  obs.pools.push_back(PoolLoad{0, 0, 0, instances, utilisation * instances * 100, 0, 0, utilisation, 0});
  return obs;
}

TEST(ThresholdPolicy, FollowsKubernetesHpaSemantics) {
  // 100 pkt/s per instance, target 0.5, tolerance 0.1, scale-down window 3
  // slots, at most +4 / -1 per slot, 1..10 instances.
  ThresholdSettings settings{0.5, 0.1, 3, 4, 1, 1, 10};
  auto policy = make_threshold_policy(two_sites(100), settings);
  const Forecast none;
  auto decide = [&](std::int32_t current, double utilisation) {
    return policy->decide(observed(current, utilisation), none).pools.at(0).instances;
  };
  EXPECT_EQ(decide(2, 0.9), 4);    // ceil(2 x 0.9 / 0.5) = ceil(3.6) = 4
  EXPECT_EQ(decide(4, 0.53), 4);   // 0.53 / 0.5 = 1.06: inside the 0.1 tolerance
  EXPECT_EQ(decide(4, 0.2), 4);    // wants ceil(1.6) = 2, but 4 was recommended in the window
  EXPECT_EQ(decide(4, 0.2), 4);    // window: 4 (tolerance slot), 2, 2
  EXPECT_EQ(decide(4, 0.2), 3);    // window: 2, 2, 2 -> down, at most 1 per slot
  EXPECT_EQ(decide(3, 0.8 / 3), 2);  // ceil(3 x 0.267 / 0.5) = ceil(1.6) = 2
  EXPECT_EQ(decide(2, 5.0), 6);    // wants 20: capped at max 10, then +4 per slot
  EXPECT_EQ(decide(10, 0.01), 10); // the recommendation of 10 two slots ago is still in the window
  policy->reset();
  EXPECT_EQ(decide(10, 0.01), 9);  // no history after reset: down 1
}

TEST(ThresholdPolicy, SizesAnEmptyPoolForItsLoadAndStaysWithinTheSite) {
  ThresholdSettings settings{0.5, 0.1, 1, 100, 1, 0, 100};
  auto policy = make_threshold_policy(two_sites(100), settings);
  Observation obs;
  obs.plan = one_pool(0, 0);
  obs.pools.push_back(PoolLoad{0, 0, 0, 0, 450, 0, 0, INFINITY, 0});
  EXPECT_EQ(policy->decide(obs, Forecast{}).pools[0].instances, 9);  // 450 / (100 x 0.5)
  obs.pools[0].offered_pps = 5000;                                   // would need 100
  EXPECT_EQ(policy->decide(obs, Forecast{}).pools[0].instances, 16);  // site A hosts 16
}

}  // namespace
}  // namespace nfv
