// monitor: per-flow counters (packets, bytes, first and last seen) in an
// rte_hash, and the top-k heavy hitters by bytes from a count-min sketch plus
// a k-entry min-heap, both brought up to date at each export. The worker
// publishes the top-k with their flow counters every export interval
// (seqlock: the worker never waits); the control request "top" returns that
// snapshot. Packets always pass.
#include <arpa/inet.h>

#include <atomic>
#include <ctime>
#include <sstream>
#include <vector>

#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_mbuf.h>

#include "count_min_sketch.h"
#include "hash_table.h"
#include "input_policy.h"
#include "paced_sweep.h"
#include "vnf.h"

namespace nfv {
namespace {

// The flow table's key: the flow key padded to 48 bytes, which rte_hash
// compares with vector instructions (40-byte keys go through memcmp).
struct alignas(16) TableKey {  // rte_hash_crc reads 8 bytes at a time
  FlowKey flow;
  uint8_t zero[8] = {};
};
static_assert(sizeof(TableKey) == 48);

struct FlowRecord {
  uint64_t packets;
  uint64_t bytes;
  uint64_t first_tsc;
  uint64_t last_tsc;
  int32_t heap_slot;  // -1 when not a heavy hitter
  bool active;
  // Whether the record's position is on the dirty list (kept when the
  // position takes a new flow: the list entry then serves the new one).
  bool dirty;
  uint32_t sketch_hash;  // the flow's, in the count-min sketch
  uint32_t generation;   // bumped when the record ends: its tickets end
  uint64_t unsketched;   // bytes not yet added to the sketch
};

struct HeapEntry {
  uint64_t estimate;
  int32_t flow;  // rte_hash position
};

struct alignas(8) TopFlow {
  FlowKey key;
  uint64_t packets, bytes, first_ns, last_ns, estimate;
};

constexpr uint32_t kMaxTopK = 64;

struct alignas(64) TopSnapshot {
  std::atomic<uint32_t> sequence{0};  // odd while the worker writes
  uint32_t count = 0;
  uint64_t flows = 0;
  uint64_t taken_ns = 0;
  TopFlow top[kMaxTopK];
};

std::string format_address(const FlowKey& key, const uint8_t* addr) {
  char text[INET6_ADDRSTRLEN];
  inet_ntop(key.family == AddressFamily::kIpv4 ? AF_INET : AF_INET6, addr, text, sizeof(text));
  return text;
}

class MonitorVnf final : public Vnf {
 public:
  ~MonitorVnf() override {
    if (table_) rte_hash_free(table_);
  }

