// Live scaling of a stateful VNF whose replies carry nothing of their flow's
// hash: nat, scaled 1 -> 3 -> 1 while outbound flows and their replies pass.
// Each instance owns a share of the external ports, and the pod steers a
// reply by its external port to the instance that holds the session. Shown:
// old flows keep their translation after scale-out, no external port is
// handed to two flows, every reply (also to a draining instance) is
// translated back to its inside endpoint, and nothing is lost.
//
// The pod runs in this process (EAL: main lcore + one worker); a driver
// thread injects UDP frames into the pod's net_ring input and reads the
// translated frames back from its net_ring output.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "in_process_pod.h"
#include "packet_builder.h"

namespace nfv {
namespace {

using nfv::test::Bytes;

constexpr int kMaxInstances = 4;
constexpr uint16_t kPortMin = 1024;
constexpr uint32_t kPortsPerInstance = (65535 - kPortMin + 1) / kMaxInstances;

const std::string kPodConfig = nfv::test::one_hop_pod_config(
    "nat", "ring",
    "{vnf: nat, site: A, instances: 1, max_instances: 4, queue_packets: 4096, drain_timeout_ms: 60000, "
    "params: {external: \"203.0.113.7\", internal: \"10.0.0.0/8\"}}");

using nfv::test::RingExchange;
using nfv::test::SeenFrame;
using nfv::test::counter_by_instance;
using nfv::test::sum;

std::string inside_address(int flow) { return "10.0." + std::to_string(flow >> 8) + "." + std::to_string(flow & 255); }
uint16_t inside_port(int flow) { return static_cast<uint16_t>(2000 + flow); }

Bytes outbound(int flow) { return nfv::test::udp_frame_of_flow(inside_address(flow), inside_port(flow), "198.51.100.1", 53, flow); }
Bytes reply(int flow, uint16_t external_port) {
  return nfv::test::udp_frame_of_flow("198.51.100.1", 53, "203.0.113.7", external_port, flow);
}

// Sends the outbound frames of flows [first, last), twice each, and records
// each flow's external port; fails on a flow translated two ways.
void send_outbound(RingExchange& d, int first, int last, std::map<uint32_t, uint16_t>& port_of) {
  std::vector<Bytes> frames;
  for (int round = 0; round < 2; ++round)
    for (int f = first; f < last; ++f) frames.push_back(outbound(f));
  const auto seen = d.exchange(frames);
  ASSERT_EQ(seen.size(), frames.size());
  std::map<uint32_t, uint16_t> now;
  for (const SeenFrame& s : seen) {
    EXPECT_EQ(s.src, nfv::test::ipv4_host_order("203.0.113.7"));
    EXPECT_TRUE(s.ip_checksum_ok);
    const auto [it, fresh] = now.emplace(s.flow, s.sport);
    EXPECT_EQ(it->second, s.sport) << "flow " << s.flow << " translated two ways in one round";
  }
  for (const auto& [flow, port] : now) {
    const auto [it, fresh] = port_of.emplace(flow, port);
    EXPECT_EQ(it->second, port) << "flow " << flow << " changed its external port";
  }
}

// Sends one reply per flow in [first, last) and checks each comes back
// translated to its inside endpoint.
void expect_replies_translated(RingExchange& d, int first, int last, const std::map<uint32_t, uint16_t>& port_of) {
  std::vector<Bytes> frames;
  for (int f = first; f < last; ++f) frames.push_back(reply(f, port_of.at(static_cast<uint32_t>(f))));
  const auto seen = d.exchange(frames);
  ASSERT_EQ(seen.size(), frames.size()) << "replies lost";
  int wrong = 0;
  for (const SeenFrame& s : seen) {
    const int f = static_cast<int>(s.flow);
    if (s.dst != nfv::test::ipv4_host_order(inside_address(f)) || s.dport != inside_port(f) || !s.ip_checksum_ok) ++wrong;
  }
  EXPECT_EQ(wrong, 0) << "replies not translated back to their inside endpoint";
}

TEST(NatScaling, OneToThreeToOneKeepsEveryTranslationAndReply) {
  nfv::test::run_in_process_pod(kPodConfig, [](Pod& pod, rte_mempool* pool) {
    RingExchange d(pod.runtime().ports[0].port_id, pod.runtime().ports[1].port_id, pool);
    auto scale = [&](int instances) { return pod.scale("nat", 1, instances).get(); };
    std::map<uint32_t, uint16_t> port_of;  // flow -> external port

    // One instance: flows 0..1999 get ports of slot 0's share.
    send_outbound(d, 0, 2000, port_of);
    ASSERT_EQ(port_of.size(), 2000u);
    for (const auto& [flow, port] : port_of) EXPECT_LT(port, kPortMin + kPortsPerInstance) << "flow " << flow;

    // Three instances: old flows keep their ports, 4000 new ones spread;
    // no port is handed out twice (each instance allocates from its share).
    ASSERT_EQ(scale(3), "");
    send_outbound(d, 0, 6000, port_of);
    ASSERT_EQ(port_of.size(), 6000u);
    std::set<uint16_t> ports;
    for (const auto& [flow, port] : port_of) ports.insert(port);
    EXPECT_EQ(ports.size(), 6000u) << "an external port serves two flows";
    auto sessions = counter_by_instance(pod.stats_async().get(), "sessions");
    ASSERT_EQ(sessions.size(), 3u);
    EXPECT_EQ(sum(sessions), 6000u) << "a flow has a session in two instances: it moved";
    for (const auto& [id, n] : sessions) EXPECT_GT(n, 1000u) << "instance " << id;
    std::printf("3 instances: sessions");
    for (const auto& [id, n] : sessions) std::printf(" %u:%lu", id, static_cast<unsigned long>(n));
    std::printf("\n");

    // Every reply reaches the instance holding its session.
    expect_replies_translated(d, 0, 6000, port_of);
    auto stats = pod.stats_async().get();
    EXPECT_EQ(sum(counter_by_instance(stats, "no_session")), 0u);
    EXPECT_EQ(sum(counter_by_instance(stats, "translated_in")), 6000u);

    // Down to one: two instances drain and still answer their replies; new
    // flows go to the active one only.
    ASSERT_EQ(scale(1), "");
    expect_replies_translated(d, 0, 6000, port_of);
    std::map<uint32_t, uint16_t> fresh_ports;
    send_outbound(d, 6000, 7000, fresh_ports);
    for (const auto& [flow, port] : fresh_ports) {
      EXPECT_LT(port, kPortMin + kPortsPerInstance) << "new flow " << flow << " on a draining instance";
      EXPECT_EQ(ports.count(port), 0u) << "port " << port << " reused while its session lives";
    }
    stats = pod.stats_async().get();
    EXPECT_EQ(stats.hops(0).active_instances(), 1u);
    EXPECT_EQ(stats.hops(0).draining_instances(), 2u);
    EXPECT_EQ(sum(counter_by_instance(stats, "no_session")), 0u);
    EXPECT_EQ(sum(counter_by_instance(stats, "sessions")), 7000u);
    nfv::test::expect_all_delivered(stats, d.sent());
  });
}

// A nat hop that may never hold a second instance: the pod keeps no flow
// pins for it (they are for scaling out), and both directions still work.
TEST(NatScaling, APoolOfAtMostOneInstanceKeepsNoPinsAndTranslatesBothWays) {
  const std::string config = nfv::test::one_hop_pod_config(
      "nat", "ring",
      "{vnf: nat, site: A, instances: 1, max_instances: 1, queue_packets: 4096, "
      "params: {external: \"203.0.113.7\", internal: \"10.0.0.0/8\"}}");
  nfv::test::run_in_process_pod(config, [](Pod& pod, rte_mempool* pool) {
    RingExchange d(pod.runtime().ports[0].port_id, pod.runtime().ports[1].port_id, pool);
    std::map<uint32_t, uint16_t> port_of;
    send_outbound(d, 0, 500, port_of);
    ASSERT_EQ(port_of.size(), 500u);
    expect_replies_translated(d, 0, 500, port_of);
    EXPECT_NE(pod.scale("nat", 1, 2).get(), "") << "a pool of max_instances 1 took a second instance";
    const auto stats = pod.stats_async().get();
    ASSERT_EQ(stats.hops(0).instances_size(), 1);
    EXPECT_EQ(stats.hops(0).instances(0).flows(), 0u) << "flows were pinned";
    EXPECT_EQ(sum(counter_by_instance(stats, "sessions")), 500u);
    EXPECT_EQ(sum(counter_by_instance(stats, "translated_in")), 500u);
    nfv::test::expect_all_delivered(stats, d.sent());
  });
}

}  // namespace
}  // namespace nfv
