// Plan validation: every mistake named, and the simulator refusing an
// invalid plan.
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

SimSettings settings(double packet_bytes, double queue_packets) { return test::sim_settings(packet_bytes, queue_packets); }

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  for (const std::string& problem : problems)
    if (problem.find(text) != std::string::npos) return true;
  return false;
}

TEST(PlanValidation, AValidPlanHasNoProblems) {
  EXPECT_TRUE(plan_problems(one_pool(0, 3), two_sites(1000)).empty());
}

TEST(PlanValidation, NamesEveryMistake) {
  const Topology t = two_sites(1000);
  const Plan plan{{
      PoolPlan{0, 0, 0, -2, 0.5},   // negative instances
      PoolPlan{0, 0, 1, 1, 0.25},   // with the above: splits sum to 0.75
      PoolPlan{3, 0, 0, 1, 1.0},    // unknown chain
      PoolPlan{0, 4, 0, 1, 1.0},    // unknown hop
      PoolPlan{0, 0, 9, 1, 1.0},    // unknown site
      PoolPlan{0, 0, 1, 1, 0.0},    // listed twice
  }};
  const auto problems = plan_problems(plan, t);
  EXPECT_TRUE(mentions(problems, "chain 'web' hop 1 at site 'A': negative instances (-2)"));
  EXPECT_TRUE(mentions(problems, "chain 'web' hop 1: splits sum to 0.75"));
  EXPECT_TRUE(mentions(problems, "pools[2]: unknown chain 3 (the system has 1 chains)"));
  EXPECT_TRUE(mentions(problems, "pools[3]: chain 'web' has no hop 5 (it has 1)"));
  EXPECT_TRUE(mentions(problems, "pools[4]: unknown site 9 (the system has 2 sites)"));
  EXPECT_TRUE(mentions(problems, "pools[5]: chain 'web' hop 1 at site 'B' is listed twice"));
}

TEST(PlanValidation, RejectsMoreInstancesThanASiteHostsAndSplitsOutsideZeroToOne) {
  const auto problems = plan_problems(Plan{{PoolPlan{0, 0, 0, 17, 1.5}, PoolPlan{0, 0, 1, 0, -0.5}}}, two_sites(1000));
  EXPECT_TRUE(mentions(problems, "site 'A': 17 instances planned, capacity 16"));
  EXPECT_TRUE(mentions(problems, "split 1.5"));
  EXPECT_TRUE(mentions(problems, "split -0.5"));
}

TEST(PlanValidation, TheSimulatorRefusesAnInvalidPlanNamingTheProblem) {
  auto model = std::make_shared<const SystemModel>(two_sites(1000), settings(1000, 64));
  FluidSimulator sim(model);
  sim.reset(one_pool(0, 1));
  const double arrivals[] = {1};
  try {
    sim.step(one_pool(0, -1), arrivals);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("slot 0: invalid plan"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("negative instances"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace nfv
