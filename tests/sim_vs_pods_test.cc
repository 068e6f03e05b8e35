// The simulator against the real data plane: one short real trace (a day of
// Abilene, one row every 2 hours) goes through nfv-replay -> 3 pods (NYCM,
// CHIN, KSCY over memif, WAN delays emulated) -> sink, and through nfv-sim
// under the same fixed plan, calibrated from those pods' own counters with
// nfv-calibrate. Per slot and chain the traffic served agrees within 5%, and
// both drop in the same slots. The plan leaves the first hop of each chain
// short of capacity in some slots (the trace's daytime peaks) and not in
// others, so the test fails if either side serves, queues or drops wrongly.
//
// The sink counts a packet in the slot it was sent in, the simulator in the
// slot it is delivered in: the simulator's figure is moved onto the pods'
// footing with its backlogs (what a slot leaves queued is its own traffic,
// delivered in the next). A slot in which the host held the generator back
// (it then catches up with a burst the trace does not have) is shown and not
// compared; one such slot is tolerated. nfv-scaler (shadow, static) measures
// the pods on the replay's slot clock: per slot and chain its late packets
// and p99 latency agree with the simulator's.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "abilene_pods.h"
#include "journal.h"
#include "pod_runner.h"
#include "rate_trace.h"
#include "replay_runner.h"