  void init(const VnfSettings& settings) override {
    clock_ = settings.clock;
    input_.init(settings, {"flows", "top_k", "sketch_width", "sketch_depth", "export_interval_ms", "flow_timeout"},
                InputPolicyDefaults{.drop_malformed = false, .drop_non_ip = false, .drop_fragments = false});
    const uint32_t flows = static_cast<uint32_t>(settings.get_uint("flows", 65536, 64, 1u << 24));
    k_ = static_cast<uint32_t>(settings.get_uint("top_k", 10, 1, kMaxTopK));
    sketch_.init(static_cast<uint32_t>(settings.get_uint("sketch_width", 4096, 64, 1u << 24)),
                 static_cast<uint32_t>(settings.get_uint("sketch_depth", 4, 1, 16)));
    hz_ = rte_get_tsc_hz();
    export_interval_ = settings.get_uint("export_interval_ms", 100, 1, 60000) * hz_ / 1000;
    timeout_ = settings.get_uint("flow_timeout", 300, 0, 86400 * 7) * hz_;
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    tsc0_ = clock_();
    unix_ns0_ = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
    table_ = create_hash_table("monitor", flows, sizeof(TableKey), settings.socket_id, "flows");
    records_.assign(rte_hash_max_key_id(table_) + 1, FlowRecord{0, 0, 0, 0, -1, false, false, 0, 0, 0});
    dirty_.reserve(records_.size());  // a position is listed at most once: push_back never allocates
    if (timeout_) sweep_.init(static_cast<uint32_t>(records_.size()), timeout_ / 4, clock_());
    heap_.reserve(k_);
  }

  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) override {
    TableKey keys[kMaxVnfBurst];
    const void* key_ptrs[kMaxVnfBurst];
    uint32_t lengths[kMaxVnfBurst];
    uint16_t index[kMaxVnfBurst];  // of each counted packet in the burst (its ticket's)
    hash_sig_t hashes[kMaxVnfBurst];
    int32_t positions[kMaxVnfBurst];
    uint32_t n_ip = 0;
    uint16_t kept = 0;
    for (uint16_t i = 0; i < n; ++i) {
      ParsedPacket p;
      const InputVerdict v = input_.check(pkts[i], p);
      // Later fragments still belong to a flow (ports 0): counted under it.
      if (v == InputVerdict::kProcess || (v == InputVerdict::kPass && p.status == ParseStatus::kOk)) {
        keys[n_ip].flow = p.key;
        key_ptrs[n_ip] = &keys[n_ip];
        hashes[n_ip] = table_hash(&keys[n_ip], sizeof(keys[n_ip]));
        lengths[n_ip] = rte_pktmbuf_pkt_len(pkts[i]);
        index[n_ip++] = i;
      }
      if (v == InputVerdict::kDrop) dropped[(*n_dropped)++] = pkts[i];
      else pkts[kept++] = pkts[i];
    }
    const uint64_t now = clock_();
    if (timeout_) expire_some(now);
    if (n_ip) rte_hash_lookup_with_hash_bulk(table_, key_ptrs, hashes, n_ip, positions);
    for (uint32_t i = 0; i < n_ip; ++i) {
      int32_t pos = positions[i];
      if (pos < 0) pos = rte_hash_lookup(table_, key_ptrs[i]);  // added earlier in this burst
      if (pos < 0) {
        pos = rte_hash_add_key(table_, key_ptrs[i]);
        if (pos < 0) {
          table_full_++;
          continue;
        }
        records_[pos] = FlowRecord{0, 0, now, now, -1, true, records_[pos].dirty, flow_hash(keys[i].flow), records_[pos].generation, 0};
        flows_++;
      }
      count(pos, lengths[i], now);
      issue_ticket(index[i], FlowTicket{&records_[pos].generation, records_[pos].generation, static_cast<uint32_t>(pos)});
    }
    publish_when_due(now);
    return kept;
  }

  static constexpr bool kStateful = true;
  bool stateful() const override { return kStateful; }

  static constexpr bool kRepeatsFlows = true;
  // Flows that tie in the heavy-hitter ranking rank in the order they were
  // first counted.
  static constexpr bool kOrderAcrossFlows = true;
  void upkeep(uint64_t now) override {
    if (timeout_) expire_some(now);
  }
  uint64_t repeat(const FlowTicket* const* tickets, rte_mbuf* const* pkts, uint16_t n, uint64_t now) override {
    for (uint16_t i = 0; i < n; ++i) count(static_cast<int32_t>(tickets[i]->data), rte_pktmbuf_pkt_len(pkts[i]), now);
    publish_when_due(now);
    return 0;
  }

  // "top": the latest published heavy hitters, one line each.
  bool control(const std::string& request, std::string& reply) override {
    if (request != "top") {
      reply = "expected 'top'";
      return false;
    }
    TopSnapshot copy;
    uint32_t before;
    do {
      before = snapshot_.sequence.load(std::memory_order_acquire);
      copy.count = snapshot_.count;
      copy.flows = snapshot_.flows;
      copy.taken_ns = snapshot_.taken_ns;
      std::memcpy(copy.top, snapshot_.top, sizeof(copy.top));
      std::atomic_thread_fence(std::memory_order_acquire);
    } while ((before & 1) || snapshot_.sequence.load(std::memory_order_relaxed) != before);
    std::ostringstream out;
    out << "flows " << copy.flows << " snapshot_unix_ns " << copy.taken_ns << "\n";
    out << "rank proto src sport dst dport packets bytes first_seen_unix_ns last_seen_unix_ns bytes_estimate\n";
    for (uint32_t i = 0; i < std::min(copy.count, kMaxTopK); ++i) {
      const TopFlow& f = copy.top[i];
      out << i + 1 << " " << unsigned(f.key.protocol) << " " << format_address(f.key, f.key.src_addr) << " " << f.key.src_port << " "
          << format_address(f.key, f.key.dst_addr) << " " << f.key.dst_port << " " << f.packets << " " << f.bytes << " "
          << f.first_ns << " " << f.last_ns << " " << f.estimate << "\n";
    }
    reply = out.str();
    return true;
  }

