// Plan files: names, splits in proportion to instances, errors that name
// the file, line and field.
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

TEST(PlanFile, ReadsNamesAndSplitsInProportionToInstancesByDefault) {
  Topology t = two_sites(1000);
  const Plan plan = parse_plan_file("pools:\n  - {chain: web, hop: 1, site: A, instances: 3}\n"
                                    "  - {chain: web, hop: 1, site: B, instances: 1}\n",
                                    "plan.yaml", t);
  ASSERT_EQ(plan.pools.size(), 2u);
  EXPECT_EQ(plan.pools[0].site, 0u);
  EXPECT_EQ(plan.pools[0].hop, 0u);
  EXPECT_EQ(plan.pools[0].instances, 3);
  EXPECT_DOUBLE_EQ(plan.pools[0].split, 0.75);
  EXPECT_DOUBLE_EQ(plan.pools[1].split, 0.25);
  const Plan given = parse_plan_file("pools:\n  - {chain: web, hop: 1, site: A, instances: 3, split: 0.5}\n"
                                     "  - {chain: web, hop: 1, site: B, instances: 1, split: 0.5}\n",
                                     "plan.yaml", t);
  EXPECT_DOUBLE_EQ(given.pools[0].split, 0.5);
}

TEST(PlanFile, ErrorsNameTheFileLineAndField) {
  Topology t = two_sites(1000);
  const auto error_of = [&](const std::string& text) {
    try {
      parse_plan_file(text, "plan.yaml", t);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 1, site: A, instances: 1}\n  - {chain: mail, hop: 1, site: A}\n")
                .find("plan.yaml:3: pools[1].chain"),
            std::string::npos);
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 2, site: A, instances: 1}\n").find("pools[0].hop: expected a hop of chain web, 1..1"),
            std::string::npos)
      << error_of("pools:\n  - {chain: web, hop: 2, site: A, instances: 1}\n");
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 1, site: Z, instances: 1}\n").find("pools[0].site"), std::string::npos);
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 1, site: A, instances: -1}\n").find("pools[0].instances"),
            std::string::npos);
  // Valid names, but the splits of the hop add up to 0.6.
  EXPECT_NE(error_of("pools:\n  - {chain: web, hop: 1, site: A, instances: 1, split: 0.6}\n").find("plan.yaml: the plan is not valid"),
            std::string::npos);
  EXPECT_NE(error_of("pool: []\n").find("plan.yaml:1"), std::string::npos) << error_of("pool: []\n");
}

}  // namespace
}  // namespace nfv