namespace nfv::test {
namespace {

// Two real series of the Abilene April block, named after demo3's chains.
constexpr const char* kVideoSeries = "NYCMng->IPLSng";
constexpr const char* kCallsSeries = "CHINng->NYCMng";
constexpr std::size_t kRowStride = 24;  // 24 x 5 min: a row every 2 hours
constexpr std::size_t kSlots = 12;      // one day
// Mbit/s -> packets/s: 1e6 / 8 / 128 B x 0.29696 = 290 packets/s per Mbit/s.
constexpr double kPacketBytes = 128;
constexpr double kVolumeScale = 0.29696;
// The plan: counter instances serve 10,000 packets/s, forward 20,000; the
// first hops (2 counters for video, 1 for calls) are the bottlenecks.
constexpr double kCounterRate = 10000, kForwardRate = 20000;
constexpr int kQueue = 256;
// The chains' SLA here: a full first-hop queue (256 / 10,000 packets/s =
// 25.6 ms) plus the path (13 ms) is over it, the path alone is not.
// Normally the generator builds each packet within tens of microseconds of
// its due time, and a few milliseconds behind now and then (a shared VM);
// 15 ms behind is a burst of 110-470 packets per chain here, about as much
// as the first hop's queues hold.
constexpr double kGeneratorHeldBackMs = 15;
constexpr int kControlBase = 17960;  // the pods' control APIs

RateTrace day_of_abilene() {
  const RateTraceFile file = load_abilene_traffic(shared_data("traffic/abilene/abilene_tm_5min_mbps.csv"));
  const RateTrace& april = file.blocks.at(1);
  RateTrace day;
  day.label = "Abilene April, " + std::string(kVideoSeries) + " as video, " + kCallsSeries + " as calls, every 2 h";
  day.step_seconds = april.step_seconds * kRowStride;
  day.start_unix_s = april.start_unix_s;
  day.unit = april.unit;
  day.columns = {"video", "calls"};
  const std::size_t video = april.column_index(kVideoSeries), calls = april.column_index(kCallsSeries);
  for (std::size_t slot = 0; slot < kSlots; ++slot) {
    day.values.push_back(april.at(slot * kRowStride, video));
    day.values.push_back(april.at(slot * kRowStride, calls));
  }
  return day;
}

// The chains every pod runs (demo3's, with the plan's hops).
std::string plan_chains() {
  const std::string hop = ", queue_packets: " + std::to_string(kQueue) + ", service_rate_pps: ";
  const std::string counter = hop + std::to_string(static_cast<int>(kCounterRate)) + "}";
  const std::string forward = hop + std::to_string(static_cast<int>(kForwardRate)) + "}";
  return R"(chains:
  - name: video
    id: 100
    ingress_site: NYCMng
    egress_site: KSCYng
    egress_port: out
    ingress_ports: [in]
    match: [{dst_prefix: 10.1.0.0/16, protocol: udp}]
    sla_ms: 30
    hops:
      - {vnf: counter, site: NYCMng, instances: 2)" + counter + R"(
      - {vnf: forward, site: CHINng, instances: 2)" + forward + R"(
      - {vnf: counter, site: KSCYng, instances: 3)" + counter + R"(
  - name: calls
    id: 200
    ingress_site: NYCMng
    egress_site: KSCYng
    egress_port: out
    ingress_ports: [in]
    match: [{dst_prefix: 10.2.0.0/16, protocol: udp}]
    sla_ms: 30
    hops:
      - {vnf: counter, site: NYCMng, instances: 1)" + counter + R"(
      - {vnf: counter, site: CHINng, instances: 2)" + counter + R"(
)";
}

// The same plan for nfv-sim (proto/plan.proto).
constexpr const char* kPlan = R"(pools:
  - {chain: video, hop: 1, site: NYCMng, instances: 2}
  - {chain: video, hop: 2, site: CHINng, instances: 2}
  - {chain: video, hop: 3, site: KSCYng, instances: 3}
  - {chain: calls, hop: 1, site: NYCMng, instances: 1}
  - {chain: calls, hop: 2, site: CHINng, instances: 2}
)";

double number(const CsvRow& row, const std::string& column) {
  const auto it = row.find(column);
  if (it == row.end()) throw std::runtime_error("no column " + column);
  return std::stod(it->second);
}

TEST(SimulatorAgainstPods, ServesTheSameTrafficPerSlotAndDropsInTheSameSlots) {
  const std::string dir = make_temp_dir("sim_vs_pods");
  write_file(dir + "/trace.csv", rate_trace_to_csv(day_of_abilene()));

  // --- The real run: replay -> NYCM -> CHIN -> KSCY -> sink ---------------
  const std::string replay_yaml = memif_replay_yaml("svp_replay", dir, "{csv: " + dir + "/trace.csv}", R"(  scale: {slot_wall_seconds: 1, volume_scale: )" + std::to_string(kVolumeScale) + R"(}
  packet_sizes: [{bytes: )" + std::to_string(static_cast<int>(kPacketBytes)) + R"(, weight: 1}]
  flows: 1024
  zipf_exponent: 0
  chains:
    - {column: video, dst_prefix: 10.1.0.0/16}
    - {column: calls, dst_prefix: 10.2.0.0/16}
)");
  const std::vector<std::string> stop{"--stop-when-idle-ms", "60000"};
  // Downstream first; the pods wait for their memif peers.
  AbilenePods pods = start_abilene_pods(dir, "svp_", plan_chains(), stop, kControlBase);
  // demo3 with an SLA of 30 ms: a slot whose first hop keeps its queue full
  // (25.6 ms of wait) delivers late, one that does not delivers in time.
  std::string demo3 = read_file(NFV_SOURCE_ROOT "/topologies/data/demo3.yaml");
  for (std::size_t at; (at = demo3.find("sla_latency_ms: 50")) != std::string::npos;) demo3.replace(at, 18, "sla_latency_ms: 30");
  write_file(dir + "/demo3.yaml", demo3);
  // nfv-scaler in shadow mode measures every slot from the pods' telemetry
  // (late packets, the slot's own p99) on the replay's slot clock, which
  // starts 2 s after the replay's links are up: on a loaded host the last
  // pod may start forwarding late.
  write_file(dir + "/plan.yaml", kPlan);
  write_file(dir + "/scaler.yaml", "name: svp\ntopology: " + dir + "/demo3.yaml\nbackend: pods\n"
             "slot_seconds: 1\npacket_bytes: " + std::to_string(kPacketBytes) + "\nslots: " + std::to_string(kSlots) +
             "\nshadow: true\njournal: " + dir + "/journal.jsonl\npolicy: {name: static, params: {plan: " + dir +
             "/plan.yaml}}\npods:\n"
             "  - {name: nycm, control: '127.0.0.1:" + std::to_string(kControlBase) + "', token: t, sites: [NYCMng]}\n"
             "  - {name: chin, control: '127.0.0.1:" + std::to_string(kControlBase + 1) + "', token: t, sites: [CHINng]}\n"
             "  - {name: kscy, control: '127.0.0.1:" + std::to_string(kControlBase + 2) + "', token: t, sites: [KSCYng]}\n");
  ReplayRun replay = start_replay(dir, "svp_replay", replay_yaml, "1",
                                  {"--quiet", "--lead-ms", "2000", "--start-file", dir + "/slot-clock"});
  Subprocess scaler({std::getenv("NFV_SCALER"), "--config", dir + "/scaler.yaml", "--start-at-file", dir + "/slot-clock", "--quiet"},
                    dir + "/scaler.out", dir + "/scaler.err");
  ASSERT_EQ(replay.process->wait(std::chrono::seconds(90)), 0) << replay.logs() << pods.nycm.logs();
  ASSERT_EQ(scaler.wait(std::chrono::seconds(30)), 0) << read_file(dir + "/scaler.out") << read_file(dir + "/scaler.err");
  for (PodRun* pod : pods.all()) pod->process->signal(SIGINT);
  for (PodRun* pod : pods.all()) {
    ASSERT_EQ(pod->wait(), 0) << pod->logs();
    EXPECT_EQ(pod->stats().mempool_in_use_after_close(), 0) << pod->name;
  }

  // --- Calibration from the pods' counters ---------------------------------
  const CommandResult calibrate =
      run_command(std::string(std::getenv("NFV_CALIBRATE")) + " --output " + dir + "/calibration.yaml " +
                  pods.nycm.stats_path() + " " + pods.chin.stats_path() + " " + pods.kscy.stats_path() + " 2>&1");
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.output;
  const std::string calibration = read_file(dir + "/calibration.yaml");
  EXPECT_NE(calibration.find("{vnf: \"counter\", service_rate_pps: 10000,"), std::string::npos) << calibration;
  EXPECT_NE(calibration.find("{vnf: \"forward\", service_rate_pps: 20000,"), std::string::npos) << calibration;
  EXPECT_NE(calibration.find("queue_packets_per_instance: " + std::to_string(kQueue)), std::string::npos) << calibration;
  const auto nycm_stats = pods.nycm.stats();
  for (const auto& link : nycm_stats.links()) {
    char delay[64];
    std::snprintf(delay, sizeof delay, "delay_ms: %.6g}", link.delay_ms());
    EXPECT_NE(calibration.find(delay), std::string::npos) << link.name() << "\n" << calibration;
  }

  // --- The simulator on the same trace and plan ---------------------------
  const std::string sim_command = std::string(std::getenv("NFV_SIM")) + " --topology " + dir +
                                  "/demo3.yaml --trace " + dir + "/trace.csv --policy static --param plan=" +
                                  dir + "/plan.yaml --calibration " + dir + "/calibration.yaml --slot-seconds 1 --packet-bytes " +
                                  std::to_string(kPacketBytes) + " --volume-scale " + std::to_string(kVolumeScale) +
                                  " --chain-csv " + dir + "/sim.csv --quiet 2>&1";
  const CommandResult sim = run_command(sim_command);
  ASSERT_EQ(sim.exit_code, 0) << sim_command << "\n" << sim.output;
  EXPECT_NE(sim.output.find("calibrated VNF counter: 500000 -> 10000"), std::string::npos) << sim.output;

  // --- Slot by slot ------------------------------------------------------------
  std::map<std::pair<int, std::string>, CsvRow> real, simulated;
  for (const CsvRow& row : read_slot_csv(replay.csv()).rows) real[{std::stoi(row.at("slot")), row.at("chain")}] = row;
  for (const CsvRow& row : read_csv_rows(dir + "/sim.csv")) simulated[{std::stoi(row.at("slot")), row.at("chain")}] = row;
  ASSERT_EQ(real.size(), 2 * kSlots) << read_file(replay.csv());
  ASSERT_EQ(simulated.size(), 2 * kSlots) << read_file(dir + "/sim.csv");
  int both_drop = 0, neither_drops = 0;
  std::set<int> held_back_slots;
  std::string table = "slot chain   target  pods-served  sim-served  pods-lost  sim-dropped  generator-behind-ms\n";
  for (const auto& [key, pods] : real) {
    const CsvRow& sim_row = simulated.at(key);
    const double sent = number(pods, "sent"), served = number(pods, "received"), lost = number(pods, "lost");
    const double backlog_before = key.first > 0 ? number(simulated.at({key.first - 1, key.second}), "backlog_packets") : 0;
    const double arrived = number(sim_row, "arrived_packets"), dropped = number(sim_row, "dropped_packets"),
                 delivered = number(sim_row, "delivered_packets") - backlog_before + number(sim_row, "backlog_packets");
    const double behind_ms = number(pods, "behind_max_ms");
    char line[160];
    std::snprintf(line, sizeof line, "%4d %-6s %7.0f %12.0f %11.0f %10.0f %12.0f %20.3f\n", key.first, key.second.c_str(),
                  number(pods, "target_pps"), served, delivered, lost, dropped, behind_ms);
    table += line;
    const std::string where = "slot " + std::to_string(key.first) + " chain " + key.second;
    if (behind_ms > kGeneratorHeldBackMs) {
      held_back_slots.insert(key.first);
      continue;
    }
    // The generator hits the trace's rate, which is what the simulator offers.
    EXPECT_NEAR(sent, arrived, 0.02 * arrived) << where;
    // Slot 0 starts with every pod's queues, caches and memif rings cold:
    // its first hop may start up to 100 ms of service late.
    const double cold_start = key.first == 0 ? 0.1 * delivered : 0;
    EXPECT_LE(served, delivered + 0.05 * delivered) << where;
    EXPECT_GE(served, delivered - 0.05 * delivered - cold_start) << where;
    // A slot drops when more than 1% of its packets are lost: a short burst
    // on a shared core must not count, a short-provisioned hop (>= 6% over
    // in this trace, less the queue) must.
    const bool pods_drop = lost > 0.01 * sent, sim_drops = dropped > 0.01 * arrived;
    EXPECT_EQ(pods_drop, sim_drops) << where;
    both_drop += pods_drop && sim_drops;
    neither_drops += !pods_drop && !sim_drops;
  }
  std::printf("%s", table.c_str());

  // Late packets and the slot's own p99, as the scaler measures them on the
  // pods (the egress pod's late count and latency histogram, per slot) and
  // as the simulator models them (propagation, the backlog's wait, an
  // M/M/1 sojourn).
  const auto journal = Journal::read(dir + "/journal.jsonl");
  ASSERT_EQ(journal.size(), kSlots) << read_file(dir + "/scaler.out");
  std::string latency = "slot chain   pods-late  sim-late  pods-p99-ms  sim-p99-ms\n";
  int mostly_late = 0, in_time = 0;
  for (const auto& entry : journal)
    for (const auto& chain : entry.chains()) {
      const int slot = static_cast<int>(entry.slot());
      const CsvRow& sim_row = simulated.at({slot, chain.chain()});
      const double sim_late = number(sim_row, "late_packets"), sim_p99 = number(sim_row, "p99_latency_ms");
      char line[160];
      std::snprintf(line, sizeof line, "%4d %-6s %10.0f %9.0f %12.2f %11.2f\n", slot, chain.chain().c_str(), chain.late(),
                    sim_late, chain.p99_ms(), sim_p99);
      latency += line;
      // Slot 0 starts with every pod's queues, caches and memif rings cold.
      if (slot == 0 || held_back_slots.count(slot)) continue;
      const std::string where = "slot " + std::to_string(slot) + " chain " + chain.chain();
      const double delivered = chain.delivered();
      // The late share within 12% of the slot's packets: the fluid model
      // times the queue's fill and drain per slot, not per packet.
      EXPECT_NEAR(chain.late(), sim_late, 0.12 * delivered + 50) << where;
      // p99 within 7 ms or 20%: the simulator's M/M/1 sojourn is
      // conservative for the replay's paced flows (a few ms at 75% load).
      EXPECT_NEAR(chain.p99_ms(), sim_p99, std::max(7.0, 0.2 * chain.p99_ms())) << where;
      mostly_late += chain.late() > 0.5 * delivered;
      in_time += chain.late() < 0.05 * delivered;
    }
  std::printf("%s", latency.c_str());
  // The trace and plan make both happen: slots whose first hop holds a full
  // queue (25.6 ms behind it, over the 30 ms SLA) and slots without one.
  EXPECT_GE(mostly_late, 6) << latency;
  EXPECT_GE(in_time, 6) << latency;
  // A busy host holds the generator back in some slots (they are left out
  // above); past a third of them there is too little left to compare.
  EXPECT_LE(held_back_slots.size(), kSlots / 3) << "the host held the generator back in " << held_back_slots.size()
                                        << " slots: too busy to compare\n" << table;
  // The trace and plan were chosen so that both cases happen.
  EXPECT_GE(both_drop, 6) << table;
  EXPECT_GE(neither_drops, 6) << table;
}

}  // namespace
}  // namespace nfv::test
