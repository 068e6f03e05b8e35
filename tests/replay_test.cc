// nfv-replay (traces/replay/, docs/replay.md) as real processes on real
// PMDs: the generator follows a rate trace slot by slot with the flows and
// sizes it was given; pcap replay keeps every frame and scales its timing;
// end to end through a real pod over memif, the sink gets everything the
// generator sent, at the target rate, in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

#include "pcap_reader.h"
#include "pod_runner.h"
#include "replay_runner.h"
#include "subprocess.h"

namespace nfv::test {
namespace {

// The probe after Ethernet + IPv4 + UDP (probe_payload.h), network order.
struct ProbeFields {
  uint16_t chain;
  uint64_t seq;
};
bool probe_of(const Frame& f, ProbeFields& out) {
  if (f.size() < 64 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17) return false;
  if (!(f[42] == 'N' && f[43] == 'F' && f[44] == 'V' && f[45] == 'R')) return false;
  out.chain = static_cast<uint16_t>(f[46] << 8 | f[47]);
  out.seq = 0;
  for (int i = 0; i < 8; ++i) out.seq = out.seq << 8 | f[48 + i];
  return true;
}

// (1) Two chains from a Mbit/s CSV trace, 3 slots of 1 s, into a pcap port.
TEST(ReplayGenerator, PcapOutputFollowsTheTracePerSlotWithConfiguredFlowsAndSizes) {
  const std::string dir = make_temp_dir("replay_gen");
  write_file(dir + "/trace.csv",
             "# units: Mbit/s\n# step_seconds: 300\nslot,video,calls\n0,40,10\n1,80,20\n2,20,30\n");
  const std::string yaml = "name: replay_gen\nports:\n  - {name: out, driver: pcap, tx_pcap: " + dir + R"(/out.pcap}
generator:
  port: out
  trace: {csv: )" + dir + R"(/trace.csv}
  scale: {slot_wall_seconds: 1, volume_scale: 0.5}
  flows: 1024
  zipf_exponent: 1.0
  chains:
    - {column: video, dst_prefix: 10.1.0.0/16}
    - {column: calls, dst_prefix: 10.2.0.0/16, flows: 64, zipf_exponent: 0}
)";
  ReplayRun replay = start_replay(dir, "replay_gen", yaml, "1");
  ASSERT_EQ(replay.process->wait(std::chrono::seconds(60)), 0) << replay.logs();
  const std::string out = read_file(dir + "/replay_gen.out");
  // The mapping is printed: IMIX 7:4:1 averages 354.33 B.
  EXPECT_NE(out.find("1 trace step (300 s) = 1 slot = 1.0 s wall; 1 Mbit/s = 352.78 pkt/s at 354.333 B x scale 0.5 = 176.4 pkt/s emulated"),
            std::string::npos) << out;

  const SlotCsv csv = read_slot_csv(replay.csv());
  ASSERT_EQ(csv.rows.size(), 6u) << read_file(replay.csv());
  ASSERT_GT(csv.start_ns, 0u);
  const double mbit = 1e6 / 8 / ((7 * 64 + 4 * 576 + 1500) / 12.0) * 0.5;
  const double rates[3][2] = {{40, 10}, {80, 20}, {20, 30}};
  std::vector<double> target(6);
  for (const CsvRow& row : csv.rows) {
    const int slot = std::stoi(row.at("slot")), chain = row.at("chain") == "video" ? 0 : 1;
    target[slot * 2 + chain] = std::stod(row.at("target_pps"));
    EXPECT_NEAR(target[slot * 2 + chain], rates[slot][chain] * mbit, 0.01);
  }

