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
    last_packet_.assign(signatures.size(), 0);
  }

  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) override {
    uint16_t kept = 0;
    for (uint16_t i = 0; i < n; ++i) {
      ParsedPacket p;
      const InputVerdict v = input_.check(pkts[i], p);
      bool drop = v == InputVerdict::kDrop;
      if (v == InputVerdict::kProcess) drop = scan(pkts[i], p);
      if (drop) dropped[(*n_dropped)++] = pkts[i];
      else pkts[kept++] = pkts[i];
    }
    return kept;
  }

  bool stateful() const override { return false; }

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
  // Returns true to drop.
  bool scan(const rte_mbuf* m, const ParsedPacket& p) {
    const uint8_t* l3 = rte_pktmbuf_mtod_offset(m, const uint8_t*, p.l3_offset);
    uint32_t end = p.l3_offset;
    if (p.key.family == AddressFamily::kIpv4) end += rte_be_to_cpu_16(reinterpret_cast<const rte_ipv4_hdr*>(l3)->total_length);
    else end += sizeof(rte_ipv6_hdr) + rte_be_to_cpu_16(reinterpret_cast<const rte_ipv6_hdr*>(l3)->payload_len);
    uint32_t begin = p.l4_offset;
    if (p.key.protocol == IPPROTO_TCP) begin += (rte_pktmbuf_mtod_offset(m, const rte_tcp_hdr*, p.l4_offset)->data_off >> 4) * 4u;
    else if (p.key.protocol == IPPROTO_UDP) begin += 8;
    end = std::min(end, rte_pktmbuf_pkt_len(m));
    scanned_++;
    if (begin >= end) return false;
    ++packet_serial_;
    bool alerted = false, drop = false;
    AhoCorasick::State state = AhoCorasick::kStart;
    const AhoCorasick::State* table = automaton_->table();
    // Walk the segments: jumbo frames span several.
    uint32_t seg_start = 0;
    for (const rte_mbuf* seg = m; seg && seg_start < end; seg_start += seg->data_len, seg = seg->next) {
      const uint32_t seg_end = seg_start + seg->data_len;
      if (seg_end <= begin) continue;
      const uint8_t* data = rte_pktmbuf_mtod(seg, const uint8_t*);
      const uint32_t from = std::max(begin, seg_start) - seg_start, to = std::min(end, seg_end) - seg_start;
      bytes_ += to - from;
      for (uint32_t k = from; k < to; ++k) {
        state = AhoCorasick::next(table, state, data[k]);
        if (!AhoCorasick::has_matches(state)) [[likely]] continue;
        for (const uint32_t* id = automaton_->matches_begin(state); id != automaton_->matches_end(state); ++id) {
          if (last_packet_[*id] == packet_serial_) continue;  // one alert per packet per signature
          last_packet_[*id] = packet_serial_;
          alerts_[*id]++;
          alerted = true;
          drop |= drop_[*id];
        }
      }
    }
    if (alerted) alerted_++;
    if (drop) dropped_++;
    return drop;
  }

  std::unique_ptr<AhoCorasick> automaton_;
  std::vector<uint32_t> sids_;
  std::vector<uint8_t> drop_;
  std::vector<uint64_t> alerts_;
  std::vector<uint64_t> last_packet_;
  uint64_t packet_serial_ = 0;
  InputPolicy input_;
  uint64_t scanned_ = 0;
  uint64_t bytes_ = 0;
  uint64_t alerted_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("ids", IdsVnf, "signature matching over L4 payloads (Aho-Corasick), alert counters per signature, optional drop");

}  // namespace nfv
