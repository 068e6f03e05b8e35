// Live scaling of an instance pool while traffic with thousands of flows
// passes: 1 -> 4 -> 2 -> 1 instances of a stateful VNF (counter). No packet
// is lost to a scale action, no existing flow moves to another instance
// (each instance's counter tables would then hold the flow twice), draining
// instances keep their flows until those go idle, then are freed, and new
// flows spread evenly over the active instances.
//
// The pod runs in this process (EAL: main lcore + one worker); a driver
// thread injects real UDP frames into the pod's net_ring port and asks for
// scale changes and counters through the pod's control requests.
#include <chrono>
#include <map>
#include <thread>

#include <gtest/gtest.h>
#include <rte_ethdev.h>

#include "in_process_pod.h"
#include "packet_builder.h"
#include "bounded_wait.h"

namespace nfv {
namespace {

using namespace std::chrono_literals;
using nfv::test::Bytes;

constexpr int kIdleTimeoutMs = 1500;

const std::string kPodConfig = nfv::test::one_hop_pod_config(
    "flows", "null",
    "{vnf: counter, site: A, instances: 1, queue_packets: 4096, flow_idle_timeout_ms: 1500, drain_timeout_ms: 60000}");

class Driver {
 public:
  Driver(Pod& pod, uint16_t port, rte_mempool* pool) : pod_(pod), port_(port), pool_(pool) {}

  // Sends `packets_per_flow` frames for every flow id in [first, last).
  void send(int first, int last, int packets_per_flow = 2) {
    rte_mbuf* burst[32];
    for (int round = 0; round < packets_per_flow; ++round)
      for (int f = first; f < last;) {
        uint16_t n = 0;
        for (; n < 32 && f < last; ++n, ++f) burst[n] = frame(f);
        uint16_t sent = 0;
        while (sent < n) {
          sent += rte_eth_tx_burst(port_, 0, burst + sent, n - sent);
          if (sent < n) std::this_thread::sleep_for(50us);
        }
        sent_ += n;
      }
  }

  nfv::stats::PodStats stats() { return pod_.stats_async().get(); }
  std::string scale(int instances) { return pod_.scale("flows", 1, instances).get(); }
  uint64_t sent() const { return sent_; }

  // Waits until the pod has moved every packet sent so far out of the
  // chain; fails the test after 10 s.
  void wait_delivered() {
    uint64_t out = 0;
    if (!nfv::test::poll_until([&] { return (out = stats().chains(0).out_packets()) == sent_; }, 10s, 5ms))
      ADD_FAILURE() << "the chain delivered " << out << " of " << sent_ << " packets in 10 s";
  }

 private:
  rte_mbuf* frame(int flow) {
    const std::string src = "10.0." + std::to_string(flow >> 8) + "." + std::to_string(flow & 255);
    const Bytes bytes = nfv::test::concat({nfv::test::ethernet(0x0800), nfv::test::ipv4(src, "10.9.0.1", 17, 8 + 18),
                                           nfv::test::udp(static_cast<uint16_t>(1024 + flow % 50000), 53, 18)});
    return nfv::test::to_mbuf(pool_, bytes);
  }

