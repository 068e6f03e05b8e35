#include "chain_fast_path_harness.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "vnf.h"

namespace nfv::test {
namespace {

using namespace std::chrono_literals;

void put32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

struct Outcome {
  std::vector<Bytes> frames;
  std::vector<std::map<std::string, uint64_t>> counters;  // at each checkpoint, and at the end
  uint64_t repeated = 0;  // packets the fast path repeated
  uint64_t entered = 0;
};

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

}  // namespace

Bytes build_frame(const FrameSpec& f, uint32_t number) {
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

bool checksums_valid(const Bytes& frame) {
  if (frame.size() < 34 || frame[12] != 0x08 || frame[13] != 0x00) return true;  // not plain IPv4: not ours to judge
  const auto* ip = reinterpret_cast<const rte_ipv4_hdr*>(frame.data() + 14);
  if (rte_raw_cksum(ip, 20) != 0xffff) return false;
  const uint8_t* l4 = frame.data() + 34;
  if (ip->next_proto_id == IPPROTO_TCP) return rte_ipv4_udptcp_cksum_verify(ip, l4) == 0;
  if (ip->next_proto_id == IPPROTO_UDP) return (l4[6] == 0 && l4[7] == 0) || rte_ipv4_udptcp_cksum_verify(ip, l4) == 0;
  return true;
}

Exchange::Exchange(Pod& pod, rte_mempool* pool) : pod_(pod), pool_(pool) {
  in_ = pod.runtime().ports[0].port_id;
  out_ = pod.runtime().ports[1].port_id;
}

std::vector<Bytes> Exchange::send(const std::vector<Bytes>& frames) {
  std::vector<Bytes> out;
  for (size_t at = 0; at < frames.size();) {
    const size_t end = std::min(frames.size(), at + 64);
    for (; at < end; ++at, ++sent_) {
      rte_mbuf* m = nfv::test::to_mbuf(pool_, frames[at]);
      for (int tries = 0; rte_eth_tx_burst(in_, 0, &m, 1) == 0; ++tries) {
        if (tries == 50000) {
          rte_pktmbuf_free(m);
          ADD_FAILURE() << "the pod took no frame for 50000 tries (frame " << at << " of " << frames.size() << ")";
          return out;
        }
        std::this_thread::sleep_for(20us);  // the pod's rx ring is full: let the worker drain it
      }
    }
    collect(out);
  }
  all_.insert(all_.end(), out.begin(), out.end());
  return out;
}

void Exchange::collect(std::vector<Bytes>& out) {
  // Summed over the workers; a worker writes its counters as it goes.
  uint64_t sent_on = 0, sent_out = 0, dropped = 0;
  const auto count = [&] {
    sent_on = sent_out = dropped = 0;
    for (int w = 0; w < pod_.runtime().worker_count; ++w) {
      const nfv::WorkerCounters& c = pod_.worker(w).counters();
      for (const auto& port : c.ports) sent_on += read_counter(port.tx_packets);
      sent_out += read_counter(c.ports[1].tx_packets);
      for (const uint64_t& d : c.drops) dropped += read_counter(d);
    }
  };
  for (int polls = 0; polls < 20000; ++polls) {
    rte_mbuf* burst[32];
    const uint16_t n = rte_eth_rx_burst(out_, 0, burst, 32);
    for (uint16_t i = 0; i < n; ++i) {
      out.push_back(nfv::test::from_mbuf(burst[i]));
      rte_pktmbuf_free(burst[i]);
    }
    received_ += n;
    if (n) continue;
    // Done when every frame sent has left or was dropped and every frame
    // that left on the out port has been read.
    count();
    if (sent_on + dropped == sent_ && received_ == sent_out) return;
    std::this_thread::sleep_for(200us);
  }
  ADD_FAILURE() << "frames unaccounted for after 20000 polls: sent " << sent_ << ", left " << sent_on << ", dropped " << dropped
                << ", left on the out port " << sent_out << ", read there " << received_;
}

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

namespace {

// The frames out, by flow (IPv4, VLAN-tagged or not: protocol, addresses,
// the first 4 bytes of L4), in order. The key is a std::string: GCC 12
// warns falsely (-Wstringop-overread) on a map keyed by std::vector.
std::map<std::string, std::vector<Bytes>> by_flow(const std::vector<Bytes>& frames) {
  std::map<std::string, std::vector<Bytes>> flows;
  for (const Bytes& f : frames) {
    const size_t l3 = f.size() > 18 && f[12] == 0x81 && f[13] == 0x00 ? 18 : 14;
    std::string key;
    if (f.size() >= l3 + 24 && f[l3 - 2] == 0x08 && f[l3 - 1] == 0x00) {
      key.push_back(static_cast<char>(f[l3 + 9]));
      key.append(f.begin() + static_cast<long>(l3) + 12, f.begin() + static_cast<long>(l3) + 24);
    }
    flows[key].push_back(f);
  }
  return flows;
}

}  // namespace

void expect_same_with_and_without(const std::string& config_template, const Scenario& scenario, double min_repeated_share,
                                  Order order) {
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
      if (r < flows[f].size()) frames.push_back(build_frame(flows[f][r], number++));
  }
  return frames;
}

}  // namespace nfv::test
