// Generator mode: sends every chain's packets at the rate the trace gives
// for the current slot. Pacing is by TSC: packet i of a slot is due i/rate
// seconds after the slot starts, and a slot never sends more than its quota
// (rate x slot length), so a generator that keeps up sends exactly the
// target. Packets are built in bursts of up to 32 straight into mbufs from
// the mempool: a Zipf-popular flow, a size from the mix, the chain's
// headers and the probe payload (probe_payload.h). What the port refuses is
// retried, never dropped, so sequence numbers stay gap-free.
//
// A generator held off its core (or by a full port) falls behind and then
// catches up with bursts that the trace does not have; how far behind it
// fell is kept per slot, so a reader can tell such a slot from the network's
// own behaviour.
#pragma once

#include <cstdint>
#include <vector>

#include "alias_table.h"
#include "replay_config.h"
#include "wall_clock.h"

struct rte_mbuf;
struct rte_mempool;

namespace nfv {

class TraceGenerator {
 public:
  static constexpr uint16_t kBurst = 32;

  TraceGenerator(const GeneratorPlan& plan, uint16_t port_id, rte_mempool* pool, const WallClock& clock);
  ~TraceGenerator();
  TraceGenerator(const TraceGenerator&) = delete;
  TraceGenerator& operator=(const TraceGenerator&) = delete;

  // Slot 0 starts at `start_tsc`; slots before `first_slot` send nothing
  // (a generator that joins a slot clock late).
  void start(uint64_t start_tsc, std::size_t first_slot = 0);
  // One pass: builds what is due and transmits. False once the last slot
  // is over and nothing is left to send.
  bool poll(uint64_t now_tsc);
  // Retries what the port has not taken until `deadline_tsc`, then frees it.
  void finish(uint64_t deadline_tsc);

  const GeneratorPlan& plan() const { return plan_; }
  uint64_t start_ns() const { return start_ns_; }
  uint64_t slot_tsc() const { return slot_tsc_; }
  // The slot running now (plan().slots once over).
  std::size_t current_slot() const { return slot_; }
  // Packets and bytes the port took, by the slot they were built in: [slot * chains + chain].
  uint64_t sent(std::size_t slot, std::size_t chain) const { return sent_[slot * chains_.size() + chain]; }
  uint64_t sent_bytes(std::size_t slot, std::size_t chain) const { return sent_bytes_[slot * chains_.size() + chain]; }
  uint64_t quota(std::size_t slot, std::size_t chain) const;
  // The most a packet of the slot was built after it was due, in ms.
  double behind_max_ms(std::size_t slot) const;
  uint64_t unsent_at_end() const { return unsent_at_end_; }
  uint64_t mbuf_shortages() const { return mbuf_shortages_; }
  uint64_t total_sent() const;

 private:
  struct FlowAddress {
    uint32_t src;        // network order
    uint32_t dst;
    uint16_t src_port;
  };
  struct ChainState {
    alignas(64) uint8_t headers[42];  // Ethernet + IPv4 + UDP, per-packet fields filled in
    std::vector<FlowAddress> flows;
    AliasTable popularity;
    uint64_t next_seq = 0;
    double packets_per_tsc = 0;  // this slot's rate
    uint64_t quota = 0;          // this slot's packets
    uint64_t built = 0;          // built this slot
  };

  void enter_slot(std::size_t slot);
  void build(uint16_t chain, uint16_t count, uint64_t now_ns);
  void transmit();

  const GeneratorPlan& plan_;
  uint16_t port_id_;
  rte_mempool* pool_;
  const WallClock& clock_;
  std::vector<ChainState> chains_;
  std::vector<uint16_t> sizes_;
  AliasTable size_mix_;
  FastRandom random_;

  uint64_t start_tsc_ = 0, start_ns_ = 0, slot_tsc_ = 0, slot_start_tsc_ = 0;
  std::size_t slot_ = 0;
  std::size_t first_slot_ = 0;
  bool slot_entered_ = false;

  // Built, not yet taken by the port; oldest first.
  rte_mbuf* pending_[kBurst];
  uint16_t pending_chain_[kBurst];
  uint16_t pending_bytes_[kBurst];
  uint32_t pending_slot_[kBurst];
  uint16_t pending_count_ = 0;

  std::vector<uint64_t> sent_, sent_bytes_;
  std::vector<uint64_t> behind_max_tsc_;  // by slot
  uint64_t unsent_at_end_ = 0;
  uint64_t mbuf_shortages_ = 0;
};

}  // namespace nfv
