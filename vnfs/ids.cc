// ids: signature matching over L4 payloads with an Aho–Corasick DFA. Each
// signature has an alert counter (packets that matched it) and an action:
// alert (count, pass) or drop. Signature file format: docs/vnfs.md.
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <random>
#include <vector>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "aho_corasick.h"
#include "input_policy.h"
#include "text_file.h"
#include "vnf.h"

namespace nfv {
namespace {

struct Signature {
  uint32_t sid;
  bool drop;
  std::string content;
};

// "..." with \\ \" \xHH escapes; `pos` is at the opening quote, left after the closing one.
bool parse_quoted(const std::string& text, size_t& pos, std::string& out) {
  if (pos >= text.size() || text[pos] != '"') return false;
  for (++pos; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '"') {
      ++pos;
      return true;
    }
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++pos >= text.size()) return false;
    if (text[pos] == '\\' || text[pos] == '"') {
      out.push_back(text[pos]);
    } else if (text[pos] == 'x' && pos + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[pos + 1])) &&
               std::isxdigit(static_cast<unsigned char>(text[pos + 2]))) {
      out.push_back(static_cast<char>(std::stoi(text.substr(pos + 1, 2), nullptr, 16)));
      pos += 2;
    } else {
      return false;
    }
  }
  return false;
}

class IdsVnf final : public Vnf {
 public:
  void init(const VnfSettings& settings) override {
    input_.init(settings, {"signatures_file", "random_signatures", "seed"},
                InputPolicyDefaults{.drop_malformed = true, .drop_non_ip = false, .drop_fragments = false});
    std::vector<Signature> signatures;
    const std::string file = settings.get_string("signatures_file", "");
    if (!file.empty()) {
      read_text_file("signatures_file", file, [&](const TextLine& line) {
        const std::string expected = "SID alert|drop \"CONTENT\" [message]";
        if (line.fields.size() < 3) line.fail("signatures_file", expected);
        Signature s{};
        char* end = nullptr;
        const unsigned long sid = std::strtoul(line.fields[0].c_str(), &end, 10);
        if (*end || sid == 0 || sid > UINT32_MAX) line.fail("signatures_file", "a signature id 1-4294967295; " + expected);
        s.sid = static_cast<uint32_t>(sid);
        if (line.fields[1] != "alert" && line.fields[1] != "drop") line.fail("signatures_file", "action alert or drop; " + expected);
        s.drop = line.fields[1] == "drop";
        size_t pos = line.text.find('"');
        if (pos == std::string::npos || !parse_quoted(line.text, pos, s.content) || s.content.empty())
          line.fail("signatures_file", "non-empty quoted content with \\\\ \\\" \\xHH escapes; " + expected);
        signatures.push_back(std::move(s));
      });
    }
    // Bench: random 8-16 byte contents (alert only), sids from 1000000.
    const uint64_t random = settings.get_uint("random_signatures", 0, 0, 100000);
    std::mt19937 rng(static_cast<uint32_t>(settings.get_uint("seed", 1, 0, UINT32_MAX)));
    for (uint64_t i = 0; i < random; ++i) {
      Signature s{static_cast<uint32_t>(1000000 + i), false, std::string(8 + rng() % 9, '\0')};
      for (char& c : s.content) c = static_cast<char>(rng());
      signatures.push_back(std::move(s));
    }
    if (signatures.empty()) throw VnfConfigError("signatures_file", "at least one signature (or random_signatures)");
    std::vector<std::string> contents;
    for (const auto& s : signatures) {
      contents.push_back(s.content);
      sids_.push_back(s.sid);
      drop_.push_back(s.drop);
    }
    automaton_ = std::make_unique<AhoCorasick>(contents);
    alerts_.assign(signatures.size(), 0);
    counted_.assign(signatures.size() * kLanes, 0);
  }

