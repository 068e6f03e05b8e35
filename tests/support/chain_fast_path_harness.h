// The harness of the chain fast path's differential test
// (tests/chain_fast_path_test.cc): frames built from specs, a pod in this
// process fed through its net_ring ports, every counter that must not depend
// on the fast path, and one scenario run with the fast path and hop by hop.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "in_process_pod.h"
#include "packet_builder.h"

struct rte_mempool;

namespace nfv::test {

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

// The frame of `f`, numbered `number` in its payload, with valid checksums
// (a UDP checksum only if f.udp_checksum).
Bytes build_frame(const FrameSpec& f, uint32_t number);

// Whether a frame that left the pod carries valid checksums.
bool checksums_valid(const Bytes& frame);

// Feeds the pod through its net_ring input, reads every frame that comes out.
class Exchange {
 public:
  Exchange(Pod& pod, rte_mempool* pool);

  // Sends the frames (in chunks the rings hold) and returns what left, in order.
  std::vector<Bytes> send(const std::vector<Bytes>& frames);

  const std::vector<Bytes>& all() const { return all_; }

  // Notes every counter now (see counters_of), for comparing the runs phase by phase.
  void checkpoint();
  const std::vector<std::map<std::string, uint64_t>>& checkpoints() const { return checkpoints_; }

 private:
  // Reads until every frame sent has left the pod or was dropped, and all
  // that left on the out port has been read (fails after a bound).
  void collect(std::vector<Bytes>& out);

  Pod& pod_;
  rte_mempool* pool_;
  uint16_t in_ = 0, out_ = 0;
  uint64_t sent_ = 0;
  uint64_t received_ = 0;  // frames read on the out port
  std::vector<Bytes> all_;
  std::vector<std::map<std::string, uint64_t>> checkpoints_;
};

// Every counter that must not depend on the fast path, by name.
std::map<std::string, uint64_t> counters_of(const nfv::stats::PodStats& stats);

using Scenario = std::function<void(Pod&, Exchange&)>;

// Which order the frames out must match in: all of it, or each flow's
// (where a pool of several instances or a queue decides the order in which
// different flows leave).
enum class Order { kAll, kPerFlow };

// Runs the scenario with and without the fast path ("FAST_PATH" in the
// config) and compares the two runs.
// At least `min_repeated_share` of the packets must be repeated from records.
void expect_same_with_and_without(const std::string& config_template, const Scenario& scenario, double min_repeated_share,
                                  Order order = Order::kAll);

// Rounds of traffic: the k-th packet of every flow in round k, the flows of
// a round in a shuffled (fixed) order, so flows interleave but each flow's
// packets keep their order.
std::vector<Bytes> interleave(const std::vector<std::vector<FrameSpec>>& flows, uint32_t& number, uint32_t seed);

}  // namespace nfv::test
