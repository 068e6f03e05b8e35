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
#include <arpa/inet.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "in_process_pod.h"
#include "packet_builder.h"
#include "vnf.h"

namespace nfv {
namespace {

using namespace std::chrono_literals;
using nfv::test::Bytes;

constexpr uint8_t kSyn = 0x02, kFin = 0x01, kRst = 0x04, kAck = 0x10;

// One frame to send: an IPv4 TCP/UDP/ICMP packet with a frame number in its payload.
struct FrameSpec {
  std::string src, dst;
  uint8_t protocol = IPPROTO_UDP;
  uint16_t sport = 0, dport = 0;
  uint8_t tcp_flags = kAck;
  uint8_t ttl = 64;
  bool udp_checksum = true;
  bool vlan = false;
};

void put32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

Bytes build(const FrameSpec& f, uint32_t number) {
  constexpr uint16_t kPayload = 12;
  Bytes l4;
  if (f.protocol == IPPROTO_TCP) {
    l4 = nfv::test::tcp(f.sport, f.dport);
    l4[13] = f.tcp_flags;
    l4.resize(20 + kPayload, 0x5a);
  } else if (f.protocol == IPPROTO_UDP) {
    l4 = nfv::test::udp(f.sport, f.dport, kPayload);
  } else {  // ICMP echo request, the source port as its id
    l4 = {8, 0, 0, 0, static_cast<uint8_t>(f.sport >> 8), static_cast<uint8_t>(f.sport), 0, 1};
    l4.resize(8 + kPayload, 0x33);
  }
  put32(l4, l4.size() - 4, number);
  Bytes ip = nfv::test::ipv4(f.src, f.dst, f.protocol, static_cast<uint16_t>(l4.size()));
  ip[8] = f.ttl;
  ip[10] = ip[11] = 0;
  const uint16_t ip_sum = rte_ipv4_cksum(reinterpret_cast<const rte_ipv4_hdr*>(ip.data()));
  std::memcpy(&ip[10], &ip_sum, 2);
  Bytes frame = f.vlan ? nfv::test::concat({nfv::test::ethernet(0x8100), nfv::test::vlan_tag(7, 0x0800), ip, l4})
                       : nfv::test::concat({nfv::test::ethernet(0x0800), ip, l4});
  uint8_t* ip_at = frame.data() + (f.vlan ? 18 : 14);
  uint8_t* l4_at = ip_at + 20;
  const auto* header = reinterpret_cast<const rte_ipv4_hdr*>(ip_at);
  if (f.protocol == IPPROTO_TCP) {
    const uint16_t sum = rte_ipv4_udptcp_cksum(header, l4_at);
    std::memcpy(l4_at + 16, &sum, 2);
  } else if (f.protocol == IPPROTO_UDP && f.udp_checksum) {
    const uint16_t sum = rte_ipv4_udptcp_cksum(header, l4_at);
    std::memcpy(l4_at + 6, &sum, 2);
  } else if (f.protocol == IPPROTO_ICMP) {
    const uint16_t sum = static_cast<uint16_t>(~rte_raw_cksum(l4_at, l4.size()));
    std::memcpy(l4_at + 2, &sum, 2);
  }
  return frame;
}

// Whether a frame that left the pod carries valid checksums.
bool checksums_valid(const Bytes& frame) {
  if (frame.size() < 34 || frame[12] != 0x08 || frame[13] != 0x00) return true;  // not plain IPv4: not ours to judge
  const auto* ip = reinterpret_cast<const rte_ipv4_hdr*>(frame.data() + 14);
  if (rte_raw_cksum(ip, 20) != 0xffff) return false;
  const uint8_t* l4 = frame.data() + 34;
  if (ip->next_proto_id == IPPROTO_TCP) return rte_ipv4_udptcp_cksum_verify(ip, l4) == 0;
  if (ip->next_proto_id == IPPROTO_UDP) return (l4[6] == 0 && l4[7] == 0) || rte_ipv4_udptcp_cksum_verify(ip, l4) == 0;
  return true;
}

// Feeds the pod through its net_ring input, reads every frame that comes out.
class Exchange {
 public:
  Exchange(Pod& pod, rte_mempool* pool) : pod_(pod), pool_(pool) {
    in_ = pod.runtime().ports[0].port_id;
    out_ = pod.runtime().ports[1].port_id;
  }

