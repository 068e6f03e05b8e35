// A pod run inside the test process (EAL's worker lcore forwards) while a
// driver thread feeds it and asks it for scale changes and counters: the
// harness of the live-scaling tests.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <rte_mempool.h>

#include "packet_builder.h"
#include "pod.h"

namespace nfv::test {

// A one-site pod whose net_ring port `in` feeds chain `chain` (all UDP) of
// one hop, `hop` (a flow-style YAML map, e.g. "{vnf: nat, site: A, ...}"),
// which sends to port `out`: a net_ring to read back (`out_driver` "ring")
// or a sink ("null").
std::string one_hop_pod_config(const std::string& chain, const std::string& out_driver, const std::string& hop);

// Starts a pod on `config_yaml`, runs `drive(pod, frame_pool)` on a thread
// until it returns, stops and closes the pod, and checks that every mbuf of
// the pod's pool and of the frame pool was freed.
void run_in_process_pod(const std::string& config_yaml, const std::function<void(Pod&, rte_mempool*)>& drive);

// A UDP frame (Ethernet, IPv4 without options) whose payload starts with
// `flow`, so the test knows each frame that comes out whatever was rewritten.
Bytes udp_frame_of_flow(const std::string& src, uint16_t sport, const std::string& dst, uint16_t dport, uint32_t flow);

// What a frame of udp_frame_of_flow says when it leaves the pod (host order).
struct SeenFrame {
  uint32_t src, dst;
  uint16_t sport, dport;
  uint32_t flow;
  bool ip_checksum_ok;
};

uint32_t ipv4_host_order(const std::string& dotted);

// Feeds a pod through its net_ring input and reads its net_ring output.
class RingExchange {
 public:
  RingExchange(uint16_t in_port, uint16_t out_port, rte_mempool* pool) : in_(in_port), out_(out_port), pool_(pool) {}
  // Sends the frames in chunks the output ring can hold, reading what comes
  // out after each chunk; returns everything that came out.
  std::vector<SeenFrame> exchange(const std::vector<Bytes>& frames);
  uint64_t sent() const { return sent_; }

 private:
  uint16_t in_, out_;
  rte_mempool* pool_;
  uint64_t sent_ = 0;
};

// A counter of each live instance of hop 0, by instance id.
std::map<uint32_t, uint64_t> counter_by_instance(const nfv::stats::PodStats& stats, const std::string& name);
uint64_t sum(const std::map<uint32_t, uint64_t>& by_instance);

// Chain 0 delivered every one of `sent` packets: none dropped, none moved
// off its instance (hop 0's pool).
void expect_all_delivered(const nfv::stats::PodStats& stats, uint64_t sent);

}  // namespace nfv::test
