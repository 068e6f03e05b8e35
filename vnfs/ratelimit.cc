// ratelimit: policing with rte_meter, srTCM (RFC 2697) or trTCM (RFC 2698),
// one meter per chain instance or one per flow (an rte_hash maps flows to
// meters; flows beyond the table share one overflow meter). Colour-aware mode
// takes the pre-colour from the IPv4/IPv6 DSCP drop precedence (AFx1 green,
// AFx2 yellow, AFx3 red; other codepoints green). Packets at or above the
// `drop` colour are dropped.
#include <netinet/in.h>

#include <vector>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_meter.h>

#include "hash_table.h"
#include "input_policy.h"
#include "vnf.h"

namespace nfv {
namespace {

union Meter {
  rte_meter_srtcm sr;
  rte_meter_trtcm tr;
};

class RateLimitVnf final : public Vnf {
 public:
  ~RateLimitVnf() override {
    if (table_) rte_hash_free(table_);
  }

  void init(const VnfSettings& settings) override {
    clock_ = settings.clock;
    input_.init(settings, {"mode", "per", "cir", "cbs", "ebs", "pir", "pbs", "drop", "colour_aware", "flows"},
                InputPolicyDefaults{.drop_malformed = true, .drop_non_ip = false, .drop_fragments = false});
    const std::string mode = settings.get_string("mode", "srtcm");
    if (mode != "srtcm" && mode != "trtcm") throw VnfConfigError("mode", "'srtcm' or 'trtcm', got '" + mode + "'");
    trtcm_ = mode == "trtcm";
    const std::string per = settings.get_string("per", "chain");
    if (per != "chain" && per != "flow") throw VnfConfigError("per", "'chain' or 'flow', got '" + per + "'");
    const std::string drop = settings.get_string("drop", "red");
    if (drop == "red") drop_from_ = RTE_COLOR_RED;
    else if (drop == "yellow") drop_from_ = RTE_COLOR_YELLOW;
    else throw VnfConfigError("drop", "'red' or 'yellow' (drop that colour and worse), got '" + drop + "'");
    const std::string aware = settings.get_string("colour_aware", "no");
    if (aware != "yes" && aware != "no") throw VnfConfigError("colour_aware", "'yes' or 'no', got '" + aware + "'");
    colour_aware_ = aware == "yes";
    // Rates in bytes per second, bursts in bytes (rte_meter's units).
    const uint64_t cir = settings.get_uint("cir", 0, 1, UINT64_MAX / 2);
    if (!settings.params.count("cir")) throw VnfConfigError("cir", "a committed rate in bytes/s");
    const uint64_t cbs = settings.get_uint("cbs", 0, 1, UINT32_MAX);
    if (!settings.params.count("cbs")) throw VnfConfigError("cbs", "a committed burst in bytes");
    int rc;
    if (trtcm_) {
      rte_meter_trtcm_params p{};
      p.cir = cir;
      p.cbs = cbs;
      p.pir = settings.get_uint("pir", 0, cir, UINT64_MAX / 2);
      p.pbs = settings.get_uint("pbs", 0, 1, UINT32_MAX);
      if (!settings.params.count("pir") || !settings.params.count("pbs"))
        throw VnfConfigError("pir", "pir >= cir and pbs (bytes/s, bytes) for trtcm");
      rc = rte_meter_trtcm_profile_config(&tr_profile_, &p);
    } else {
      rte_meter_srtcm_params p{};
      p.cir = cir;
      p.cbs = cbs;
      p.ebs = settings.get_uint("ebs", 0, 0, UINT32_MAX);
      rc = rte_meter_srtcm_profile_config(&sr_profile_, &p);
    }
    if (rc != 0) throw VnfConfigError("cir", "a meter profile rte_meter accepts (" + std::string(rte_strerror(-rc)) + ")");
    uint32_t meters = 1;
    if (per == "flow") {
      table_ = create_hash_table("ratelimit", static_cast<uint32_t>(settings.get_uint("flows", 65536, 64, 1u << 24)), sizeof(FlowKey),
                                 settings.socket_id, "flows");
      meters = rte_hash_max_key_id(table_) + 2;  // + the overflow meter, last
    }
    meters_.resize(meters);
    const uint64_t now = clock_();
    for (uint32_t m = 0; m < meters; ++m) configure(m, now);
  }

  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) override {
    const uint64_t now = clock_();
    // Pass 1 collects the metered packets (and, per flow, their keys for one
    // bulk lookup); pass 2 meters them.
    alignas(8) FlowKey keys[kMaxVnfBurst];  // rte_hash_crc reads 8 bytes at a time
    const void* key_ptrs[kMaxVnfBurst];
    uint16_t index[kMaxVnfBurst];
    rte_color pre[kMaxVnfBurst];
    int32_t positions[kMaxVnfBurst];
    bool drop[kMaxVnfBurst];
    uint32_t n_metered = 0;
    for (uint16_t i = 0; i < n; ++i) {
      ParsedPacket p;
      const InputVerdict v = input_.check(pkts[i], p);
      drop[i] = v == InputVerdict::kDrop;
      // Later fragments are metered too, under their flow with ports 0.
      if (v != InputVerdict::kProcess && !(v == InputVerdict::kPass && p.status == ParseStatus::kOk)) continue;
      keys[n_metered] = p.key;
      key_ptrs[n_metered] = &keys[n_metered];
      pre[n_metered] = colour_aware_ ? dscp_colour(pkts[i], p) : RTE_COLOR_GREEN;
      index[n_metered++] = i;
    }
    if (table_ && n_metered) rte_hash_lookup_bulk(table_, key_ptrs, n_metered, positions);
    for (uint32_t j = 0; j < n_metered; ++j) {
      const uint32_t meter = table_ ? meter_of(keys[j], positions[j], now) : 0;
      drop[index[j]] = police(meter, rte_pktmbuf_pkt_len(pkts[index[j]]), pre[j], now);
      // A flow keeps its meter (positions are never released; the overflow
      // meter's flows stay beyond a full table); a pre-colour reads the DSCP,
      // which is not part of the flow.
      if (!colour_aware_) issue_ticket(index[j], FlowTicket{nullptr, 0, meter});
    }
    return compact_burst(pkts, n, dropped, n_dropped, [&](uint16_t i) { return drop[i]; });
  }