  void visit_counters(const CounterVisitor& visit) const override {
    visit("flows", read_counter(flows_));
    visit("flows_expired", read_counter(expired_));
    visit("packets", read_counter(packets_));
    visit("bytes", read_counter(bytes_));
    visit("table_full", read_counter(table_full_));
    input_.visit(visit);
  }

 private:
  // One packet of the flow at `pos`, processed or repeated. The flow's
  // counters are exact at once; its bytes wait for the next export
  // (sketch_some), so that a flow's many packets cost one sketch add and
  // one heap move per export, not one each.
  void count(int32_t pos, uint32_t length, uint64_t now) {
    FlowRecord& r = records_[pos];
    r.packets++;
    r.bytes += length;
    r.last_tsc = now;
    r.unsketched += length;
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(pos);
    }
    packets_++;
    bytes_ += length;
  }

  // An export's work on the flows counted since the last: their bytes into
  // the sketch, then each ranked on its estimate with every flow's bytes
  // in. At most kSketchPerBurst flows a step per burst, so that a table of
  // many flows never stalls the worker for long; true once all are done.
  // dirty_ by index: [0, kept_) wait for the next export (bytes came after
  // their add), [ranked_, sketched_) are added, [sketched_, end) are not.
  static constexpr size_t kSketchPerBurst = 1024;
  bool sketch_some() {
    size_t budget = kSketchPerBurst;
    for (; sketched_ < dirty_.size() && budget; ++sketched_, --budget) {
      FlowRecord& r = records_[dirty_[sketched_]];
      sketch_.add(r.sketch_hash, r.unsketched);
      r.unsketched = 0;
    }
    for (; ranked_ < sketched_ && budget; ++ranked_, --budget) {
      const int32_t pos = dirty_[ranked_];
      FlowRecord& r = records_[pos];
      if (r.active) track_heavy_hitter(pos, sketch_.estimate(r.sketch_hash));
      if (r.unsketched) dirty_[kept_++] = pos;  // stays listed, once
      else r.dirty = false;
    }
    if (ranked_ < dirty_.size()) return false;
    dirty_.resize(kept_);  // shrinks: never allocates
    sketched_ = ranked_ = kept_ = 0;
    return true;
  }

  void publish_when_due(uint64_t now) {
    if (now < next_export_ || !sketch_some()) return;
    publish(now);
    next_export_ = now + export_interval_;
  }

  void track_heavy_hitter(int32_t pos, uint64_t estimate) {
    FlowRecord& r = records_[pos];
    if (r.heap_slot >= 0) {
      heap_[r.heap_slot].estimate = estimate;
      sift_down(static_cast<uint32_t>(r.heap_slot));
      return;
    }
    if (heap_.size() < k_) {
      heap_.push_back({estimate, pos});
      r.heap_slot = static_cast<int32_t>(heap_.size() - 1);
      sift_up(static_cast<uint32_t>(heap_.size() - 1));
      return;
    }
    if (estimate <= heap_[0].estimate) return;
    records_[heap_[0].flow].heap_slot = -1;
    heap_[0] = {estimate, pos};
    r.heap_slot = 0;
    sift_down(0);
  }

  // The records due for a check (the table once per quarter timeout, as
  // nat's sessions): idle ones past the timeout end. An expired flow
  // leaves the heavy hitters too; its bytes stay in the sketch, which only
  // ever over-estimates.
  void expire_some(uint64_t now) {
    sweep_.run(now, [&](uint32_t pos) {
      FlowRecord& r = records_[pos];
      if (!r.active || now - r.last_tsc <= timeout_) return;
      if (r.heap_slot >= 0) remove_from_heap(static_cast<uint32_t>(r.heap_slot));
      sketch_.add(r.sketch_hash, r.unsketched);  // its bytes stay in the sketch, as they would have
      r.unsketched = 0;
      void* key;
      if (rte_hash_get_key_with_position(table_, static_cast<int32_t>(pos), &key) == 0) rte_hash_del_key(table_, key);
      r.active = false;
      r.generation++;
      flows_--;
      expired_++;
    });
  }

