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
#include <arpa/inet.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "in_process_pod.h"
#include "packet_builder.h"

namespace nfv {
namespace {

using namespace std::chrono_literals;
using nfv::test::Bytes;

constexpr int kMaxInstances = 4;
constexpr uint16_t kPortMin = 1024;
constexpr uint32_t kPortsPerInstance = (65535 - kPortMin + 1) / kMaxInstances;

const char* kPodConfig = R"(name: natscaling
sites: [{name: A, lat: 40.78, lon: -73.97}]
hosted_sites: [A]
ports:
  - {name: in, driver: ring, site: A}
  - {name: out, driver: ring, site: A, tx_only: true}
chains:
  - name: nat
    id: 1
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{protocol: udp}]
    hops:
      - {vnf: nat, site: A, instances: 1, max_instances: 4, queue_packets: 4096, drain_timeout_ms: 60000,
         params: {external: "203.0.113.7", internal: "10.0.0.0/8"}}
)";

// What a frame leaving the pod says: its addresses, ports and the flow id
// the test wrote into the payload.
struct Seen {
  uint32_t src, dst;  // host order
  uint16_t sport, dport;
  uint32_t flow;
  bool ip_checksum_ok;
};

std::string inside_address(int flow) { return "10.0." + std::to_string(flow >> 8) + "." + std::to_string(flow & 255); }
uint16_t inside_port(int flow) { return static_cast<uint16_t>(2000 + flow); }

Bytes with_flow_id(Bytes frame, int flow) {
  for (int i = 0; i < 4; ++i) frame[42 + i] = static_cast<uint8_t>(flow >> (24 - 8 * i));
  return frame;
}

Bytes outbound(int flow) {
  return with_flow_id(nfv::test::concat({nfv::test::ethernet(0x0800), nfv::test::ipv4(inside_address(flow), "198.51.100.1", 17, 8 + 8),
                                         nfv::test::udp(inside_port(flow), 53, 8)}),
                      flow);
}

Bytes reply(int flow, uint16_t external_port) {
  return with_flow_id(nfv::test::concat({nfv::test::ethernet(0x0800), nfv::test::ipv4("198.51.100.1", "203.0.113.7", 17, 8 + 8),
                                         nfv::test::udp(53, external_port, 8)}),
                      flow);
}

class Driver {
 public:
  Driver(Pod& pod, uint16_t in, uint16_t out, rte_mempool* pool) : pod_(pod), in_(in), out_(out), pool_(pool) {}

  // Sends the frames in chunks the output ring can hold, reading what comes
  // out after each chunk; returns everything that came out.
  std::vector<Seen> exchange(const std::vector<Bytes>& frames) {
    std::vector<Seen> seen;
    for (size_t at = 0; at < frames.size();) {
      const size_t chunk_end = std::min(frames.size(), at + 128);
      const size_t expected = seen.size() + (chunk_end - at);
      for (; at < chunk_end;) {
        rte_mbuf* m = nfv::test::to_mbuf(pool_, frames[at]);
        while (rte_eth_tx_burst(in_, 0, &m, 1) == 0) std::this_thread::sleep_for(20us);
        ++at;
        ++sent_;
      }
      for (int wait = 0; seen.size() < expected && wait < 2000; ++wait) {
        rte_mbuf* burst[32];
        const uint16_t n = rte_eth_rx_burst(out_, 0, burst, 32);
        for (uint16_t i = 0; i < n; ++i) {
          seen.push_back(read(nfv::test::from_mbuf(burst[i])));
          rte_pktmbuf_free(burst[i]);
        }
        if (n == 0) std::this_thread::sleep_for(1ms);
      }
    }
    return seen;
  }

  nfv::stats::PodStats stats() { return pod_.stats_async().get(); }
  std::string scale(int instances) { return pod_.scale("nat", 1, instances).get(); }
  uint64_t sent() const { return sent_; }

 private:
  static Seen read(const Bytes& b) {
    auto be32 = [&](size_t at) { return static_cast<uint32_t>(b[at] << 24 | b[at + 1] << 16 | b[at + 2] << 8 | b[at + 3]); };
    auto be16 = [&](size_t at) { return static_cast<uint16_t>(b[at] << 8 | b[at + 1]); };
    const bool checksum_ok = rte_raw_cksum(b.data() + 14, 20) == 0xffff;
    return Seen{be32(26), be32(30), be16(34), be16(36), be32(42), checksum_ok};
  }

  Pod& pod_;
  uint16_t in_, out_;
  rte_mempool* pool_;
  uint64_t sent_ = 0;
};

uint32_t host_order(const std::string& dotted) {
  in_addr a;
  inet_pton(AF_INET, dotted.c_str(), &a);
  return ntohl(a.s_addr);
}

