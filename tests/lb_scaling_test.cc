// Live scaling of lb, whose backends' replies carry nothing of their
// connection's hash: scaled 1 -> 3 -> 1 while clients open connections to a
// VIP and the backends answer. The lb gives both directions the hash of the
// client -> VIP tuple, so flow pins keep a reply on the instance that holds
// its connection. Shown: each client keeps its backend, no connection is
// opened twice, every reply (also through a draining instance) leaves from
// the VIP, and nothing is lost. Then a backend marked down through the
// control API reaches every instance, also one started afterwards.
//
// The pod runs in this process (EAL: main lcore + one worker); a driver
// thread injects UDP frames into the pod's net_ring input and reads the
// rewritten frames back from its net_ring output.
#include <map>

#include <gtest/gtest.h>

#include "control.pb.h"
#include "in_process_pod.h"
#include "packet_builder.h"

namespace nfv {
namespace {

using nfv::test::Bytes;
using nfv::test::counter_by_instance;
using nfv::test::RingExchange;
using nfv::test::SeenFrame;
using nfv::test::sum;

const std::string kPodConfig = nfv::test::one_hop_pod_config(
    "web", "ring",
    "{vnf: lb, site: A, instances: 1, max_instances: 4, queue_packets: 4096, drain_timeout_ms: 60000, "
    "params: {services: \"198.51.100.10:80/udp=10.1.0.1:8080,10.1.0.2:8080,10.1.0.3:8080*2\"}}");

std::string client_address(int flow) { return "172.16." + std::to_string(flow >> 8) + "." + std::to_string(flow & 255); }
uint16_t client_port(int flow) { return static_cast<uint16_t>(3000 + flow); }

std::string dotted(uint32_t host_order) {
  return std::to_string(host_order >> 24) + "." + std::to_string(host_order >> 16 & 255) + "." + std::to_string(host_order >> 8 & 255) +
         "." + std::to_string(host_order & 255);
}

// Sends two packets of each client flow in [first, last) to the VIP and
// records each flow's backend; fails on a flow sent to two backends.
void send_requests(RingExchange& d, int first, int last, std::map<uint32_t, uint32_t>& backend_of) {
  std::vector<Bytes> frames;
  for (int round = 0; round < 2; ++round)
    for (int f = first; f < last; ++f) frames.push_back(nfv::test::udp_frame_of_flow(client_address(f), client_port(f), "198.51.100.10", 80, f));
  const auto seen = d.exchange(frames);
  ASSERT_EQ(seen.size(), frames.size());
  for (const SeenFrame& s : seen) {
    EXPECT_EQ(s.dport, 8080);
    EXPECT_TRUE(s.ip_checksum_ok);
    const auto [it, fresh] = backend_of.emplace(s.flow, s.dst);
    EXPECT_EQ(it->second, s.dst) << "flow " << s.flow << " changed its backend";
  }
}

// Each backend answers its clients; every answer must leave from the VIP.
void expect_replies_from_vip(RingExchange& d, int first, int last, const std::map<uint32_t, uint32_t>& backend_of) {
  std::vector<Bytes> frames;
  for (int f = first; f < last; ++f)
    frames.push_back(nfv::test::udp_frame_of_flow(dotted(backend_of.at(static_cast<uint32_t>(f))), 8080, client_address(f), client_port(f), f));
  const auto seen = d.exchange(frames);
  ASSERT_EQ(seen.size(), frames.size()) << "replies lost";
  int wrong = 0;
  for (const SeenFrame& s : seen) {
    const int f = static_cast<int>(s.flow);
    if (s.src != nfv::test::ipv4_host_order("198.51.100.10") || s.sport != 80 || s.dst != nfv::test::ipv4_host_order(client_address(f)) ||
        s.dport != client_port(f) || !s.ip_checksum_ok)
      ++wrong;
  }
  EXPECT_EQ(wrong, 0) << "replies that did not leave from the VIP";
}

TEST(LbScaling, OneToThreeToOneKeepsEveryConnectionAndReply) {
  nfv::test::run_in_process_pod(kPodConfig, [](Pod& pod, rte_mempool* pool) {
    RingExchange d(pod.runtime().ports[0].port_id, pod.runtime().ports[1].port_id, pool);
    auto scale = [&](int instances) { return pod.scale("web", 1, instances).get(); };
    std::map<uint32_t, uint32_t> backend_of;  // flow -> backend address

    send_requests(d, 0, 2000, backend_of);
    expect_replies_from_vip(d, 0, 2000, backend_of);

    // Three instances: old connections stay where they are, new ones spread.
    ASSERT_EQ(scale(3), "");
    send_requests(d, 0, 6000, backend_of);
    auto connections = counter_by_instance(pod.stats_async().get(), "connections");
    ASSERT_EQ(connections.size(), 3u);
    EXPECT_EQ(sum(connections), 6000u) << "a connection opened on two instances: it moved";
    for (const auto& [id, n] : connections) EXPECT_GT(n, 1000u) << "instance " << id;

    // Every reply reaches the instance holding its connection.
    expect_replies_from_vip(d, 0, 6000, backend_of);
    auto stats = pod.stats_async().get();
    EXPECT_EQ(sum(counter_by_instance(stats, "not_vip")), 0u);
    EXPECT_EQ(sum(counter_by_instance(stats, "to_client")), 8000u);

    // Down to one: replies through the two draining instances still leave from the VIP.
    ASSERT_EQ(scale(1), "");
    expect_replies_from_vip(d, 0, 6000, backend_of);
    stats = pod.stats_async().get();
    EXPECT_EQ(stats.hops(0).draining_instances(), 2u);
    EXPECT_EQ(sum(counter_by_instance(stats, "not_vip")), 0u);
    EXPECT_EQ(sum(counter_by_instance(stats, "connections")), 6000u);
    nfv::test::expect_all_delivered(stats, d.sent());

    // A backend marked down through the control API reaches every instance,
    // draining ones too, and instances started later: out to 4 (the two
    // draining come back, one is new), no new connection goes to it, and
    // connections on the other backends stay where they are.
    nfv::control::Request down;
    down.mutable_vnf()->set_chain("web");
    down.mutable_vnf()->set_hop(1);
    down.mutable_vnf()->set_request("backend down 10.1.0.2:8080");
    const auto reply = pod.request_async(down).get();
    ASSERT_TRUE(reply.ok()) << reply.error();
    EXPECT_EQ(reply.vnf().instances_size(), 3);
    ASSERT_EQ(scale(4), "");
    std::map<uint32_t, uint32_t> fresh;
    send_requests(d, 6000, 8000, fresh);
    const uint32_t down_backend = nfv::test::ipv4_host_order("10.1.0.2");
    for (const auto& [flow, backend] : fresh) EXPECT_NE(backend, down_backend) << "new flow " << flow << " sent to a backend that is down";
    const auto by_instance = counter_by_instance(pod.stats_async().get(), "connections");
    ASSERT_EQ(by_instance.size(), 4u);
    for (const auto& [id, n] : by_instance) EXPECT_GT(n, 0u) << "instance " << id << " took no new connection";
    std::map<uint32_t, uint32_t> others;
    for (const auto& [flow, backend] : backend_of)
      if (backend != down_backend) others[flow] = backend;
    std::vector<Bytes> frames;
    for (const auto& [flow, backend] : others)
      frames.push_back(nfv::test::udp_frame_of_flow(client_address(static_cast<int>(flow)), client_port(static_cast<int>(flow)), "198.51.100.10", 80, flow));
    for (const SeenFrame& s : d.exchange(frames)) EXPECT_EQ(s.dst, others.at(s.flow)) << "flow " << s.flow << " moved off a backend that is up";
  });
}

}  // namespace
}  // namespace nfv
