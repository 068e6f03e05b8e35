// firewall: ordered 5-tuple rules (first match wins) classified with rte_acl,
// one ACL context per address family, IPv4 flows' answers cached (the rules
// never change after init). Rule file format: docs/vnfs.md.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <random>
#include <vector>

#include <netinet/in.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "input_policy.h"
#include "text_file.h"
#include "verdict_cache.h"
#include "vnf.h"

namespace nfv {
namespace {

// What rte_acl reads per packet, in network order. The protocol comes first
// because rte_acl wants a one-byte first field; ports share one 4-byte input word.
struct alignas(8) AclKey4 {
  uint8_t protocol;
  uint8_t pad[3];
  uint8_t src[4];
  uint8_t dst[4];
  uint16_t src_port;
  uint16_t dst_port;
};
static_assert(offsetof(AclKey4, dst) == offsetof(AclKey4, src) + 4 && offsetof(AclKey4, dst_port) == offsetof(AclKey4, src_port) + 2);
struct alignas(8) AclKey6 {
  uint8_t protocol;
  uint8_t pad[3];
  uint8_t src[16];
  uint8_t dst[16];
  uint16_t src_port;
  uint16_t dst_port;
};
static_assert(offsetof(AclKey6, dst_port) == offsetof(AclKey6, src_port) + 2);

enum Field4 { kProto4, kSrc4, kDst4, kSport4, kDport4, kFields4 };
enum Field6 { kProto6, kSrc6, kDst6 = kSrc6 + 4, kSport6 = kDst6 + 4, kDport6, kFields6 };

RTE_ACL_RULE_DEF(AclRule4, kFields4);
RTE_ACL_RULE_DEF(AclRule6, kFields6);

struct FirewallRule {
  bool allow;
  uint8_t protocol;  // 0 = any
  Prefix src, dst;
  uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
};

void field_defs4(rte_acl_field_def* d) {
  d[kProto4] = {RTE_ACL_FIELD_TYPE_BITMASK, 1, kProto4, 0, offsetof(AclKey4, protocol)};
  d[kSrc4] = {RTE_ACL_FIELD_TYPE_MASK, 4, kSrc4, 1, offsetof(AclKey4, src)};
  d[kDst4] = {RTE_ACL_FIELD_TYPE_MASK, 4, kDst4, 2, offsetof(AclKey4, dst)};
  d[kSport4] = {RTE_ACL_FIELD_TYPE_RANGE, 2, kSport4, 3, offsetof(AclKey4, src_port)};
  d[kDport4] = {RTE_ACL_FIELD_TYPE_RANGE, 2, kDport4, 3, offsetof(AclKey4, dst_port)};
}

void field_defs6(rte_acl_field_def* d) {
  d[kProto6] = {RTE_ACL_FIELD_TYPE_BITMASK, 1, kProto6, 0, offsetof(AclKey6, protocol)};
  for (uint8_t i = 0; i < 4; ++i) {
    d[kSrc6 + i] = {RTE_ACL_FIELD_TYPE_MASK, 4, static_cast<uint8_t>(kSrc6 + i), static_cast<uint8_t>(1 + i),
                    static_cast<uint32_t>(offsetof(AclKey6, src) + 4 * i)};
    d[kDst6 + i] = {RTE_ACL_FIELD_TYPE_MASK, 4, static_cast<uint8_t>(kDst6 + i), static_cast<uint8_t>(5 + i),
                    static_cast<uint32_t>(offsetof(AclKey6, dst) + 4 * i)};
  }
  d[kSport6] = {RTE_ACL_FIELD_TYPE_RANGE, 2, kSport6, 9, offsetof(AclKey6, src_port)};
  d[kDport6] = {RTE_ACL_FIELD_TYPE_RANGE, 2, kDport6, 9, offsetof(AclKey6, dst_port)};
}

// One 32-bit word of a prefix, host order, with its mask length (rte_acl's MASK fields).
void prefix_word(const Prefix& p, int word, uint32_t& value, uint32_t& bits) {
  uint32_t be;
  std::memcpy(&be, p.addr + 4 * word, 4);
  value = rte_be_to_cpu_32(be);
  const int len = p.length - 32 * word;
  bits = static_cast<uint32_t>(len <= 0 ? 0 : len >= 32 ? 32 : len);
}

rte_acl_ctx* build_context(const char* name, int socket, int fields, const rte_acl_field_def* defs, uint32_t rule_size,
                           const void* rules, uint32_t n_rules) {
  if (n_rules == 0) return nullptr;  // no rules of this family: every packet takes the default
  rte_acl_param param{};
  param.name = name;
  param.socket_id = socket;
  param.rule_size = rule_size;
  param.max_rule_num = n_rules;
  rte_acl_ctx* ctx = rte_acl_create(&param);
  if (!ctx) throw VnfConfigError("rules_file", std::string("an ACL context that fits in memory (") + rte_strerror(rte_errno) + ")");
  int rc = rte_acl_add_rules(ctx, static_cast<const rte_acl_rule*>(rules), n_rules);
  rte_acl_config cfg{};
  cfg.num_categories = 1;
  cfg.num_fields = static_cast<uint32_t>(fields);
  std::memcpy(cfg.defs, defs, sizeof(rte_acl_field_def) * fields);
  if (rc == 0) rc = rte_acl_build(ctx, &cfg);
  if (rc != 0) {
    rte_acl_free(ctx);
    throw VnfConfigError("rules_file", "rules rte_acl can build (" + std::string(rte_strerror(-rc)) + ")");
  }
  return ctx;
}

class FirewallVnf final : public Vnf {
 public:
  ~FirewallVnf() override {
    if (ctx4_) rte_acl_free(ctx4_);
    if (ctx6_) rte_acl_free(ctx6_);
  }