  // The type counts as stateless: the pod does not pin flows to a
  // ratelimit's instances, even with per-flow meters (per: flow), which an
  // instance does keep (stateful() below).
  static constexpr bool kStateful = false;
  bool stateful() const override { return table_ != nullptr; }

  static constexpr bool kRepeatsFlows = true;
  // A chain's meter, or the overflow meter past a full table, colours
  // packets of many flows by their order.
  static constexpr bool kOrderAcrossFlows = true;
  uint64_t repeat(const FlowTicket* const* tickets, rte_mbuf* const* pkts, uint16_t n, uint64_t now) override {
    uint64_t drops = 0;
    for (uint16_t i = 0; i < n; ++i) {
      const uint32_t meter = tickets[i]->data;
      if (table_ && meter == meters_.size() - 1) table_full_++;  // as meter_of counts a flow beyond the table
      if (police(meter, rte_pktmbuf_pkt_len(pkts[i]), RTE_COLOR_GREEN, now)) drops |= 1ull << i;
    }
    return drops;
  }

  void visit_counters(const CounterVisitor& visit) const override {
    visit("green", read_counter(colour_[RTE_COLOR_GREEN]));
    visit("yellow", read_counter(colour_[RTE_COLOR_YELLOW]));
    visit("red", read_counter(colour_[RTE_COLOR_RED]));
    visit("dropped", read_counter(dropped_));
    visit("flows", read_counter(flows_));
    visit("table_full", read_counter(table_full_));
    input_.visit(visit);
  }

 private:
  // Full buckets as of `now`: rte_meter stamps them with the CPU's counter,
  // the meters run on clock_().
  void configure(uint32_t m, uint64_t now) {
    if (trtcm_) {
      rte_meter_trtcm_config(&meters_[m].tr, &tr_profile_);
      meters_[m].tr.time_tc = meters_[m].tr.time_tp = now;
    } else {
      rte_meter_srtcm_config(&meters_[m].sr, &sr_profile_);
      meters_[m].sr.time = now;
    }
  }

  static rte_color dscp_colour(const rte_mbuf* m, const ParsedPacket& p) {
    const uint8_t* l3 = rte_pktmbuf_mtod_offset(m, const uint8_t*, p.l3_offset);
    const uint8_t tos = p.key.family == AddressFamily::kIpv4 ? l3[1] : static_cast<uint8_t>((l3[0] << 4) | (l3[1] >> 4));
    const uint8_t dscp = tos >> 2;
    // AF classes: DSCP = 8 * class + 2 * precedence, class 1..4, precedence 1..3.
    const uint8_t af_class = dscp >> 3, precedence = (dscp >> 1) & 3;
    if ((dscp & 1) || af_class < 1 || af_class > 4 || precedence == 0) return RTE_COLOR_GREEN;
    return static_cast<rte_color>(precedence - 1);
  }

  // The flow's meter; a flow new to the table gets full buckets, one beyond it the overflow meter.
  uint32_t meter_of(const FlowKey& key, int32_t pos, uint64_t now) {
    if (pos < 0) pos = rte_hash_lookup(table_, &key);  // added earlier in this burst
    if (pos >= 0) return static_cast<uint32_t>(pos);
    pos = rte_hash_add_key(table_, &key);
    if (pos < 0) {
      table_full_++;
      return static_cast<uint32_t>(meters_.size() - 1);
    }
    configure(static_cast<uint32_t>(pos), now);
    flows_++;
    return static_cast<uint32_t>(pos);
  }

  // Returns true to drop.
  bool police(uint32_t index, uint32_t len, rte_color pre, uint64_t now) {
    rte_color colour;
    if (colour_aware_) {
      colour = trtcm_ ? rte_meter_trtcm_color_aware_check(&meters_[index].tr, &tr_profile_, now, len, pre)
                      : rte_meter_srtcm_color_aware_check(&meters_[index].sr, &sr_profile_, now, len, pre);
    } else {
      colour = trtcm_ ? rte_meter_trtcm_color_blind_check(&meters_[index].tr, &tr_profile_, now, len)
                      : rte_meter_srtcm_color_blind_check(&meters_[index].sr, &sr_profile_, now, len);
    }
    colour_[colour]++;
    if (colour >= drop_from_) {
      dropped_++;
      return true;
    }
    return false;
  }

  TscClock clock_ = &hardware_tsc;
  bool trtcm_ = false;
  bool colour_aware_ = false;
  rte_color drop_from_ = RTE_COLOR_RED;
  rte_meter_srtcm_profile sr_profile_{};
  rte_meter_trtcm_profile tr_profile_{};
  std::vector<Meter> meters_;
  rte_hash* table_ = nullptr;
  InputPolicy input_;
  uint64_t colour_[RTE_COLORS] = {};
  uint64_t dropped_ = 0;
  uint64_t flows_ = 0;
  uint64_t table_full_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("ratelimit", RateLimitVnf, "srTCM/trTCM policing per chain or per flow with rte_meter, colour-aware drop");

}  // namespace nfv