  void remove_from_heap(uint32_t slot) {
    records_[heap_[slot].flow].heap_slot = -1;
    const HeapEntry last = heap_.back();
    heap_.pop_back();
    if (slot == heap_.size()) return;
    place(slot, last);
    sift_up(slot);
    sift_down(static_cast<uint32_t>(records_[last.flow].heap_slot));
  }

  void place(uint32_t slot, const HeapEntry& e) {
    heap_[slot] = e;
    records_[e.flow].heap_slot = static_cast<int32_t>(slot);
  }

  void sift_up(uint32_t slot) {
    const HeapEntry e = heap_[slot];
    while (slot > 0) {
      const uint32_t parent = (slot - 1) / 2;
      if (heap_[parent].estimate <= e.estimate) break;
      place(slot, heap_[parent]);
      slot = parent;
    }
    place(slot, e);
  }

  void sift_down(uint32_t slot) {
    const HeapEntry e = heap_[slot];
    const uint32_t size = static_cast<uint32_t>(heap_.size());
    while (true) {
      uint32_t child = 2 * slot + 1;
      if (child >= size) break;
      if (child + 1 < size && heap_[child + 1].estimate < heap_[child].estimate) ++child;
      if (heap_[child].estimate >= e.estimate) break;
      place(slot, heap_[child]);
      slot = child;
    }
    place(slot, e);
  }

  uint64_t to_unix_ns(uint64_t tsc) const { return unix_ns0_ + static_cast<uint64_t>((tsc - tsc0_) * 1e9 / hz_); }

  // Sorted by estimate, largest first; runs once per export interval.
  void publish(uint64_t now) {
    TopFlow sorted[kMaxTopK];
    uint32_t count = 0;
    for (const HeapEntry& e : heap_) {
      const void* key;
      if (rte_hash_get_key_with_position(table_, e.flow, const_cast<void**>(&key)) != 0) continue;
      const FlowRecord& r = records_[e.flow];
      sorted[count++] = TopFlow{*static_cast<const FlowKey*>(key), r.packets, r.bytes, to_unix_ns(r.first_tsc), to_unix_ns(r.last_tsc), e.estimate};
    }
    std::sort(sorted, sorted + count, [](const TopFlow& a, const TopFlow& b) { return a.estimate > b.estimate; });
    const uint32_t seq = snapshot_.sequence.load(std::memory_order_relaxed);
    snapshot_.sequence.store(seq + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    snapshot_.count = count;
    snapshot_.flows = flows_;
    snapshot_.taken_ns = to_unix_ns(now);
    std::memcpy(snapshot_.top, sorted, sizeof(TopFlow) * count);
    snapshot_.sequence.store(seq + 2, std::memory_order_release);
  }

  rte_hash* table_ = nullptr;
  std::vector<FlowRecord> records_;
  CountMinSketch sketch_;
  std::vector<HeapEntry> heap_;  // min-heap on estimate, at most k_ entries
  std::vector<int32_t> dirty_;   // positions with bytes not yet sketched, each once
  size_t sketched_ = 0, ranked_ = 0, kept_ = 0;  // an export's progress through dirty_ (sketch_some)
  uint32_t k_ = 10;
  uint64_t hz_ = 1;
  uint64_t tsc0_ = 0, unix_ns0_ = 0;
  uint64_t export_interval_ = 0, next_export_ = 0;
  TopSnapshot snapshot_;
  InputPolicy input_;
  TscClock clock_ = &hardware_tsc;
  uint64_t flows_ = 0;
  uint64_t packets_ = 0;
  uint64_t bytes_ = 0;
  uint64_t table_full_ = 0;
  uint64_t expired_ = 0;
  uint64_t timeout_ = 0;  // TSC; 0: flows never expire
  PacedSweep sweep_;  // runs only with a timeout
};

}  // namespace

NFV_REGISTER_VNF("monitor", MonitorVnf, "per-flow packets, bytes, first/last seen, and top-k heavy hitters (count-min sketch + heap)");

}  // namespace nfv