  void init(const VnfSettings& settings) override {
    input_.init(settings, {"rules_file", "random_rules", "default", "seed", "flow_cache"},
                InputPolicyDefaults{.drop_malformed = true, .drop_non_ip = false, .drop_fragments = true});
    const std::string def = settings.get_string("default", "deny");
    if (def != "allow" && def != "deny") throw VnfConfigError("default", "'allow' or 'deny', got '" + def + "'");
    default_allow_ = def == "allow";
    std::vector<FirewallRule> rules;
    const std::string file = settings.get_string("rules_file", "");
    if (!file.empty()) read_text_file("rules_file", file, [&](const TextLine& line) { rules.push_back(parse_rule(line)); });
    add_random_rules(rules, settings.get_uint("random_rules", 0, 0, 1000000), settings.get_uint("seed", 1, 0, UINT32_MAX));
    build(rules, settings.socket_id);
    // Answers are rule numbers; a rule set too large for the cache's tags runs without it.
    const uint32_t cache_entries = static_cast<uint32_t>(settings.get_uint("flow_cache", kDefaultVerdictCacheEntries, 0, 1u << 24));
    cache_.init(rules.size() <= VerdictCache::kMaxAnswer ? cache_entries : 0);
  }

  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) override {
    AclKey4 keys4[kMaxVnfBurst];
    AclKey6 keys6[kMaxVnfBurst];
    const uint8_t* data4[kMaxVnfBurst];
    const uint8_t* data6[kMaxVnfBurst];
    uint16_t index4[kMaxVnfBurst], index6[kMaxVnfBurst];
    uint32_t result4[kMaxVnfBurst], result6[kMaxVnfBurst];
    // 0 = pass untouched, 1 = drop, 2 = classify.
    uint8_t verdict[kMaxVnfBurst];
    uint32_t n4 = 0, n6 = 0;
    // IPv4 keys for the cache, and which of them go to rte_acl (by n4).
    VerdictCache::Key cache_keys[kMaxVnfBurst];
    uint32_t cache_hashes[kMaxVnfBurst], n_cache_keys = 0;
    uint16_t cache_index[kMaxVnfBurst], missed[kMaxVnfBurst];
    const auto add_ipv4 = [&](uint16_t i, const VerdictCache::Key& key) {
      AclKey4& k = keys4[n4];
      k.protocol = key.protocol();
      // Source and destination are adjacent in both, as are the ports.
      std::memcpy(reinterpret_cast<uint8_t*>(&k) + offsetof(AclKey4, src), &key.addresses, 8);
      const uint32_t ports = key.ports();
      std::memcpy(&k.src_port, &ports, 4);
      data4[n4] = &k.protocol;
      index4[n4++] = i;
    };
    // Pass 1: the input policy; IPv4 keys are hashed and their cache
    // buckets prefetched (a bucket is often not in L1), the rest listed for rte_acl.
    for (uint16_t i = 0; i < n; ++i) {
      HeaderLayout h;
      const InputVerdict v = input_.check(pkts[i], h);
      if (v != InputVerdict::kProcess) {
        verdict[i] = v == InputVerdict::kDrop;
        continue;
      }
      verdict[i] = 2;
      // Fields straight from the headers, in network order as rte_acl wants them.
      const uint8_t* ip = rte_pktmbuf_mtod_offset(pkts[i], const uint8_t*, h.l3_offset);
      const uint8_t* ports = h.has_ports() ? rte_pktmbuf_mtod_offset(pkts[i], const uint8_t*, h.l4_offset) : nullptr;
      if (h.family == AddressFamily::kIpv4) {
        const VerdictCache::Key key = VerdictCache::Key::ipv4(ip + offsetof(rte_ipv4_hdr, src_addr), ports, h.protocol);
        if (!cache_.enabled()) {
          add_ipv4(i, key);
          continue;
        }
        cache_keys[n_cache_keys] = key;
        cache_hashes[n_cache_keys] = VerdictCache::hash(key);
        cache_.prefetch(cache_hashes[n_cache_keys]);
        cache_index[n_cache_keys++] = i;
        continue;
      }
      AclKey6& k = keys6[n6];
      k.protocol = h.protocol;
      std::memcpy(k.src, ip + offsetof(rte_ipv6_hdr, src_addr), 16);
      std::memcpy(k.dst, ip + offsetof(rte_ipv6_hdr, dst_addr), 16);
      k.src_port = k.dst_port = 0;
      if (ports) std::memcpy(&k.src_port, ports, 4);  // and dst_port
      data6[n6] = &k.protocol;
      index6[n6++] = i;
    }
    // Pass 2: the cache's answers; what it does not know goes to rte_acl.
    for (uint32_t j = 0; j < n_cache_keys; ++j) {
      uint32_t userdata;
      if (cache_.find(cache_keys[j], cache_hashes[j], userdata)) {
        verdict[cache_index[j]] = decide_ipv4(cache_index[j], userdata);
        continue;
      }
      missed[n4] = static_cast<uint16_t>(j);
      add_ipv4(cache_index[j], cache_keys[j]);
    }
    if (n4 && ctx4_) rte_acl_classify(ctx4_, data4, result4, n4, 1);
    else std::fill_n(result4, n4, 0u);
    if (cache_.enabled()) {
      for (uint32_t j = 0; j < n4; ++j) cache_.remember(cache_keys[missed[j]], cache_hashes[missed[j]], result4[j]);
      cache_.hits += n_cache_keys - n4;
      cache_.misses += n4;
    }
    if (n6 && ctx6_) rte_acl_classify(ctx6_, data6, result6, n6, 1);
    else std::fill_n(result6, n6, 0u);
    for (uint32_t j = 0; j < n4; ++j) verdict[index4[j]] = decide_ipv4(index4[j], result4[j]);
    for (uint32_t j = 0; j < n6; ++j) verdict[index6[j]] = decide(result6[j]);
    return compact_burst(pkts, n, dropped, n_dropped, [&](uint16_t i) { return verdict[i] == 1; });
  }

