// What a VNF does with frames it cannot (or should not) process: malformed
// headers, non-IP frames, later IP fragments (no L4 header) and jumbo frames.
// Each reason has its own counter; each class of input has a drop/pass policy
// set from the hop's params, so operators choose per VNF.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rte_mbuf.h>

#include "header_mark.h"
#include "packet_parser.h"
#include "vnf.h"

namespace nfv {

enum class InputVerdict : uint8_t { kProcess, kPass, kDrop };

struct InputPolicyDefaults {
  bool drop_malformed = true;
  bool drop_non_ip = false;
  bool drop_fragments = false;
  bool drop_jumbo = false;
};

class InputPolicy {
 public:
  // Reads malformed, non_ip, fragments, jumbo (each "drop" or "pass"), and
  // rejects any param that is neither one of those nor in `vnf_params` (the
  // VNF's own), so every VNF checks its params the same way.
  void init(const VnfSettings& settings, std::vector<std::string> vnf_params, InputPolicyDefaults defaults);

  // Parses `m` and decides. kProcess: headers are sound, L4 is present (unless
  // the protocol has none). kPass/kDrop: the reason has been counted. A frame
  // with the header mark was checked by the pod (header_mark.h).
  [[gnu::always_inline]] InputVerdict check(const rte_mbuf* m, ParsedPacket& parsed) {
    if (m->ol_flags & mark_) {
      parse_trusting_mark(m, mark_, parsed);
      return InputVerdict::kProcess;
    }
    const ParseStatus status = parse_packet(m, parsed);
    if (status != ParseStatus::kOk) {
      if (status == ParseStatus::kNonIp) {
        non_ip_++;
        return drop_non_ip_ ? InputVerdict::kDrop : InputVerdict::kPass;
      }
      malformed_[static_cast<uint8_t>(status)]++;
      return drop_malformed_ ? InputVerdict::kDrop : InputVerdict::kPass;
    }
    if (parsed.vlan_tags) vlan_tagged_++;
    if (rte_pktmbuf_pkt_len(m) > kLongestStandardFrame + 4u * parsed.vlan_tags) {
      jumbo_++;
      if (drop_jumbo_) return InputVerdict::kDrop;
    }
    if (parsed.later_fragment) {
      fragments_++;
      return drop_fragments_ ? InputVerdict::kDrop : InputVerdict::kPass;
    }
    return InputVerdict::kProcess;
  }

  // The same verdict for VNFs that read header fields in place: the common
  // case (plain_ipv4_layout, a standard-size frame) builds no flow key.
  [[gnu::always_inline]] InputVerdict check(const rte_mbuf* m, HeaderLayout& layout) {
    if (m->ol_flags & mark_) {
      layout = marked_layout(m);
      return InputVerdict::kProcess;
    }
    if (plain_ipv4_layout(m, layout) && rte_pktmbuf_pkt_len(m) <= kLongestStandardFrame) return InputVerdict::kProcess;
    return check_general(m, layout);
  }

  // malformed_<reason>, non_ip, fragments, jumbo, vlan_tagged.
  void visit(const CounterVisitor& visit) const;

 private:
  static constexpr int kStatuses = 8;

  InputVerdict check_general(const rte_mbuf* m, HeaderLayout& layout);

  uint64_t malformed_[kStatuses] = {};
  uint64_t non_ip_ = 0;
  uint64_t fragments_ = 0;
  uint64_t jumbo_ = 0;
  uint64_t vlan_tagged_ = 0;
  uint64_t mark_ = 0;  // header_mark.h: frames that carry it are plain IPv4, standard size
  bool drop_malformed_ = true;
  bool drop_non_ip_ = false;
  bool drop_fragments_ = false;
  bool drop_jumbo_ = false;
};

}  // namespace nfv