// A NAT counter of each live instance, by instance id (and its state).
std::map<uint32_t, uint64_t> counter_by_instance(const nfv::stats::PodStats& stats, const std::string& name) {
  std::map<uint32_t, uint64_t> out;
  for (const auto& instance : stats.hops(0).instances())
    for (const auto& c : instance.counters())
      if (c.name() == name) out[instance.id()] = c.value();
  return out;
}

uint64_t sum(const std::map<uint32_t, uint64_t>& m) {
  uint64_t total = 0;
  for (const auto& [id, v] : m) total += v;
  return total;
}

// Sends the outbound frames of flows [first, last), twice each, and records
// each flow's external port; fails on a flow translated two ways.
void send_outbound(Driver& d, int first, int last, std::map<uint32_t, uint16_t>& port_of) {
  std::vector<Bytes> frames;
  for (int round = 0; round < 2; ++round)
    for (int f = first; f < last; ++f) frames.push_back(outbound(f));
  const auto seen = d.exchange(frames);
  ASSERT_EQ(seen.size(), frames.size());
  std::map<uint32_t, uint16_t> now;
  for (const Seen& s : seen) {
    EXPECT_EQ(s.src, host_order("203.0.113.7"));
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
void expect_replies_translated(Driver& d, int first, int last, const std::map<uint32_t, uint16_t>& port_of) {
  std::vector<Bytes> frames;
  for (int f = first; f < last; ++f) frames.push_back(reply(f, port_of.at(static_cast<uint32_t>(f))));
  const auto seen = d.exchange(frames);
  ASSERT_EQ(seen.size(), frames.size()) << "replies lost";
  int wrong = 0;
  for (const Seen& s : seen) {
    const int f = static_cast<int>(s.flow);
    if (s.dst != host_order(inside_address(f)) || s.dport != inside_port(f) || !s.ip_checksum_ok) ++wrong;
  }
  EXPECT_EQ(wrong, 0) << "replies not translated back to their inside endpoint";
}

TEST(NatScaling, OneToThreeToOneKeepsEveryTranslationAndReply) {
  nfv::test::run_in_process_pod(kPodConfig, [](Pod& pod, rte_mempool* pool) {
    Driver d(pod, pod.runtime().ports[0].port_id, pod.runtime().ports[1].port_id, pool);
    std::map<uint32_t, uint16_t> port_of;  // flow -> external port

    // One instance: flows 0..1999 get ports of slot 0's share.
    send_outbound(d, 0, 2000, port_of);
    ASSERT_EQ(port_of.size(), 2000u);
    for (const auto& [flow, port] : port_of) EXPECT_LT(port, kPortMin + kPortsPerInstance) << "flow " << flow;

    // Three instances: old flows keep their ports, 4000 new ones spread;
    // no port is handed out twice (each instance allocates from its share).
    ASSERT_EQ(d.scale(3), "");
    send_outbound(d, 0, 6000, port_of);
    ASSERT_EQ(port_of.size(), 6000u);
    std::set<uint16_t> ports;
    for (const auto& [flow, port] : port_of) ports.insert(port);
    EXPECT_EQ(ports.size(), 6000u) << "an external port serves two flows";
    auto sessions = counter_by_instance(d.stats(), "sessions");
    ASSERT_EQ(sessions.size(), 3u);
    EXPECT_EQ(sum(sessions), 6000u) << "a flow has a session in two instances: it moved";
    for (const auto& [id, n] : sessions) EXPECT_GT(n, 1000u) << "instance " << id;
    std::printf("3 instances: sessions");
    for (const auto& [id, n] : sessions) std::printf(" %u:%lu", id, static_cast<unsigned long>(n));
    std::printf("\n");

    // Every reply reaches the instance holding its session.
    expect_replies_translated(d, 0, 6000, port_of);
    auto stats = d.stats();
    EXPECT_EQ(sum(counter_by_instance(stats, "no_session")), 0u);
    EXPECT_EQ(sum(counter_by_instance(stats, "translated_in")), 6000u);

    // Down to one: two instances drain and still answer their replies; new
    // flows go to the active one only.
    ASSERT_EQ(d.scale(1), "");
    expect_replies_translated(d, 0, 6000, port_of);
    std::map<uint32_t, uint16_t> fresh_ports;
    send_outbound(d, 6000, 7000, fresh_ports);
    for (const auto& [flow, port] : fresh_ports) {
      EXPECT_LT(port, kPortMin + kPortsPerInstance) << "new flow " << flow << " on a draining instance";
      EXPECT_EQ(ports.count(port), 0u) << "port " << port << " reused while its session lives";
    }
    stats = d.stats();
    EXPECT_EQ(stats.hops(0).active_instances(), 1u);
    EXPECT_EQ(stats.hops(0).draining_instances(), 2u);
    EXPECT_EQ(sum(counter_by_instance(stats, "no_session")), 0u);
    EXPECT_EQ(sum(counter_by_instance(stats, "sessions")), 7000u);
    nfv::test::expect_all_delivered(stats, d.sent());
  });
}

}  // namespace
}  // namespace nfv