  // Sends the frames (in chunks the rings hold) and returns what left, in order.
  std::vector<Bytes> send(const std::vector<Bytes>& frames) {
    std::vector<Bytes> out;
    for (size_t at = 0; at < frames.size();) {
      const size_t end = std::min(frames.size(), at + 64);
      for (; at < end; ++at, ++sent_) {
        rte_mbuf* m = nfv::test::to_mbuf(pool_, frames[at]);
        while (rte_eth_tx_burst(in_, 0, &m, 1) == 0) std::this_thread::sleep_for(20us);
      }
      collect(out);
    }
    all_.insert(all_.end(), out.begin(), out.end());
    return out;
  }

  const std::vector<Bytes>& all() const { return all_; }

  // Notes every counter now (see counters_of), for comparing the runs phase by phase.
  void checkpoint();
  const std::vector<std::map<std::string, uint64_t>>& checkpoints() const { return checkpoints_; }

 private:
  // Reads until the worker has taken every frame sent and 10 ms pass with nothing new.
  void collect(std::vector<Bytes>& out) {
    const auto received = [&] { return read_counter(pod_.worker(0).counters().ports[0].rx_packets); };
    auto quiet_since = std::chrono::steady_clock::now();
    for (int polls = 0; polls < 20000; ++polls) {
      rte_mbuf* burst[32];
      const uint16_t n = rte_eth_rx_burst(out_, 0, burst, 32);
      for (uint16_t i = 0; i < n; ++i) {
        out.push_back(nfv::test::from_mbuf(burst[i]));
        rte_pktmbuf_free(burst[i]);
      }
      if (n) {
        quiet_since = std::chrono::steady_clock::now();
        continue;
      }
      if (received() == sent_ && std::chrono::steady_clock::now() - quiet_since > 10ms) return;
      std::this_thread::sleep_for(200us);
    }
    ADD_FAILURE() << "the pod did not take every frame sent";
  }

