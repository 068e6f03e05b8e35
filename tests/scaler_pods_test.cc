// The whole loop on real processes: nfv-replay drives 36 slots of a
// time-compressed real Abilene trace (April, one row every 30 minutes: 18
// hours) through three pods (NYCMng, CHINng, KSCYng over memif), and
// nfv-scaler with the online policy resizes the pods' instance pools every
// 1-s slot through their control APIs. Drops stay within 1% of the packets,
// the instance counts follow the traffic, and a policy switch
// (`nfvctl policy set threshold`) shows in the journal within one slot while
// the pods keep forwarding.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <map>
#include <thread>

#include "abilene_pods.h"
#include "journal.h"
#include "pod_runner.h"
#include "rate_trace.h"
#include "replay_runner.h"

namespace nfv::test {
namespace {

constexpr std::size_t kSlots = 36;
constexpr std::size_t kRowStride = 6;           // 6 x 5 min
constexpr double kPacketsPerMbit = 250;         // packets/s per Mbit/s of the trace
constexpr int kInstanceRate = 6000;             // packets/s per forward instance
constexpr int kControlBase = 17930;             // pods' control ports 17930..17932, the scaler's 17933

RateTrace compressed_day() {
  const RateTraceFile file = load_abilene_traffic(shared_data("traffic/abilene/abilene_tm_5min_mbps.csv"));
  const RateTrace& april = file.blocks.at(1);
  RateTrace out;
  out.label = "Abilene April NYCMng->IPLSng (video), CHINng->NYCMng (calls), every 30 min";
  out.step_seconds = april.step_seconds * kRowStride;
  out.unit = RateUnit::packets_per_s;
  out.columns = {"video", "calls"};
  const std::size_t video = april.column_index("NYCMng->IPLSng"), calls = april.column_index("CHINng->NYCMng");
  for (std::size_t slot = 0; slot < kSlots; ++slot) {
    out.values.push_back(april.at(slot * kRowStride, video) * kPacketsPerMbit);
    out.values.push_back(april.at(slot * kRowStride, calls) * kPacketsPerMbit);
  }
  return out;
}

std::string pod_chains() {
  const std::string hop = ", max_instances: 16, queue_packets: 512, service_rate_pps: " + std::to_string(kInstanceRate) + "}";
  return std::string(R"(chains:
  - name: video
    id: 100
    ingress_site: NYCMng
    egress_site: KSCYng
    egress_port: out
    ingress_ports: [in]
    match: [{dst_prefix: 10.1.0.0/16, protocol: udp}]
    hops:
      - {vnf: forward, site: NYCMng, instances: 5)") + hop + R"(
      - {vnf: forward, site: CHINng, instances: 5)" + hop + R"(
  - name: calls
    id: 200
    ingress_site: NYCMng
    egress_site: KSCYng
    egress_port: out
    ingress_ports: [in]
    match: [{dst_prefix: 10.2.0.0/16, protocol: udp}]
    hops:
      - {vnf: forward, site: CHINng, instances: 3)" + hop + "\n";
}

TEST(ScalerWithPods, OnlineFollowsARealTraceWithinOnePercentDropsAndSwitchesPolicyLive) {
  const std::string dir = make_temp_dir("scaler_pods");
  write_file(dir + "/trace.csv", rate_trace_to_csv(compressed_day()));
  // The scaler's view: the same sites, one VNF type, the pods' plan to start from.
  write_file(dir + "/topology.yaml", std::string("name: three\n") + R"(sites:
  - {name: NYCMng, lat: 40.7833, lon: -73.9667, instance_capacity: 16, operating_price: 1, deployment_price: 5}
  - {name: CHINng, lat: 41.8333, lon: -87.6167, instance_capacity: 16, operating_price: 1, deployment_price: 5}
  - {name: KSCYng, lat: 38.961694, lon: -96.596704, instance_capacity: 16, operating_price: 1, deployment_price: 5}
links:
  - {from: NYCMng, to: CHINng, route_factor: 1.3, bandwidth_mbps: 10000, price_per_gb: 0.02}
  - {from: CHINng, to: KSCYng, route_factor: 1.3, bandwidth_mbps: 10000, price_per_gb: 0.02}
vnf_types:
  - {name: forward, service_rate_pps: )" + std::to_string(kInstanceRate) + R"(, cpu_cores: 1, memory_mib: 256}
chains:
  - {name: video, ingress: NYCMng, egress: KSCYng, vnfs: [forward, forward], sla_latency_ms: 50}
  - {name: calls, ingress: NYCMng, egress: KSCYng, vnfs: [forward], sla_latency_ms: 50}
)");
  write_file(dir + "/plan.yaml", R"(pools:
  - {chain: video, hop: 1, site: NYCMng, instances: 5}
  - {chain: video, hop: 2, site: CHINng, instances: 5}
  - {chain: calls, hop: 1, site: CHINng, instances: 3}
)");
  const std::string scaler_yaml = "name: e2e\ntopology: " + dir + "/topology.yaml\nbackend: pods\nslot_seconds: 1\n"
                                  "packet_bytes: 128\nqueue_packets: 512\nslots: 36\njournal: " + dir + "/journal.jsonl\n"
                                  "policy: {name: online, params: {plan: " + dir + "/plan.yaml, candidates: plan, utilisation: '0.75'}}\n"
                                  "control: {port: " + std::to_string(kControlBase + 3) + ", token: t}\npods:\n"
                                  "  - {name: nycm, control: '127.0.0.1:" + std::to_string(kControlBase) + "', token: t, sites: [NYCMng]}\n"
                                  "  - {name: chin, control: '127.0.0.1:" + std::to_string(kControlBase + 1) + "', token: t, sites: [CHINng]}\n"
                                  "  - {name: kscy, control: '127.0.0.1:" + std::to_string(kControlBase + 2) + "', token: t, sites: [KSCYng]}\n";
  write_file(dir + "/scaler.yaml", scaler_yaml);
  const std::string replay_yaml = R"(name: sp_replay
ports:
  - {name: to_pod, driver: memif, memif_role: client, memif_socket: )" + dir + R"(/in.sock}
  - {name: from_pod, driver: memif, memif_role: client, memif_socket: )" + dir + R"(/out.sock}
generator:
  port: to_pod
  trace: {csv: )" + dir + R"(/trace.csv}
  scale: {slot_wall_seconds: 1}
  packet_sizes: [{bytes: 128, weight: 1}]
  flows: 1024
  zipf_exponent: 0
  chains:
    - {column: video, dst_prefix: 10.1.0.0/16}
    - {column: calls, dst_prefix: 10.2.0.0/16}
sink: {port: from_pod}
)";
  // The scaler's 36 slots start some seconds after the replay's (it waits
  // for the control APIs; 3 to 16 s here), so the pods run until the scaler
  // is done and are then stopped; the idle stop is only a backstop.
  const std::vector<std::string> stop{"--stop-when-idle-ms", "60000"};
  AbilenePods pods = start_abilene_pods(dir, "sp_", pod_chains(), stop, kControlBase);
  // Traffic first: the pods serve their control APIs once their links are up.
  ReplayRun replay = start_replay(dir, "sp_replay", replay_yaml, "1", {"--quiet"});
  const std::string nfvctl = std::getenv("NFVCTL");
  for (int port = kControlBase; port < kControlBase + 3; ++port) {
    bool up = false;
    for (int attempt = 0; attempt < 100 && !up; ++attempt) {
      up = run_command(nfvctl + " --addr 127.0.0.1:" + std::to_string(port) + " status", 5).exit_code == 0;
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(up) << "pod control port " << port << "\n" << pods.nycm.logs();
  }
  const char* scaler_binary = std::getenv("NFV_SCALER");
  ASSERT_NE(scaler_binary, nullptr);
  Subprocess scaler({scaler_binary, "--config", dir + "/scaler.yaml"}, dir + "/scaler.out", dir + "/scaler.err");

  // Late in the run, switch the policy while traffic flows.
  const std::string scaler_addr = " --addr 127.0.0.1:" + std::to_string(kControlBase + 3) + " --token t ";
  std::uint64_t asked_at = 0;
  for (int waited = 0; waited < 600; ++waited) {
    const CommandResult show = run_command(nfvctl + scaler_addr + "policy show", 5);
    const auto at = show.output.find("next slot ");
    if (show.exit_code == 0 && at != std::string::npos) {
      asked_at = std::stoull(show.output.substr(at + 10));
      if (asked_at >= 30) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(asked_at, 30u) << read_file(dir + "/scaler.out") << read_file(dir + "/scaler.err");
  const CommandResult set = run_command(nfvctl + scaler_addr + "policy set threshold", 5);
  ASSERT_EQ(set.exit_code, 0) << set.output;

  ASSERT_EQ(replay.process->wait(std::chrono::seconds(120)), 0) << replay.logs();
  ASSERT_EQ(scaler.wait(std::chrono::seconds(60)), 0) << read_file(dir + "/scaler.out") << read_file(dir + "/scaler.err");
  for (PodRun* pod : pods.all()) pod->process->signal(SIGINT);
  for (PodRun* pod : pods.all()) {
    ASSERT_EQ(pod->wait(), 0) << pod->logs();
    EXPECT_EQ(pod->stats().mempool_in_use_after_close(), 0) << pod->name;
  }

  // Drops: within 1% of what was sent, over the whole run.
  double sent = 0, lost = 0;
  std::map<int, double> received_per_slot;
  for (const CsvRow& row : read_slot_csv(replay.csv()).rows) {
    sent += std::stod(row.at("sent"));
    lost += std::stod(row.at("lost"));
    received_per_slot[std::stoi(row.at("slot"))] += std::stod(row.at("received"));
  }
  ASSERT_GT(sent, 0);
  EXPECT_LE(lost, 0.01 * sent) << "lost " << lost << " of " << sent << "\n" << read_file(dir + "/scaler.out");
  for (const auto& [slot, received] : received_per_slot) EXPECT_GT(received, 0) << "slot " << slot;

  // The journal: online until the switch, threshold from the slot asked or the next.
  const auto entries = Journal::read(dir + "/journal.jsonl");
  ASSERT_GE(entries.size(), 36u) << read_file(dir + "/scaler.out");
  std::uint64_t first_threshold = 0;
  for (const auto& e : entries) {
    EXPECT_TRUE(e.error().empty()) << "slot " << e.slot() << ": " << e.error();
    if (e.policy().name() == "threshold" && first_threshold == 0) first_threshold = e.slot();
  }
  EXPECT_GE(first_threshold, asked_at);
  EXPECT_LE(first_threshold, asked_at + 1);
  // Instances follow the traffic: video's first hop in the busiest and the
  // quietest measured slots of the online part.
  const auto video_rate = [](const scaler::JournalEntry& e) { return e.chains(0).arrival_pps(); };
  const auto video_instances = [](const scaler::JournalEntry& e) {
    for (const auto& pool : e.plan())
      if (pool.chain() == "video" && pool.hop() == 1) return pool.instances();
    return 0;
  };
  std::vector<scaler::JournalEntry> online;
  for (const auto& e : entries)
    if (e.policy().name() == "online" && e.slot() >= 3 && video_rate(e) > 0) online.push_back(e);
  ASSERT_GE(online.size(), 20u);
  const auto busiest = std::max_element(online.begin(), online.end(), [&](const auto& a, const auto& b) { return video_rate(a) < video_rate(b); });
  const auto quietest = std::min_element(online.begin(), online.end(), [&](const auto& a, const auto& b) { return video_rate(a) < video_rate(b); });
  EXPECT_GE(video_rate(*busiest), 2 * video_rate(*quietest));
  EXPECT_GT(video_instances(*busiest), video_instances(*quietest))
      << "busiest slot " << busiest->slot() << " " << video_rate(*busiest) << " pkt/s, quietest " << quietest->slot() << " "
      << video_rate(*quietest) << " pkt/s";
  std::printf("%s", read_file(dir + "/scaler.out").c_str());
}

}  // namespace
}  // namespace nfv::test