  static constexpr bool kStateful = false;
  bool stateful() const override { return kStateful; }

  // The rules never change: an allowed IPv4 flow stays allowed by the same rule.
  static constexpr bool kRepeatsFlows = true;
  uint64_t repeat(const FlowTicket* const* tickets, rte_mbuf* const*, uint16_t n, uint64_t) override {
    uint64_t by_default = 0;  // summed in a register, counted once
    for (uint16_t i = 0; i < n; ++i) by_default += tickets[i]->data == kAllowedByDefault;
    count_allowed(kAllowedByDefault, by_default);
    count_allowed(kAllowedByRule, n - by_default);
    return 0;
  }

  void visit_counters(const CounterVisitor& visit) const override {
    visit("rules", rule_actions_.size() - 1);
    visit("allowed", read_counter(allowed_));
    visit("denied", read_counter(denied_));
    visit("default_allowed", read_counter(default_allowed_));
    visit("default_denied", read_counter(default_denied_));
    visit("flow_cache_hits", read_counter(cache_.hits));
    visit("flow_cache_misses", read_counter(cache_.misses));
    input_.visit(visit);
  }

 private:
  // A ticket's data: which counter an allowed flow's packets go to.
  static constexpr uint32_t kAllowedByRule = 0, kAllowedByDefault = 1;

