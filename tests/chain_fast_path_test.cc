// The chain fast path (dataplane/chain_fast_path.h) changes what a packet
// costs, nothing else. The same traffic goes through a pod twice, once with
// the fast path and once hop by hop (fast_path: false); both runs must send
// the same frames out in the same order and end with the same counters
// everywhere (chains, drops, hops, instances, every VNF counter but the
// VNFs' own lookup caches), while the fast run repeats most packets from
// their records. The traffic has what a record must not cover: TCP opens
// and closes, TTLs that run out, denied flows, flows a VNF cannot repeat
// (ICMP, VLAN tags, traffic that is not for a VIP), UDP without a checksum,
// replies; and what must end records: a backend marked down, connections
// that expire, a stateful hop scaled out and in (its flows must stay where the
// fast path kept them), pools of 3-4 instances scaled between rounds of
// flows that live on, instances with a service rate offered more than it
// (packets queue and the fast path must queue them as hop by hop does),
// and chains of monitor, counter and ratelimit (a meter that turns a flow
// red drops its repeated packets). Every frame that leaves carries valid
// IPv4 and TCP/UDP checksums. Where a pool of several instances or a queue
// decides the order in which different flows leave, the frames are compared
// flow by flow (each flow's frames in the same order).
//
// The pod runs in this process (EAL: main lcore + one worker) between two
// net_ring ports.
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "chain_fast_path_harness.h"
#include "control.pb.h"