  // Per slot, from the pcap's own timestamps: packets within 2% of the target.
  const auto frames = read_timed_frames(dir + "/out.pcap");
  std::vector<double> counted(6, 0);
  std::map<uint16_t, uint64_t> next_seq;
  std::map<uint64_t, uint64_t> video_flows;
  std::set<uint64_t> calls_flows;
  std::map<std::size_t, uint64_t> sizes;
  uint64_t video_packets = 0, bad = 0;
  for (const auto& frame : frames) {
    ProbeFields probe;
    if (!probe_of(frame.bytes, probe) || probe.chain > 1) {
      bad++;
      continue;
    }
    EXPECT_EQ(probe.seq, next_seq[probe.chain]++) << "sequence numbers are gap-free and in order";
    const std::size_t slot = static_cast<std::size_t>((static_cast<double>(frame.ns) - static_cast<double>(csv.start_ns)) / 1e9);
    if (slot < 3) counted[slot * 2 + probe.chain]++;
    const auto& b = frame.bytes;
    EXPECT_EQ(b[30], 10);
    EXPECT_EQ(b[31], probe.chain == 0 ? 1 : 2) << "destination inside the chain's prefix";
    uint64_t flow = 0;  // source address and port
    for (int i : {26, 27, 28, 29, 34, 35}) flow = flow << 8 | b[i];
    if (probe.chain == 0) {
      video_flows[flow]++;
      video_packets++;
      sizes[b.size()]++;
    } else {
      calls_flows.insert(flow);
    }
  }
  EXPECT_EQ(bad, 0u);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_NEAR(counted[i], target[i], 0.02 * target[i]) << "slot " << i / 2 << " chain " << i % 2;

  // Zipf(1) over 1024 flows: the most popular flow carries 1/H(1024) = 13.3%.
  double harmonic = 0;
  for (int k = 1; k <= 1024; ++k) harmonic += 1.0 / k;
  uint64_t head = 0;
  for (const auto& [flow, n] : video_flows) head = std::max(head, n);
  EXPECT_NEAR(static_cast<double>(head) / video_packets, 1 / harmonic, 0.1 / harmonic);
  EXPECT_LE(video_flows.size(), 1024u);
  EXPECT_GT(video_flows.size(), 900u);  // the tail is there too
  EXPECT_EQ(calls_flows.size(), 64u);   // uniform over 64: every flow shows up
  // IMIX 7:4:1 of 64/576/1500-byte frames.
  EXPECT_NEAR(static_cast<double>(sizes[64]) / video_packets, 7 / 12.0, 0.02);
  EXPECT_NEAR(static_cast<double>(sizes[576]) / video_packets, 4 / 12.0, 0.02);
  EXPECT_NEAR(static_cast<double>(sizes[1500]) / video_packets, 1 / 12.0, 0.02);
  EXPECT_EQ(sizes.size(), 3u);
  EXPECT_NE(out.find("mbufs in use after close: 0"), std::string::npos) << out;
}

// (2) test.pcap, ten times faster, twice through.
TEST(ReplayPcap, ReplaysEveryFrameWithItsTimingScaled) {
  const std::string dir = make_temp_dir("replay_pcap");
  const std::string in = shared_data("pcaps/tcpreplay/test.pcap");
  const std::string yaml = "name: replay_pcap\nports:\n  - {name: out, driver: pcap, tx_pcap: " + dir + "/out.pcap}\n" +
                           "pcap_replay: {port: out, file: " + in + ", speed: 10, loops: 2}\n";
  ReplayRun replay = start_replay(dir, "replay_pcap", yaml, "1");
  ASSERT_EQ(replay.process->wait(std::chrono::seconds(60)), 0) << replay.logs();
  const auto original = read_timed_frames(in);
  const auto sent = read_timed_frames(dir + "/out.pcap");
  ASSERT_EQ(original.size(), 179u);
  ASSERT_EQ(sent.size(), 2 * original.size()) << replay.logs();
  uint64_t original_bytes = 0, sent_bytes = 0;
  for (const auto& f : original) original_bytes += f.bytes.size();
  for (const auto& f : sent) sent_bytes += f.bytes.size();
  EXPECT_EQ(sent_bytes, 2 * original_bytes);
  const double capture_s = static_cast<double>(original.back().ns - original.front().ns) / 1e9;
  // Each frame's send time less its due time (capture offset / 10, loops
  // back to back). The replayer's schedule starts at an instant of its own,
  // so the typical (median) difference is that start; every frame must leave
  // within 5 ms of it and never before it. A host that holds the replayer off
  // its core makes the frames due meanwhile late, so a few (at most 5%) may
  // leave later than that, as when the first frames waited 16 ms once in CI.
  std::vector<double> behind_s(sent.size()), expected_s(sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const auto& source = original[i % original.size()];
    EXPECT_EQ(sent[i].bytes, source.bytes) << "frame " << i;
    expected_s[i] = ((static_cast<double>(source.ns - original.front().ns) / 1e9) + (i >= original.size() ? capture_s : 0)) / 10;
    behind_s[i] = static_cast<double>(sent[i].ns - sent.front().ns) / 1e9 - expected_s[i];
  }
  std::vector<double> sorted = behind_s;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double start_s = sorted[sorted.size() / 2];
  std::size_t late = 0;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const double slack_s = 0.005 + 0.01 * expected_s[i];
    EXPECT_GT(behind_s[i] - start_s, -slack_s) << "frame " << i << " left before it was due";
    late += behind_s[i] - start_s > slack_s;
  }
  EXPECT_LE(late, sent.size() / 20) << "frames more than 5 ms late";
  const std::string out = read_file(dir + "/replay_pcap.out");
  EXPECT_NE(out.find("pcap replay: sent 358 packets, " + std::to_string(2 * original_bytes) + " bytes in 2 loops"), std::string::npos) << out;
  EXPECT_NE(out.find("mbufs in use after close: 0"), std::string::npos) << out;
}