  // Allowed packets, by rule or by default: process() and repeat() both
  // count here, so that the two paths cannot drift.
  void count_allowed(uint32_t how, uint64_t packets) { (how == kAllowedByDefault ? default_allowed_ : allowed_) += packets; }

  // decide() for the burst's IPv4 packet i, with its ticket when allowed.
  uint8_t decide_ipv4(uint16_t i, uint32_t userdata) {
    const uint8_t verdict = decide(userdata);
    if (verdict == 0) issue_ticket(i, FlowTicket{nullptr, 0, userdata == 0 ? kAllowedByDefault : kAllowedByRule});
    return verdict;
  }

  // rte_acl userdata: 1 + the rule's line order; 0 = no rule matched.
  uint8_t decide(uint32_t userdata) {
    if (userdata == 0) {
      if (default_allow_) {
        count_allowed(kAllowedByDefault, 1);
        return 0;
      }
      default_denied_++;
      return 1;
    }
    if (rule_actions_[userdata]) {
      count_allowed(kAllowedByRule, 1);
      return 0;
    }
    denied_++;
    return 1;
  }

  static FirewallRule parse_rule(const TextLine& line) {
    const auto& f = line.fields;
    if (f.size() != 6) line.fail("rules_file", "6 fields: allow|deny PROTO SRC DST SPORTS DPORTS");
    FirewallRule r{};
    if (f[0] == "allow") r.allow = true;
    else if (f[0] != "deny") line.fail("rules_file", "action 'allow' or 'deny', got '" + f[0] + "'");
    if (f[1] == "any") r.protocol = 0;
    else if (f[1] == "tcp") r.protocol = IPPROTO_TCP;
    else if (f[1] == "udp") r.protocol = IPPROTO_UDP;
    else if (f[1] == "icmp") r.protocol = IPPROTO_ICMP;
    else if (f[1] == "icmpv6") r.protocol = IPPROTO_ICMPV6;
    else {
      char* end = nullptr;
      const long v = std::strtol(f[1].c_str(), &end, 10);
      if (*end || v < 1 || v > 255) line.fail("rules_file", "protocol any|tcp|udp|icmp|icmpv6|1-255, got '" + f[1] + "'");
      r.protocol = static_cast<uint8_t>(v);
    }
    if (!parse_prefix(f[2], r.src)) line.fail("rules_file", "source prefix (A.B.C.D/N, X::/N or any), got '" + f[2] + "'");
    if (!parse_prefix(f[3], r.dst)) line.fail("rules_file", "destination prefix (A.B.C.D/N, X::/N or any), got '" + f[3] + "'");
    if (r.src.family && r.dst.family && r.src.family != r.dst.family)
      line.fail("rules_file", "source and destination of the same address family");
    if (!parse_port_range(f[4], r.sport_lo, r.sport_hi)) line.fail("rules_file", "source ports N, N-M or any, got '" + f[4] + "'");
    if (!parse_port_range(f[5], r.dport_lo, r.dport_hi)) line.fail("rules_file", "destination ports N, N-M or any, got '" + f[5] + "'");
    return r;
  }

  // Bench and load tests: random IPv4 deny rules for 10.x/16 ... /32 sources and
  // single destination ports, placed after the file's rules.
  static void add_random_rules(std::vector<FirewallRule>& rules, uint64_t count, uint64_t seed) {
    std::mt19937 rng(static_cast<uint32_t>(seed));
    for (uint64_t i = 0; i < count; ++i) {
      FirewallRule r{};
      r.allow = false;
      r.protocol = (rng() & 1) ? IPPROTO_TCP : IPPROTO_UDP;
      r.src.family = 4;
      r.src.length = 16 + static_cast<int>(rng() % 17);
      const uint32_t src = rte_cpu_to_be_32((10u << 24) | (rng() & 0x00ffffffu));
      std::memcpy(r.src.addr, &src, 4);
      r.dst.family = 0;
      r.sport_lo = 0;
      r.sport_hi = 65535;
      r.dport_lo = r.dport_hi = static_cast<uint16_t>(1 + rng() % 65535);
      rules.push_back(r);
    }
  }