namespace nfv {
namespace {

using namespace std::chrono_literals;
using namespace nfv::test;

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string chain_pod_config(const std::string& hops) {
  return R"(name: fastpath
sites: [{name: A, lat: 40.78, lon: -73.97}]
hosted_sites: [A]
ports:
  - {name: in, driver: ring, site: A}
  - {name: out, driver: ring, site: A, tx_only: true}
chains:
  - name: web
    id: 1
    ingress_site: A
    egress_site: A
    egress_port: out
    fast_path: FAST_PATH
    match: [{}]
    hops:
)" + hops;
}

std::string inside(int host) { return "10.0." + std::to_string(host / 200) + "." + std::to_string(1 + host % 200); }

// Clients of the VIPs and of other servers, and what the firewall denies.
std::vector<std::vector<FrameSpec>> client_traffic() {
  std::vector<std::vector<FrameSpec>> flows;
  for (int c = 0; c < 160; ++c) {  // UDP to the DNS VIP; some without a checksum, some with TTLs that run out
    FrameSpec f{inside(c), "198.51.100.10", IPPROTO_UDP, static_cast<uint16_t>(3000 + c), 53};
    f.udp_checksum = c % 9 != 0;
    std::vector<FrameSpec> packets(4, f);
    if (c % 13 == 0) packets[2].ttl = 1;  // the router drops it
    if (c % 13 == 1) packets[2].ttl = 2;  // the router passes it with TTL 1
    flows.push_back(packets);
  }
  for (int c = 0; c < 60; ++c) {  // TCP to the web VIP: open, data, close (some reset)
    const FrameSpec f{inside(300 + c), "198.51.100.10", IPPROTO_TCP, static_cast<uint16_t>(40000 + c), 80};
    std::vector<FrameSpec> packets(6, f);
    packets[0].tcp_flags = kSyn;
    packets[4].tcp_flags = c % 5 == 0 ? kRst : kFin | kAck;
    flows.push_back(packets);
  }
  for (int c = 0; c < 30; ++c)  // not for a VIP: the lb passes them without a ticket
    flows.push_back(std::vector<FrameSpec>(3, FrameSpec{inside(400 + c), "198.51.100.77", IPPROTO_UDP, static_cast<uint16_t>(5000 + c), 5000}));
  for (int c = 0; c < 20; ++c)  // telnet: denied by the firewall
    flows.push_back(std::vector<FrameSpec>(2, FrameSpec{inside(450 + c), "198.51.100.10", IPPROTO_TCP, static_cast<uint16_t>(6000 + c), 23}));
  for (int c = 0; c < 10; ++c) {  // ICMP echo and VLAN-tagged frames go hop by hop
    flows.push_back(std::vector<FrameSpec>(3, FrameSpec{inside(500 + c), "198.51.100.10", IPPROTO_ICMP, static_cast<uint16_t>(700 + c), 0}));
    FrameSpec tagged{inside(520 + c), "198.51.100.10", IPPROTO_UDP, static_cast<uint16_t>(7000 + c), 53};
    tagged.vlan = true;
    flows.push_back(std::vector<FrameSpec>(3, tagged));
  }
  return flows;
}

// `rounds` rounds of every flow, interleaved (seeds from `first_seed`), each
// waited for.
void send_rounds(Exchange& exchange, const std::vector<std::vector<FrameSpec>>& flows, uint32_t& number, uint32_t first_seed,
                 uint32_t rounds) {
  for (uint32_t round = 0; round < rounds; ++round) {
    exchange.send(interleave(flows, number, first_seed + round));
    exchange.checkpoint();
  }
}

// client_traffic() in `rounds` rounds through the chain of `config`, with
// and without the fast path; frames compared flow by flow (pools decide
// the order of different flows).
void expect_client_rounds_same(const std::string& config, uint32_t first_seed, uint32_t rounds, double min_repeated) {
  const Scenario scenario = [first_seed, rounds](Pod&, Exchange& exchange) {
    uint32_t number = 0;
    send_rounds(exchange, client_traffic(), number, first_seed, rounds);
  };
  expect_same_with_and_without(config, scenario, min_repeated, Order::kPerFlow);
}

nfv::control::Request vnf_request(uint32_t hop, const std::string& text) {
  nfv::control::Request r;
  r.mutable_vnf()->set_chain("web");
  r.mutable_vnf()->set_hop(hop);
  r.mutable_vnf()->set_request(text);
  return r;
}

TEST(ChainFastPath, ChangesNothingButTheCostOfAFourVnfChain) {
  const std::string rules = write_file("fast_path_rules.txt", "deny tcp any any any 23\n");
  const std::string routes = write_file("fast_path_routes.txt",
                                        "0.0.0.0/0 02:00:00:00:00:01\n192.0.2.0/24 02:00:00:00:00:05\n198.51.100.0/24 02:00:00:00:00:03\n");
  const std::string config = chain_pod_config(
      "      - {vnf: firewall, site: A, params: {default: allow, rules_file: " + rules + "}}\n"
      "      - {vnf: nat, site: A, max_instances: 2, params: {external: \"203.0.113.1,203.0.113.2\", internal: \"10.0.0.0/8\"}}\n"
      "      - {vnf: lb, site: A, max_instances: 2, params: {conn_timeout: \"2\", connections: \"2048\", services: "
      "\"198.51.100.10:80/tcp=192.0.2.1:8080,192.0.2.2:8080;198.51.100.10:53/udp=192.0.2.1:53,192.0.2.2:53,192.0.2.3:53\"}}\n"
      "      - {vnf: router, site: A, params: {routes_file: " + routes + "}}\n");
  const Scenario scenario = [](Pod& pod, Exchange& exchange) {
    const auto flows = client_traffic();
    uint32_t number = 0;
    uint32_t seed = 1;
    const auto traffic = [&] {
      exchange.send(interleave(flows, number, seed++));
      exchange.checkpoint();
    };
    traffic();  // records are made
    // and used, for longer than the lb's timeout: its connections live on
    for (int round = 0; round < 8; ++round) {
      traffic();
      std::this_thread::sleep_for(200ms);
    }
    // UDP flows to it keep their records' generation: only the control request ends them.
    const auto down = pod.request_async(vnf_request(3, "backend down 192.0.2.2:53")).get();
    ASSERT_TRUE(down.ok()) << down.error();
    traffic();  // connections on the backend that went down move
    // Every lb connection expires: idle for over its timeout, then one flow's
    // packets in bursts enough for the lb's paced sweep to cover its table
    // (64 positions a burst) before the traffic comes back, in both runs alike.
    std::this_thread::sleep_for(2600ms);
    const FrameSpec keepalive{inside(900), "198.51.100.10", IPPROTO_UDP, 9999, 53};
    for (int burst = 0; burst < 100; ++burst) exchange.send({build_frame(keepalive, number++)});
    traffic();
    traffic();
    // Two nat instances: hop by hop, and every flow stays on the instance
    // that ran alone (the fast path kept the pool's memory of its flows).
    ASSERT_EQ(pod.scale("web", 2, 2).get(), "");
    traffic();
    ASSERT_EQ(pod.scale("web", 2, 1).get(), "");  // once the other has drained, the fast path again
    traffic();
    traffic();
  };
  expect_same_with_and_without(config, scenario, 0.4);
  std::filesystem::remove(rules);
  std::filesystem::remove(routes);
}

// Replies through nat -> router: the nat translates them back from the
// sessions its outbound packets opened, and the fast path repeats both
// directions, keeping the sessions alive past their timeout.
TEST(ChainFastPath, ChangesNothingButTheCostOfNatRepliesBothWays) {
  const std::string routes = write_file("fast_path_routes2.txt", "0.0.0.0/0 02:00:00:00:00:01\n10.0.0.0/8 02:00:00:00:00:04\n");
  const std::string config = chain_pod_config(
      "      - {vnf: nat, site: A, params: {external: \"203.0.113.9\", internal: \"10.0.0.0/8\", udp_timeout: \"2\", tcp_timeout: \"2\"}}\n"
      "      - {vnf: router, site: A, params: {routes_file: " + routes + "}}\n");
  const Scenario scenario = [](Pod&, Exchange& exchange) {
    std::vector<std::vector<FrameSpec>> outbound;
    for (int c = 0; c < 200; ++c) {
      const bool tcp = c % 2;
      const FrameSpec f{inside(c), "198.51.100.20", static_cast<uint8_t>(tcp ? IPPROTO_TCP : IPPROTO_UDP), static_cast<uint16_t>(1500 + c), 443};
      outbound.push_back(std::vector<FrameSpec>(3, f));
    }
    uint32_t number = 0;
    const auto out = exchange.send(interleave(outbound, number, 11));
    // One reply flow to each external port (and protocol) the flows were given.
    std::set<std::pair<uint8_t, uint16_t>> sessions;
    std::vector<std::vector<FrameSpec>> replies;
    for (const Bytes& b : out) {
      ASSERT_GE(b.size(), 38u);
      const uint8_t protocol = b[23];
      const uint16_t port = static_cast<uint16_t>(b[34] << 8 | b[35]);
      if (!sessions.insert({protocol, port}).second) continue;
      FrameSpec r{"198.51.100.20", "203.0.113.9", protocol, 443, port};
      std::vector<FrameSpec> packets(4, r);
      if (protocol == IPPROTO_TCP) packets[3].tcp_flags = kFin | kAck;
      replies.push_back(packets);
    }
    // For longer than the sessions' timeout: they live on.
    for (int round = 0; round < 16; ++round) {
      exchange.send(interleave(replies, number, 20 + round));
      exchange.send(interleave(outbound, number, 30 + round));
      exchange.checkpoint();
      std::this_thread::sleep_for(200ms);
    }
  };
  expect_same_with_and_without(config, scenario, 0.6);
  std::filesystem::remove(routes);
}

// Every pool of several instances: flows spread over them by Maglev (the
// stateless hops) and by flow pin (nat, lb), the fast path repeating each
// flow through its own instances; pools scaled out and in between rounds
// of flows that live on (a record ends with each scale, the next packet of
// its flow records it again, pinned where it was).
TEST(ChainFastPath, ChangesNothingButTheCostOfPoolsOfSeveralInstancesScaled) {
  const std::string rules = write_file("fast_path_rules3.txt", "deny tcp any any any 23\n");
  const std::string routes = write_file("fast_path_routes3.txt",
                                        "0.0.0.0/0 02:00:00:00:00:01\n192.0.2.0/24 02:00:00:00:00:05\n198.51.100.0/24 02:00:00:00:00:03\n");
  const std::string config = chain_pod_config(
      "      - {vnf: firewall, site: A, instances: 3, max_instances: 4, params: {default: allow, rules_file: " + rules + "}}\n"
      "      - {vnf: nat, site: A, instances: 3, max_instances: 4, params: {external: \"203.0.113.1,203.0.113.2,203.0.113.3,203.0.113.4\","
      " internal: \"10.0.0.0/8\"}}\n"
      "      - {vnf: lb, site: A, instances: 4, max_instances: 4, params: {connections: \"4096\", services: "
      "\"198.51.100.10:80/tcp=192.0.2.1:8080,192.0.2.2:8080;198.51.100.10:53/udp=192.0.2.1:53,192.0.2.2:53,192.0.2.3:53\"}}\n"
      "      - {vnf: router, site: A, instances: 3, max_instances: 4, params: {routes_file: " + routes + "}}\n");
  const Scenario scenario = [](Pod& pod, Exchange& exchange) {
    const auto flows = client_traffic();
    uint32_t number = 0;
    uint32_t seed = 40;
    const auto traffic = [&] {
      exchange.send(interleave(flows, number, seed++));
      exchange.checkpoint();
    };
    traffic();
    traffic();
    ASSERT_EQ(pod.scale("web", 2, 4).get(), "");  // nat out: old flows stay pinned, new ones spread
    traffic();
    ASSERT_EQ(pod.scale("web", 3, 3).get(), "");  // lb in: one instance drains, its flows stay on it
    traffic();
    ASSERT_EQ(pod.scale("web", 1, 4).get(), "");  // the stateless hops: Maglev moves flows
    ASSERT_EQ(pod.scale("web", 4, 2).get(), "");
    traffic();
    traffic();
    ASSERT_EQ(pod.scale("web", 2, 2).get(), "");
    traffic();
    traffic();
  };
  expect_same_with_and_without(config, scenario, 0.4, Order::kPerFlow);
  std::filesystem::remove(rules);
  std::filesystem::remove(routes);
}

// Flows repeated for over two pin idle timeouts keep their pins (a repeat
// looks them up every 1/64 of the timeout, not every packet; a flow's later
// packets in a round skip the look-up): when the nat pool then scales out,
// no flow moves to the new instance, with the fast path as without it.
TEST(ChainFastPath, ChangesNothingButTheCostOfPinsKeptAliveByRepeats) {
  const std::string routes = write_file("fast_path_routes6.txt", "0.0.0.0/0 02:00:00:00:00:01\n198.51.100.0/24 02:00:00:00:00:03\n");
  const std::string config = chain_pod_config(
      "      - {vnf: nat, site: A, instances: 2, max_instances: 4, flow_idle_timeout_ms: 600, params: {external: "
      "\"203.0.113.1,203.0.113.2,203.0.113.3,203.0.113.4\", internal: \"10.0.0.0/8\", udp_timeout: \"30\", tcp_timeout: \"30\"}}\n"
      "      - {vnf: router, site: A, params: {routes_file: " + routes + "}}\n");
  const Scenario scenario = [](Pod& pod, Exchange& exchange) {
    const auto flows = client_traffic();
    uint32_t number = 0;
    for (uint32_t round = 0; round < 14; ++round) {  // 1.4 s: over two idle timeouts
      exchange.send(interleave(flows, number, 90 + round));
      exchange.checkpoint();
      std::this_thread::sleep_for(100ms);  // time passing, not a wait for anything
    }
    ASSERT_EQ(pod.scale("web", 1, 3).get(), "");
    send_rounds(exchange, flows, number, 110, 2);
  };
  expect_same_with_and_without(config, scenario, 0.4, Order::kPerFlow);
  std::filesystem::remove(routes);
}

// Instances with a service rate, offered bursts of more packets than they
// have tokens for: some bursts are served at once, the rest queue and are
// served as tokens come; the fast path repeats a run only where every
// instance it crosses has tokens for it and nothing queued, and leaves the
// rest to queue hop by hop.
TEST(ChainFastPath, ChangesNothingButTheCostOfRateLimitedInstancesOverloaded) {
  const std::string routes = write_file("fast_path_routes4.txt",
                                        "0.0.0.0/0 02:00:00:00:00:01\n192.0.2.0/24 02:00:00:00:00:05\n198.51.100.0/24 02:00:00:00:00:03\n");
  const std::string config = chain_pod_config(
      "      - {vnf: nat, site: A, instances: 2, max_instances: 4, service_rate_pps: 20000, params: {external: "
      "\"203.0.113.1,203.0.113.2,203.0.113.3,203.0.113.4\", internal: \"10.0.0.0/8\"}}\n"
      "      - {vnf: lb, site: A, instances: 3, max_instances: 4, service_rate_pps: 20000, params: {services: "
      "\"198.51.100.10:80/tcp=192.0.2.1:8080,192.0.2.2:8080;198.51.100.10:53/udp=192.0.2.1:53,192.0.2.2:53,192.0.2.3:53\"}}\n"
      "      - {vnf: router, site: A, service_rate_pps: 40000, params: {routes_file: " + routes + "}}\n");
  const Scenario scenario = [](Pod& pod, Exchange& exchange) {
    const auto flows = client_traffic();
    uint32_t number = 0;
    send_rounds(exchange, flows, number, 60, 6);
    ASSERT_EQ(pod.scale("web", 1, 3).get(), "");
    send_rounds(exchange, flows, number, 70, 3);
  };
  // Tokens refill by wall time, so the share repeated varies with the
  // machine's speed and load (19% in a run beside two busy processes).
  expect_same_with_and_without(config, scenario, 0.1, Order::kPerFlow);
  std::filesystem::remove(routes);
}

// monitor, counter and ratelimit (one meter for the chain, one per flow)
// repeated: the flows' packet and byte counts, the meters' colours, and the
// packets a meter turns red dropped from the repeat at that hop.
TEST(ChainFastPath, ChangesNothingButTheCostOfMonitorCounterAndRatelimit) {
  const std::string routes = write_file("fast_path_routes5.txt", "0.0.0.0/0 02:00:00:00:00:01\n198.51.100.0/24 02:00:00:00:00:03\n");
  // Meters that barely refill (1 byte/s): their colours depend on the bytes
  // offered, not on how fast the test runs.
  const std::string config = chain_pod_config(
      "      - {vnf: monitor, site: A}\n"
      "      - {vnf: counter, site: A}\n"
      "      - {vnf: ratelimit, site: A, params: {per: chain, cir: \"1\", cbs: \"300000\", ebs: \"100000\"}}\n"
      "      - {vnf: nat, site: A, params: {external: \"203.0.113.1\", internal: \"10.0.0.0/8\"}}\n"
      "      - {vnf: ratelimit, site: A, params: {per: flow, cir: \"1\", cbs: \"600\", ebs: \"200\", drop: yellow}}\n"
      "      - {vnf: router, site: A, params: {routes_file: " + routes + "}}\n");
  const Scenario scenario = [](Pod&, Exchange& exchange) {
    const auto flows = client_traffic();
    uint32_t number = 0;
    for (uint32_t round = 0; round < 8; ++round) {
      exchange.send(interleave(flows, number, 80 + round));
      exchange.checkpoint();
    }
  };
  expect_same_with_and_without(config, scenario, 0.3);
  std::filesystem::remove(routes);
}

// Per-flow meters in a pool behind a pool that steers by another hash: lb
// steers by the connection as it sees it (after nat), the hops after it by
// the flow's own hash, so a ratelimit instance gets the flows of several lb
// instances. It meters them in one repeat, and the packets its meters turn
// red must be the ones dropped, wherever they sit in the burst.
TEST(ChainFastPath, ChangesNothingButTheCostOfMetersBehindAPoolThatSteersByConnection) {
  const std::string routes = write_file("fast_path_routes8.txt", "0.0.0.0/0 02:00:00:00:00:01\n192.0.2.0/24 02:00:00:00:00:05\n");
  const std::string config = chain_pod_config(
      "      - {vnf: nat, site: A, instances: 3, max_instances: 4, params: {external: \"203.0.113.1,203.0.113.2,203.0.113.3\","
      " internal: \"10.0.0.0/8\"}}\n"
      "      - {vnf: lb, site: A, instances: 3, max_instances: 4, params: {connections: \"4096\", services: "
      "\"198.51.100.10:80/tcp=192.0.2.1:8080,192.0.2.2:8080;198.51.100.10:53/udp=192.0.2.1:53,192.0.2.2:53,192.0.2.3:53\"}}\n"
      "      - {vnf: ratelimit, site: A, instances: 3, max_instances: 4, params: {per: flow, cir: \"1\", cbs: \"400\", ebs: \"200\", drop: yellow}}\n"
      "      - {vnf: router, site: A, instances: 2, max_instances: 4, params: {routes_file: " + routes + "}}\n");
  expect_client_rounds_same(config, 120, 6, 0.3);
  std::filesystem::remove(routes);
}

// A meter for the whole chain, then a pool of several routers: hop by hop
// the meter sees the burst in arrival order and the router pool splits it
// after; the fast path puts the burst in the pool's order, and must still
// hand the meter its packets as they came, or it colours other flows' packets.
TEST(ChainFastPath, ChangesNothingButTheCostOfAChainMeterBeforeAPool) {
  const std::string routes = write_file("fast_path_routes9.txt", "0.0.0.0/0 02:00:00:00:00:01\n198.51.100.0/24 02:00:00:00:00:03\n");
  const std::string config = chain_pod_config(
      "      - {vnf: firewall, site: A, params: {default: allow}}\n"
      "      - {vnf: ratelimit, site: A, params: {per: chain, cir: \"1\", cbs: \"40000\", ebs: \"20000\", drop: yellow}}\n"
      "      - {vnf: router, site: A, instances: 3, max_instances: 4, params: {routes_file: " + routes + "}}\n");
  expect_client_rounds_same(config, 160, 4, 0.3);
  std::filesystem::remove(routes);
}

}  // namespace
}  // namespace nfv