// (3) generator -> memif -> nfv-pod (one forward hop) -> memif -> sink.
TEST(ReplayThroughPod, SinkReceivesEverythingSentAtTheTargetRateInOrder) {
  const std::string dir = make_temp_dir("replay_pod");
  const std::string pod_yaml = R"(name: replay_pod
sites: [{name: A, lat: 40.78, lon: -73.97}]
hosted_sites: [A]
ports:
  - {name: in, driver: memif, site: A, memif_role: server, memif_socket: )" + dir + R"(/in.sock}
  - {name: out, driver: memif, site: A, memif_role: server, memif_socket: )" + dir + R"(/out.sock}
chains:
  - name: probe
    id: 7
    ingress_site: A
    egress_site: A
    egress_port: out
    ingress_ports: [in]
    match: [{dst_prefix: 10.7.0.0/16, protocol: udp}]
    hops: [{vnf: forward, site: A}]
)";
  const std::string replay_yaml = memif_replay_yaml("replay_e2e", dir, R"({builtin: step, column: probe, unit: pkt/s, rows: 3, step_seconds: 1, before: 100000, after: 200000, step_row: 1})", R"(  scale: {slot_wall_seconds: 1}
  chains: [{column: probe, dst_prefix: 10.7.0.0/16}]
)");
  PodRun pod = start_pod(dir, "replay_pod", pod_yaml, {"--stop-when-idle-ms", "3000"}, "0");
  ReplayRun replay = start_replay(dir, "replay_e2e", replay_yaml, "1");
  ASSERT_EQ(replay.process->wait(std::chrono::seconds(60)), 0) << replay.logs() << pod.logs();
  ASSERT_EQ(pod.wait(), 0) << pod.logs();

  const SlotCsv csv = read_slot_csv(replay.csv());
  ASSERT_EQ(csv.rows.size(), 3u) << read_file(replay.csv());
  uint64_t sent = 0;
  for (const CsvRow& row : csv.rows) {
    sent += std::stoull(row.at("sent"));
    const double target = std::stod(row.at("target_pps"));
    EXPECT_EQ(target, row.at("slot") == "0" ? 100000 : 200000);
    // Loss-free on an idle machine; a pod starved of its core for a moment
    // may drop a burst at its output, so allow 0.05% and check the books.
    const uint64_t slot_sent = std::stoull(row.at("sent"));
    EXPECT_EQ(std::stoull(row.at("received")) + std::stoull(row.at("lost")), slot_sent) << "slot " << row.at("slot");
    EXPECT_LE(std::stod(row.at("lost")), 0.0005 * static_cast<double>(slot_sent)) << "slot " << row.at("slot");
    EXPECT_EQ(row.at("reordered"), "0");
    EXPECT_NEAR(std::stod(row.at("sent_pps")), target, 0.02 * target) << "slot " << row.at("slot");
    EXPECT_NEAR(std::stod(row.at("received_pps")), target, 0.02 * target) << "slot " << row.at("slot");
    EXPECT_GT(std::stod(row.at("p99_us")), 0);
  }
  const auto stats = pod.stats();
  // The pod forwarded exactly what the generator sent (the 2% tolerance
  // above leaves room for a generator that shares its core).
  EXPECT_EQ(chain_stats(stats, "probe").out_packets(), sent);
  const std::string out = read_file(dir + "/replay_e2e.out");
  EXPECT_NE(out.find("sink: foreign packets 0"), std::string::npos) << out;
  EXPECT_NE(out.find("mbufs in use after close: 0"), std::string::npos) << out;
}

}  // namespace
}  // namespace nfv::test