  // Payloads in one segment (nearly all) are scanned kLanes at a time,
  // interleaved byte by byte: each DFA step is a load that depends on the
  // one before, and a table larger than L1 makes that a cache latency per
  // byte; independent packets let those latencies overlap.
  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) override {
    bool drop[kMaxVnfBurst];
    Payload queued[kMaxVnfBurst];
    uint16_t n_queued = 0;
    for (uint16_t i = 0; i < n; ++i) {
      HeaderLayout h;
      const InputVerdict v = input_.check(pkts[i], h);
      drop[i] = v == InputVerdict::kDrop;
      if (v != InputVerdict::kProcess) continue;
      uint32_t begin, end;
      if (!payload_range(pkts[i], h, begin, end)) continue;
      if (end <= pkts[i]->data_len) queued[n_queued++] = {rte_pktmbuf_mtod_offset(pkts[i], const uint8_t*, begin), end - begin, i};
      else drop[i] = scan_segments(pkts[i], begin, end);
    }
    scan_interleaved(queued, n_queued, drop);
    return compact_burst(pkts, n, dropped, n_dropped, [&drop](uint16_t i) { return drop[i]; });
  }

  static constexpr bool kStateful = false;
  bool stateful() const override { return kStateful; }

  void visit_counters(const CounterVisitor& visit) const override {
    visit("signatures", sids_.size());
    visit("automaton_states", automaton_->states());
    visit("packets_scanned", read_counter(scanned_));
    visit("payload_bytes_scanned", read_counter(bytes_));
    visit("packets_alerted", read_counter(alerted_));
    visit("packets_dropped", read_counter(dropped_));
    // One counter per signature that has fired (thousands of zeros would drown the rest).
    for (size_t s = 0; s < sids_.size(); ++s)
      if (const uint64_t a = read_counter(alerts_[s])) visit("alerts_sid_" + std::to_string(sids_[s]), a);
    input_.visit(visit);
  }

 private:
  static constexpr int kLanes = 8;

  struct Payload {
    const uint8_t* data;
    uint32_t length;
    uint16_t packet;  // index in the burst
  };

  // One packet's scan in progress.
  struct Lane {
    const uint8_t* data = nullptr;
    uint32_t left = 0;
    AhoCorasick::State state = AhoCorasick::kStart;
    uint64_t serial = 0;  // the packet's, unique: see counted_
    bool alerted = false, drop = false;
  };

  void start(Lane& lane) {
    lane.state = AhoCorasick::kStart;
    lane.serial = ++packet_serial_;
    lane.alerted = lane.drop = false;
  }

  // The L4 payload's byte range [begin, end) within the packet; false when empty.
  bool payload_range(const rte_mbuf* m, const HeaderLayout& h, uint32_t& begin, uint32_t& end) {
    const uint8_t* l3 = rte_pktmbuf_mtod_offset(m, const uint8_t*, h.l3_offset);
    end = h.l3_offset;
    if (h.family == AddressFamily::kIpv4) end += rte_be_to_cpu_16(reinterpret_cast<const rte_ipv4_hdr*>(l3)->total_length);
    else end += sizeof(rte_ipv6_hdr) + rte_be_to_cpu_16(reinterpret_cast<const rte_ipv6_hdr*>(l3)->payload_len);
    begin = h.l4_offset;
    if (h.protocol == IPPROTO_TCP) begin += (rte_pktmbuf_mtod_offset(m, const rte_tcp_hdr*, h.l4_offset)->data_off >> 4) * 4u;
    else if (h.protocol == IPPROTO_UDP) begin += 8;
    end = std::min(end, rte_pktmbuf_pkt_len(m));
    scanned_++;
    if (begin >= end) return false;
    bytes_ += end - begin;
    return true;
  }

  // Counts the signatures ending at `state`, each once per packet: O(1) per
  // match, so a payload that matches every signature costs no more than that.
  void report(int j, AhoCorasick::State state) {
    Lane& lane = lanes_[j];
    for (const uint32_t* id = automaton_->matches_begin(state); id != automaton_->matches_end(state); ++id) {
      uint64_t& counted = counted_[*id * kLanes + static_cast<uint32_t>(j)];
      if (counted == lane.serial) continue;
      counted = lane.serial;
      alerts_[*id]++;
      lane.alerted = true;
      lane.drop |= drop_[*id];
    }
  }

  // The packet's verdict once its whole payload is scanned: true to drop.
  bool finish(const Lane& lane) {
    alerted_ += lane.alerted;
    dropped_ += lane.drop;
    return lane.drop;
  }

  void scan_interleaved(const Payload* queued, uint16_t n_queued, bool* drop) {
    const AhoCorasick::State* table = automaton_->table();
    uint16_t packet_of[kLanes];
    uint16_t next = 0;
    const auto take_next = [&](int j) {
      start(lanes_[j]);
      lanes_[j].data = queued[next].data;
      lanes_[j].left = queued[next].length;
      packet_of[j] = queued[next++].packet;
    };
    int busy = 0;
    for (; busy < kLanes && next < n_queued; ++busy) take_next(busy);
    while (busy) {
      for (int j = 0; j < kLanes; ++j) {
        Lane& lane = lanes_[j];
        if (!lane.left) continue;
        lane.state = AhoCorasick::next(table, lane.state, *lane.data++);
        if (AhoCorasick::has_matches(lane.state)) [[unlikely]] report(j, lane.state);
        if (--lane.left) [[likely]] continue;
        drop[packet_of[j]] = finish(lane);
        if (next < n_queued) take_next(j);
        else --busy;
      }
    }
  }

  // A payload across several segments (jumbo frames), on its own; true to drop.
  bool scan_segments(const rte_mbuf* m, uint32_t begin, uint32_t end) {
    Lane& lane = lanes_[0];
    start(lane);
    const AhoCorasick::State* table = automaton_->table();
    uint32_t seg_start = 0;
    for (const rte_mbuf* seg = m; seg && seg_start < end; seg_start += seg->data_len, seg = seg->next) {
      const uint32_t seg_end = seg_start + seg->data_len;
      if (seg_end <= begin) continue;
      const uint8_t* data = rte_pktmbuf_mtod(seg, const uint8_t*);
      const uint32_t from = std::max(begin, seg_start) - seg_start, to = std::min(end, seg_end) - seg_start;
      for (uint32_t k = from; k < to; ++k) {
        lane.state = AhoCorasick::next(table, lane.state, data[k]);
        if (AhoCorasick::has_matches(lane.state)) [[unlikely]] report(0, lane.state);
      }
    }
    return finish(lane);
  }

  std::unique_ptr<AhoCorasick> automaton_;
  std::vector<uint32_t> sids_;
  std::vector<uint8_t> drop_;
  std::vector<uint64_t> alerts_;
  // [signature * kLanes + lane]: the serial of the last packet that lane
  // counted the signature for (one slot per lane: packets scanned side by
  // side must not overwrite each other's).
  std::vector<uint64_t> counted_;
  uint64_t packet_serial_ = 0;
  Lane lanes_[kLanes];
  InputPolicy input_;
  uint64_t scanned_ = 0;
  uint64_t bytes_ = 0;
  uint64_t alerted_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("ids", IdsVnf, "signature matching over L4 payloads (Aho-Corasick), alert counters per signature, optional drop");

}  // namespace nfv
