#include "in_process_pod.h"

#include <arpa/inet.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "config_loader.h"
#include "packet_builder.h"

namespace nfv::test {

std::string one_hop_pod_config(const std::string& chain, const std::string& out_driver, const std::string& hop) {
  return "name: " + chain + R"(
sites: [{name: A, lat: 40.78, lon: -73.97}]
hosted_sites: [A]
ports:
  - {name: in, driver: ring, site: A}
  - {name: out, driver: )" + out_driver + R"(, site: A, tx_only: true}
chains:
  - name: )" + chain + R"(
    id: 1
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{protocol: udp}]
    hops:
      - )" + hop + "\n";
}

void run_in_process_pod(const std::string& config_yaml, const std::function<void(Pod&, rte_mempool*)>& drive) {
  LoadedConfig loaded = parse_pod_config(config_yaml, "in_process.yaml");
  Pod pod(build_pod_layout(loaded.config));
  pod.start();
  rte_mempool* frames = test_pool("in_process_gen", 16383);
  std::atomic<bool> stop{false};
  std::thread driver([&] {
    drive(pod, frames);
    stop = true;
  });
  pod.run(PodRunOptions{0, 0, 0}, stop);
  driver.join();
  const auto final_stats = pod.close();
  EXPECT_EQ(final_stats.mempool_in_use_after_close(), 0);
  EXPECT_EQ(rte_mempool_in_use_count(frames), 0u) << "generated frames not all freed";
  rte_mempool_free(frames);
}

Bytes udp_frame_of_flow(const std::string& src, uint16_t sport, const std::string& dst, uint16_t dport, uint32_t flow) {
  Bytes frame = concat({ethernet(0x0800), ipv4(src, dst, 17, 8 + 8), udp(sport, dport, 8)});
  for (int i = 0; i < 4; ++i) frame[42 + i] = static_cast<uint8_t>(flow >> (24 - 8 * i));
  return frame;
}

uint32_t ipv4_host_order(const std::string& dotted) {
  in_addr a{};
  inet_pton(AF_INET, dotted.c_str(), &a);
  return ntohl(a.s_addr);
}

namespace {

SeenFrame read_frame(const Bytes& b) {
  auto be32 = [&](size_t at) { return static_cast<uint32_t>(b[at] << 24 | b[at + 1] << 16 | b[at + 2] << 8 | b[at + 3]); };
  auto be16 = [&](size_t at) { return static_cast<uint16_t>(b[at] << 8 | b[at + 1]); };
  return SeenFrame{be32(26), be32(30), be16(34), be16(36), be32(42), rte_raw_cksum(b.data() + 14, 20) == 0xffff};
}

}  // namespace

std::vector<SeenFrame> RingExchange::exchange(const std::vector<Bytes>& frames) {
  using namespace std::chrono_literals;
  std::vector<SeenFrame> seen;
  for (size_t at = 0; at < frames.size();) {
    const size_t chunk_end = std::min(frames.size(), at + 128);
    const size_t expected = seen.size() + (chunk_end - at);
    for (; at < chunk_end; ++at, ++sent_) {
      rte_mbuf* m = to_mbuf(pool_, frames[at]);
      while (rte_eth_tx_burst(in_, 0, &m, 1) == 0) std::this_thread::sleep_for(20us);
    }
    for (int wait = 0; seen.size() < expected && wait < 2000; ++wait) {
      rte_mbuf* burst[32];
      const uint16_t n = rte_eth_rx_burst(out_, 0, burst, 32);
      for (uint16_t i = 0; i < n; ++i) {
        seen.push_back(read_frame(from_mbuf(burst[i])));
        rte_pktmbuf_free(burst[i]);
      }
      if (n == 0) std::this_thread::sleep_for(1ms);
    }
  }
  return seen;
}

std::map<uint32_t, uint64_t> counter_by_instance(const nfv::stats::PodStats& stats, const std::string& name) {
  std::map<uint32_t, uint64_t> out;
  for (const auto& instance : stats.hops(0).instances())
    for (const auto& c : instance.counters())
      if (c.name() == name) out[instance.id()] = c.value();
  return out;
}

uint64_t sum(const std::map<uint32_t, uint64_t>& by_instance) {
  uint64_t total = 0;
  for (const auto& [id, v] : by_instance) total += v;
  return total;
}

void expect_all_delivered(const nfv::stats::PodStats& stats, uint64_t sent) {
  EXPECT_EQ(stats.hops(0).flows_moved(), 0u);
  EXPECT_EQ(stats.hops(0).queue_full(), 0u);
  EXPECT_EQ(stats.chains(0).in_packets(), sent);
  EXPECT_EQ(stats.chains(0).out_packets(), sent) << "packets lost during scaling";
  EXPECT_EQ(stats.drops_size(), 0);
}

}  // namespace nfv::test