  Pod& pod_;
  uint16_t port_;
  rte_mempool* pool_;
  uint64_t sent_ = 0;
};

// Flows counted by each live instance's counter table, by instance id.
std::map<uint32_t, uint64_t> flows_by_instance(const nfv::stats::PodStats& stats) {
  return nfv::test::counter_by_instance(stats, "flows");
}

void print_flows(const char* phase, const std::map<uint32_t, uint64_t>& m) {
  std::printf("%-28s", phase);
  for (const auto& [id, v] : m) std::printf(" instance %u: %5lu flows", id, static_cast<unsigned long>(v));
  std::printf("\n");
}

void expect_even_spread(const std::map<uint32_t, uint64_t>& before, const std::map<uint32_t, uint64_t>& after,
                        const std::vector<uint32_t>& instances, double new_flows) {
  for (uint32_t id : instances) {
    const double gained = static_cast<double>(after.at(id) - (before.count(id) ? before.at(id) : 0));
    const double fair = new_flows / static_cast<double>(instances.size());
    EXPECT_NEAR(gained, fair, 0.2 * fair) << "instance " << id;
  }
}

TEST(InstanceScaling, OneToFourToTwoToOneWithoutLossOrMovedFlows) {
  nfv::test::run_in_process_pod(kPodConfig, [](Pod& pod, rte_mempool* pool) {
    Driver d(pod, pod.runtime().ports[0].port_id, pool);
    // 1 instance: flows 0..1999.
    d.send(0, 2000);
    d.wait_delivered();
    auto s = d.stats();
    auto flows = flows_by_instance(s);
    print_flows("1 instance:", flows);
    ASSERT_EQ(flows.size(), 1u);
    const uint32_t first = flows.begin()->first;
    EXPECT_EQ(flows[first], 2000u);

    // 4 instances: old flows stay on the first; 4000 new ones spread.
    ASSERT_EQ(d.scale(4), "");
    d.send(0, 6000);
    d.wait_delivered();
    auto before = flows;
    s = d.stats();
    flows = flows_by_instance(s);
    print_flows("4 instances:", flows);
    ASSERT_EQ(flows.size(), 4u);
    EXPECT_EQ(nfv::test::sum(flows), 6000u) << "a flow counted by two instances has moved";
    std::vector<uint32_t> four;
    for (const auto& [id, v] : flows) four.push_back(id);
    expect_even_spread(before, flows, four, 4000);

    // 2 instances: the two newest drain but keep serving their flows; new
    // flows 6000..7999 go only to the two active ones.
    ASSERT_EQ(d.scale(2), "");
    d.send(0, 8000);
    d.wait_delivered();
    before = flows;
    s = d.stats();
    flows = flows_by_instance(s);
    print_flows("2 active + 2 draining:", flows);
    EXPECT_EQ(s.hops(0).active_instances(), 2u);
    EXPECT_EQ(s.hops(0).draining_instances(), 2u);
    EXPECT_EQ(nfv::test::sum(flows), 8000u);
    std::vector<uint32_t> active, draining;
    for (const auto& instance : s.hops(0).instances()) (instance.state() == "active" ? active : draining).push_back(instance.id());
    for (uint32_t id : draining) EXPECT_EQ(flows[id], before[id]) << "a draining instance took new flows";
    expect_even_spread(before, flows, active, 2000);

    // Idle flows end; the drained instances are freed.
    EXPECT_TRUE(nfv::test::poll_until([&] { return (s = d.stats()).hops(0).draining_instances() == 0; },
                                      std::chrono::milliseconds(kIdleTimeoutMs) + 10s, 50ms))
        << "draining instances left 10 s after their flows' idle timeout";
    EXPECT_EQ(s.hops(0).instances_size(), 2);

    // Fresh flows on the two, then down to one: the drained one keeps them.
    d.send(10000, 12000);
    d.wait_delivered();
    before = flows_by_instance(d.stats());
    ASSERT_EQ(d.scale(1), "");
    d.send(10000, 13000);  // 2000 old flows + 1000 new
    d.wait_delivered();
    s = d.stats();
    flows = flows_by_instance(s);
    print_flows("1 active + 1 draining:", flows);
    ASSERT_EQ(flows.size(), 2u);
    EXPECT_EQ(nfv::test::sum(flows) - nfv::test::sum(before), 1000u) << "only the new flows are new to the instances";
    for (const auto& instance : s.hops(0).instances())
      if (instance.state() == "draining") EXPECT_EQ(flows[instance.id()], before[instance.id()]);
      else EXPECT_EQ(flows[instance.id()] - before[instance.id()], 1000u);

    nfv::test::expect_all_delivered(s, d.sent());
  });
}

}  // namespace
}  // namespace nfv