  void build(const std::vector<FirewallRule>& rules, int socket) {
    static std::atomic<unsigned> next_id{0};
    const unsigned id = next_id++;
    std::vector<AclRule4> r4;
    std::vector<AclRule6> r6;
    rule_actions_.assign(rules.size() + 1, 0);
    for (size_t i = 0; i < rules.size(); ++i) {
      const FirewallRule& r = rules[i];
      rule_actions_[i + 1] = r.allow;
      rte_acl_rule_data data{};
      data.category_mask = 1;
      // Earlier lines win: rte_acl picks the highest priority.
      data.priority = static_cast<int32_t>(RTE_ACL_MAX_PRIORITY - i);
      data.userdata = static_cast<uint32_t>(i + 1);
      const uint8_t proto_mask = r.protocol ? 0xff : 0;
      const int family = r.src.family ? r.src.family : r.dst.family;
      if (family != 6) {
        AclRule4 a{};
        a.data = data;
        a.field[kProto4].value.u8 = r.protocol;
        a.field[kProto4].mask_range.u8 = proto_mask;
        uint32_t v, bits;
        prefix_word(r.src, 0, v, bits);
        a.field[kSrc4].value.u32 = r.src.family ? v : 0;
        a.field[kSrc4].mask_range.u32 = r.src.family ? bits : 0;
        prefix_word(r.dst, 0, v, bits);
        a.field[kDst4].value.u32 = r.dst.family ? v : 0;
        a.field[kDst4].mask_range.u32 = r.dst.family ? bits : 0;
        a.field[kSport4].value.u16 = r.sport_lo;
        a.field[kSport4].mask_range.u16 = r.sport_hi;
        a.field[kDport4].value.u16 = r.dport_lo;
        a.field[kDport4].mask_range.u16 = r.dport_hi;
        r4.push_back(a);
      }
      if (family != 4) {
        AclRule6 a{};
        a.data = data;
        a.field[kProto6].value.u8 = r.protocol;
        a.field[kProto6].mask_range.u8 = proto_mask;
        for (int w = 0; w < 4; ++w) {
          uint32_t v, bits;
          prefix_word(r.src, w, v, bits);
          a.field[kSrc6 + w].value.u32 = r.src.family ? v : 0;
          a.field[kSrc6 + w].mask_range.u32 = r.src.family ? bits : 0;
          prefix_word(r.dst, w, v, bits);
          a.field[kDst6 + w].value.u32 = r.dst.family ? v : 0;
          a.field[kDst6 + w].mask_range.u32 = r.dst.family ? bits : 0;
        }
        a.field[kSport6].value.u16 = r.sport_lo;
        a.field[kSport6].mask_range.u16 = r.sport_hi;
        a.field[kDport6].value.u16 = r.dport_lo;
        a.field[kDport6].mask_range.u16 = r.dport_hi;
        r6.push_back(a);
      }
    }
    rte_acl_field_def defs4[kFields4], defs6[kFields6];
    field_defs4(defs4);
    field_defs6(defs6);
    char name[RTE_ACL_NAMESIZE];
    std::snprintf(name, sizeof(name), "nfv_fw4_%u", id);
    ctx4_ = build_context(name, socket, kFields4, defs4, RTE_ACL_RULE_SZ(kFields4), r4.data(), static_cast<uint32_t>(r4.size()));
    std::snprintf(name, sizeof(name), "nfv_fw6_%u", id);
    ctx6_ = build_context(name, socket, kFields6, defs6, RTE_ACL_RULE_SZ(kFields6), r6.data(), static_cast<uint32_t>(r6.size()));
  }

  rte_acl_ctx* ctx4_ = nullptr;
  rte_acl_ctx* ctx6_ = nullptr;
  std::vector<uint8_t> rule_actions_ = {0};  // 1 = allow, by userdata
  bool default_allow_ = false;
  VerdictCache cache_;  // IPv4 5-tuple -> rte_acl userdata
  InputPolicy input_;
  uint64_t allowed_ = 0;
  uint64_t denied_ = 0;
  uint64_t default_allowed_ = 0;
  uint64_t default_denied_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("firewall", FirewallVnf, "ordered 5-tuple allow/deny rules (IPv4/IPv6) classified with rte_acl");

}  // namespace nfv