  Pod& pod_;
  rte_mempool* pool_;
  uint16_t in_ = 0, out_ = 0;
  uint64_t sent_ = 0;
  std::vector<Bytes> all_;
  std::vector<std::map<std::string, uint64_t>> checkpoints_;
};

// Every counter that must not depend on the fast path, by name.
std::map<std::string, uint64_t> counters_of(const nfv::stats::PodStats& stats) {
  std::map<std::string, uint64_t> c;
  for (const auto& chain : stats.chains()) {
    c["chain in"] = chain.in_packets();
    c["chain in bytes"] = chain.in_bytes();
    c["chain out"] = chain.out_packets();
    c["chain out bytes"] = chain.out_bytes();
    for (const auto& d : chain.drops()) c["chain drop " + d.reason()] = d.packets();
  }
  for (const auto& d : stats.drops()) c["drop " + d.reason()] = d.packets();
  for (const auto& hop : stats.hops()) {
    const std::string h = "hop " + std::to_string(hop.hop()) + " " + hop.vnf() + " ";
    c[h + "in"] = hop.in_packets();
    c[h + "out"] = hop.out_packets();
    c[h + "dropped"] = hop.dropped();
    c[h + "flows moved"] = hop.flows_moved();
    for (const auto& instance : hop.instances()) {
      const std::string i = h + "slot " + std::to_string(instance.slot()) + " ";  // ids run on across pods of a process
      c[i + "in"] = instance.in_packets();
      c[i + "out"] = instance.out_packets();
      c[i + "in bytes"] = instance.in_bytes();
      c[i + "dropped"] = instance.dropped();
      for (const auto& counter : instance.counters())
        if (counter.name() != "flow_cache_hits" && counter.name() != "flow_cache_misses" && counter.name() != "bursts")
          c[i + counter.name()] = counter.value();
    }
  }
  return c;
}

void Exchange::checkpoint() { checkpoints_.push_back(counters_of(pod_.stats_async().get())); }

struct Outcome {
  std::vector<Bytes> frames;
  std::vector<std::map<std::string, uint64_t>> counters;  // at each checkpoint, and at the end
  uint64_t repeated = 0;  // packets the fast path repeated
  uint64_t entered = 0;
};

using Scenario = std::function<void(Pod&, Exchange&)>;

Outcome run(const std::string& config, const Scenario& scenario) {
  Outcome outcome;
  nfv::test::run_in_process_pod(config, [&](Pod& pod, rte_mempool* pool) {
    Exchange exchange(pod, pool);
    scenario(pod, exchange);
    const auto stats = pod.stats_async().get();
    outcome.frames = exchange.all();
    outcome.counters = exchange.checkpoints();
    outcome.counters.push_back(counters_of(stats));
    outcome.repeated = stats.chains(0).fast_path_packets();
    outcome.entered = stats.chains(0).in_packets();
  });
  return outcome;
}

// Which order the frames out must match in: all of it, or each flow's.
enum class Order { kAll, kPerFlow };

// The frames out, by flow (IPv4, VLAN-tagged or not: protocol, addresses,
// the first 4 bytes of L4), in order.
std::map<Bytes, std::vector<Bytes>> by_flow(const std::vector<Bytes>& frames) {
  std::map<Bytes, std::vector<Bytes>> flows;
  for (const Bytes& f : frames) {
    const size_t l3 = f.size() > 18 && f[12] == 0x81 && f[13] == 0x00 ? 18 : 14;
    Bytes key;
    if (f.size() >= l3 + 24 && f[l3 - 2] == 0x08 && f[l3 - 1] == 0x00) {
      key.push_back(f[l3 + 9]);
      key.insert(key.end(), f.begin() + static_cast<long>(l3) + 12, f.begin() + static_cast<long>(l3) + 24);
    }
    flows[key].push_back(f);
  }
  return flows;
}

// Runs the scenario with and without the fast path ("FAST_PATH" in the
// config) and compares the two runs.
void expect_same_with_and_without(const std::string& config_template, const Scenario& scenario, double min_repeated_share,
                                  Order order = Order::kAll) {
  const auto config_with = [&](bool on) {
    std::string c = config_template;
    c.replace(c.find("FAST_PATH"), 9, on ? "true" : "false");
    return c;
  };
  const Outcome fast = run(config_with(true), scenario);
  const Outcome slow = run(config_with(false), scenario);
  EXPECT_EQ(slow.repeated, 0u);
  EXPECT_GE(static_cast<double>(fast.repeated), min_repeated_share * static_cast<double>(fast.entered))
      << "the fast path repeated " << fast.repeated << " of " << fast.entered << " packets";
  ASSERT_EQ(fast.frames.size(), slow.frames.size()) << "frames out with and without the fast path";
  int differ = 0, bad_checksums = 0;
  if (order == Order::kAll) {
    for (size_t i = 0; i < fast.frames.size(); ++i)
      if (fast.frames[i] != slow.frames[i] && differ++ < 5) ADD_FAILURE() << "frame " << i << " out differs";
  } else {
    const auto fast_flows = by_flow(fast.frames), slow_flows = by_flow(slow.frames);
    EXPECT_EQ(fast_flows.size(), slow_flows.size()) << "flows out";
    for (const auto& [key, frames] : slow_flows) {
      const auto it = fast_flows.find(key);
      if ((it == fast_flows.end() || it->second != frames) && differ++ < 5) ADD_FAILURE() << "a flow's frames out differ";
    }
  }
  for (const Bytes& frame : fast.frames) bad_checksums += !checksums_valid(frame);
  EXPECT_EQ(differ, 0) << "frames that differ";
  EXPECT_EQ(bad_checksums, 0) << "frames out with a wrong checksum";
  ASSERT_EQ(fast.counters.size(), slow.counters.size());
  for (size_t at = 0; at < slow.counters.size(); ++at) {
    for (const auto& [name, value] : slow.counters[at]) {
      const auto it = fast.counters[at].find(name);
      if (it == fast.counters[at].end()) ADD_FAILURE() << "no counter '" << name << "' with the fast path";
      else EXPECT_EQ(it->second, value) << name << " at checkpoint " << at;
    }
    EXPECT_EQ(fast.counters[at].size(), slow.counters[at].size());
  }
}

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

// Rounds of traffic: the k-th packet of every flow in round k, the flows of
// a round in a shuffled (fixed) order, so flows interleave but each flow's
// packets keep their order.
std::vector<Bytes> interleave(const std::vector<std::vector<FrameSpec>>& flows, uint32_t& number, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<size_t> order(flows.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<Bytes> frames;
  size_t rounds = 0;
  for (const auto& f : flows) rounds = std::max(rounds, f.size());
  for (size_t r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t f : order)
      if (r < flows[f].size()) frames.push_back(build(flows[f][r], number++));
  }
  return frames;
}

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
    for (int burst = 0; burst < 100; ++burst) exchange.send({build(keepalive, number++)});
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
    for (uint32_t round = 0; round < 6; ++round) {
      exchange.send(interleave(flows, number, 60 + round));
      exchange.checkpoint();
    }
    ASSERT_EQ(pod.scale("web", 1, 3).get(), "");
    for (uint32_t round = 0; round < 3; ++round) {
      exchange.send(interleave(flows, number, 70 + round));
      exchange.checkpoint();
    }
  };
  expect_same_with_and_without(config, scenario, 0.2, Order::kPerFlow);
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

}  // namespace
}  // namespace nfv
