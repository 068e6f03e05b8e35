// Calibration files, and the calibration a measured pod run gives.
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

TEST(Calibration, OverridesServiceRatesAndLinkDelays) {
  Topology t = two_sites(1000);
  const auto applied = apply_calibration(parse_calibration(R"(measured: bench on this machine
vnf_rates:
  - {vnf: fw, service_rate_pps: 2500}
link_delays:
  - {from: B, to: A, delay_ms: 12.5}
)", "cal.yaml"), t);
  EXPECT_EQ(applied.size(), 2u);
  EXPECT_DOUBLE_EQ(t.vnf_types[0].service_rate_pps, 2500);
  EXPECT_DOUBLE_EQ(t.links[0].delay_ms, 12.5);
  EXPECT_TRUE(t.links[0].delay_given);
}

TEST(Calibration, ErrorsNameTheFileLineAndField) {
  Topology t = two_sites(1000);
  try {
    apply_calibration(parse_calibration("vnf_rates:\n  - {vnf: fw, service_rate_pps: 1}\n  - {vnf: nat, service_rate_pps: 5}\n",
                                        "cal.yaml"),
                      t);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cal.yaml:3: vnf_rates[1].vnf"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no 'nat'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_calibration("vnf_rate: []\n", "cal.yaml"), std::runtime_error);
}

// A pod's stats with one hop of `vnf` at site A: its configured limit, and
// packets and busy cycles (TSC at 1 GHz) measured on one instance.
stats::PodStats pod_with_hop(const std::string& vnf, double limit, std::uint64_t packets, std::uint64_t busy_cycles) {
  stats::PodStats pod;
  pod.set_pod("p");
  pod.set_tsc_hz(1'000'000'000);
  auto* hop = pod.add_hops();
  hop->set_chain("web");
  hop->set_hop(1);
  hop->set_site("A");
  hop->set_vnf(vnf);
  hop->set_service_rate_pps(limit);
  hop->set_queue_packets(512);
  auto* instance = hop->add_instances();
  instance->set_in_packets(packets);
  instance->set_busy_cycles(busy_cycles);
  auto* link = pod.add_links();
  link->set_from_site("A");
  link->set_to_site("B");
  link->set_delay_ms(12.25);
  return pod;
}

TEST(PodCalibration, TakesTheConfiguredLimitOrTheCoresRateWhicheverIsLower) {
  // 100,000 packets in 50 ms of busy cycles: the core alone does 2 Mpps.
  const auto limited = calibrate_from_pods({pod_with_hop("fw", 2500, 100000, 50'000'000)});
  ASSERT_EQ(limited.calibration.vnf_rates_size(), 1);
  EXPECT_DOUBLE_EQ(limited.calibration.vnf_rates(0).service_rate_pps(), 2500);
  EXPECT_NE(limited.calibration.vnf_rates(0).derived().find("configured limit"), std::string::npos);
  // A limit above what the core manages: the core's rate.
  const auto core_bound = calibrate_from_pods({pod_with_hop("fw", 5e6, 100000, 50'000'000)});
  EXPECT_DOUBLE_EQ(core_bound.calibration.vnf_rates(0).service_rate_pps(), 2e6);
  // No limit and too few packets to time: left out, with a warning.
  const auto unmeasured = calibrate_from_pods({pod_with_hop("fw", 0, 10, 5000)});
  EXPECT_EQ(unmeasured.calibration.vnf_rates_size(), 0);
  ASSERT_EQ(unmeasured.warnings.size(), 1u);
  EXPECT_NE(unmeasured.warnings[0].find("too few packets"), std::string::npos) << unmeasured.warnings[0];
  EXPECT_THROW(calibrate_from_pods({}), std::invalid_argument);
}

TEST(PodCalibration, ItsFileReadsBackAndCalibratesTheTopology) {
  const auto result = calibrate_from_pods({pod_with_hop("fw", 2500, 100000, 50'000'000)});
  EXPECT_EQ(result.calibration.queue_packets_per_instance(), 512);
  Topology t = two_sites(1000);
  const LoadedCalibration loaded = parse_calibration(calibration_to_yaml(result.calibration), "cal.yaml");
  EXPECT_EQ(loaded.message.queue_packets_per_instance(), 512);
  apply_calibration(loaded, t);
  EXPECT_DOUBLE_EQ(t.vnf_types[0].service_rate_pps, 2500);
  EXPECT_DOUBLE_EQ(t.links[0].delay_ms, 12.25);
}

}  // namespace
}  // namespace nfv
