// counter: per-flow packet and byte counts in an rte_hash keyed by 5-tuple.
// Packets always pass; a full table or a non-IP frame is counted, not dropped.
#include <new>
#include <vector>

#include <rte_hash.h>
#include <rte_mbuf.h>

#include "hash_table.h"
#include "packet_parser.h"
#include "vnf.h"

namespace nfv {
namespace {

struct FlowCount {
  uint64_t packets;
  uint64_t bytes;
};

class CounterVnf final : public Vnf {
 public:
  ~CounterVnf() override {
    if (table_) rte_hash_free(table_);
  }

  void init(const VnfSettings& settings) override {
    settings.reject_unknown({"flows"});
    const uint32_t flows = static_cast<uint32_t>(settings.get_uint("flows", 65536, 8, 1u << 24));
    table_ = create_hash_table("counter", flows, sizeof(FlowKey), settings.socket_id, "flows");
    // rte_hash positions index this array; it is sized once, never per packet.
    counts_.assign(rte_hash_max_key_id(table_) + 1, FlowCount{0, 0});
  }

  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf**, uint16_t*) override {
    FlowKey keys[kMaxBurst];
    const void* key_ptrs[kMaxBurst];
    rte_mbuf* ip_pkts[kMaxBurst];
    uint16_t index[kMaxBurst];  // of each IP packet in the burst
    int32_t positions[kMaxBurst];
    uint32_t n_ip = 0;
    for (uint16_t i = 0; i < n; ++i) {
      ParsedPacket parsed;
      if (parse_packet(pkts[i], parsed) != ParseStatus::kOk) {
        non_ip_++;
        continue;
      }
      keys[n_ip] = parsed.key;
      key_ptrs[n_ip] = &keys[n_ip];
      index[n_ip] = i;
      ip_pkts[n_ip++] = pkts[i];
    }
    if (n_ip) rte_hash_lookup_bulk(table_, key_ptrs, n_ip, positions);
    for (uint32_t i = 0; i < n_ip; ++i) {
      int32_t pos = positions[i];
      // A flow seen twice in one burst misses the bulk lookup both times.
      if (pos < 0) pos = rte_hash_lookup(table_, key_ptrs[i]);
      if (pos < 0) {
        pos = rte_hash_add_key(table_, key_ptrs[i]);
        if (pos < 0) {
          table_full_++;
          continue;
        }
        flows_++;
      }
      count(pos, rte_pktmbuf_pkt_len(ip_pkts[i]));
      // A flow's position is never released: its later packets count there.
      issue_ticket(index[i], FlowTicket{nullptr, 0, static_cast<uint32_t>(pos)});
    }
    packets_ += n_ip;
    return n;
  }

  static constexpr bool kStateful = true;
  bool stateful() const override { return kStateful; }

  static constexpr bool kRepeatsFlows = true;
  uint64_t repeat(const FlowTicket* const* tickets, rte_mbuf* const* pkts, uint16_t n, uint64_t) override {
    for (uint16_t i = 0; i < n; ++i) count(static_cast<int32_t>(tickets[i]->data), rte_pktmbuf_pkt_len(pkts[i]));
    packets_ += n;
    return 0;
  }

  void visit_counters(const CounterVisitor& visit) const override {
    visit("flows", read_counter(flows_));
    visit("ip_packets", read_counter(packets_));
    visit("non_ip_packets", read_counter(non_ip_));
    visit("table_full", read_counter(table_full_));
  }

 private:
  // One packet of the flow at `pos`, processed or repeated.
  void count(int32_t pos, uint32_t bytes) {
    counts_[pos].packets++;
    counts_[pos].bytes += bytes;
  }

  static constexpr uint32_t kMaxBurst = kMaxVnfBurst;
  static_assert(kMaxBurst <= RTE_HASH_LOOKUP_BULK_MAX);
  rte_hash* table_ = nullptr;
  std::vector<FlowCount> counts_;
  uint64_t flows_ = 0;
  uint64_t packets_ = 0;
  uint64_t non_ip_ = 0;
  uint64_t table_full_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("counter", CounterVnf, "counts packets and bytes per 5-tuple flow in an rte_hash");

}  // namespace nfv
