// router: longest-prefix match on the destination (rte_lpm for IPv4,
// rte_lpm6 for IPv6), next-hop MAC rewrite, TTL / hop-limit decrement with an
// incremental IPv4 checksum update. Route file format: docs/vnfs.md.
#include <netinet/in.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_mbuf.h>

#include "checksum.h"
#include "input_policy.h"
#include "text_file.h"
#include "vnf.h"

namespace nfv {
namespace {

struct NextHop {
  rte_ether_addr mac;
};

class RouterVnf final : public Vnf {
 public:
  ~RouterVnf() override {
    if (lpm4_) rte_lpm_free(lpm4_);
    if (lpm6_) rte_lpm6_free(lpm6_);
  }

  void init(const VnfSettings& settings) override {
    input_.init(settings, {"routes_file", "random_routes", "seed", "src_mac"},
                InputPolicyDefaults{.drop_malformed = true, .drop_non_ip = true, .drop_fragments = false});
    const std::string src_mac = settings.get_string("src_mac", "");
    if (!src_mac.empty()) {
      if (!parse_mac(src_mac, src_mac_.addr_bytes)) throw VnfConfigError("src_mac", "a MAC aa:bb:cc:dd:ee:ff, got '" + src_mac + "'");
      rewrite_src_ = true;
    }
    struct Route {
      Prefix prefix;
      uint32_t hop;
    };
    std::vector<Route> routes;
    std::map<std::string, uint32_t> hop_ids;
    auto hop_id = [&](const rte_ether_addr& mac) {
      char text[RTE_ETHER_ADDR_FMT_SIZE];
      rte_ether_format_addr(text, sizeof(text), &mac);
      auto [it, added] = hop_ids.emplace(text, static_cast<uint32_t>(hops_.size()));
      if (added) hops_.push_back(NextHop{mac});
      return it->second;
    };
    const std::string file = settings.get_string("routes_file", "");
    if (!file.empty()) {
      read_text_file("routes_file", file, [&](const TextLine& line) {
        if (line.fields.size() != 2) line.fail("routes_file", "2 fields: PREFIX NEXT_HOP_MAC");
        Route r;
        if (!parse_prefix(line.fields[0], r.prefix) || r.prefix.family == 0)
          line.fail("routes_file", "a prefix A.B.C.D/N or X::/N, got '" + line.fields[0] + "'");
        rte_ether_addr mac;
        if (!parse_mac(line.fields[1], mac.addr_bytes)) line.fail("routes_file", "a MAC aa:bb:cc:dd:ee:ff, got '" + line.fields[1] + "'");
        r.hop = hop_id(mac);
        routes.push_back(r);
      });
    }
    // Bench and tests: random IPv4 routes (/8../32) over 16 next hops.
    const uint64_t random = settings.get_uint("random_routes", 0, 0, 10000000);
    std::mt19937 rng(static_cast<uint32_t>(settings.get_uint("seed", 1, 0, UINT32_MAX)));
    for (uint64_t i = 0; i < random; ++i) {
      Route r;
      r.prefix.family = 4;
      r.prefix.length = 8 + static_cast<int>(rng() % 25);
      uint32_t addr = rng();
      if (r.prefix.length < 32) addr &= ~((1u << (32 - r.prefix.length)) - 1);
      const uint32_t be = rte_cpu_to_be_32(addr);
      std::memcpy(r.prefix.addr, &be, 4);
      rte_ether_addr mac = {{0x02, 0, 0, 0, 0, static_cast<uint8_t>(rng() % 16)}};
      r.hop = hop_id(mac);
      routes.push_back(r);
    }
    size_t n4 = 0, n6 = 0;
    for (const Route& r : routes) (r.prefix.family == 4 ? n4 : n6)++;
    static std::atomic<unsigned> next_id{0};
    const unsigned id = next_id++;
    char name[64];
    std::snprintf(name, sizeof(name), "nfv_rt4_%u", id);
    rte_lpm_config c4{};
    c4.max_rules = static_cast<uint32_t>(std::max<size_t>(n4, 16));
    // A tbl8 group (1 KiB) per distinct /24 holding longer prefixes; random routes need about a third.
    c4.number_tbl8s = static_cast<uint32_t>(std::min<size_t>(n4 / 2 + 256, 1u << 20));
    lpm4_ = rte_lpm_create(name, settings.socket_id, &c4);
    if (!lpm4_) throw VnfConfigError("routes_file", std::string("an IPv4 route table that fits in memory (") + rte_strerror(rte_errno) + ")");
    std::snprintf(name, sizeof(name), "nfv_rt6_%u", id);
    rte_lpm6_config c6{};
    c6.max_rules = static_cast<uint32_t>(std::max<size_t>(n6, 16));
    c6.number_tbl8s = static_cast<uint32_t>(std::max<size_t>(n6 * 8, 256));
    lpm6_ = rte_lpm6_create(name, settings.socket_id, &c6);
    if (!lpm6_) throw VnfConfigError("routes_file", std::string("an IPv6 route table that fits in memory (") + rte_strerror(rte_errno) + ")");
    for (const Route& r : routes) {
      int rc;
      // rte_lpm takes depths from 1: a default route is kept aside for misses.
      if (r.prefix.length == 0) {
        (r.prefix.family == 4 ? default4_ : default6_) = static_cast<int64_t>(r.hop);
        continue;
      }
      if (r.prefix.family == 4) {
        uint32_t be;
        std::memcpy(&be, r.prefix.addr, 4);
        rc = rte_lpm_add(lpm4_, rte_be_to_cpu_32(be), static_cast<uint8_t>(r.prefix.length), r.hop);
      } else {
        rc = rte_lpm6_add(lpm6_, r.prefix.addr, static_cast<uint8_t>(r.prefix.length), r.hop);
      }
      if (rc < 0) throw VnfConfigError("routes_file", "routes the LPM table accepts (" + std::string(rte_strerror(-rc)) + ")");
    }
    routes_ = routes.size();
  }

  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) override {
    uint32_t dst4[kMaxVnfBurst];
    uint32_t hop4[kMaxVnfBurst];
    uint16_t index4[kMaxVnfBurst];
    uint16_t l3[kMaxVnfBurst];
    uint8_t verdict[kMaxVnfBurst];  // 0 pass, 1 drop, 2 routed IPv4 (pending lookup)
    uint32_t n4 = 0;
    for (uint16_t i = 0; i < n; ++i) {
      HeaderLayout h;
      const InputVerdict v = input_.check(pkts[i], h);
      // Later fragments still carry a full IP header: routers forward them.
      if (v == InputVerdict::kDrop) {
        verdict[i] = 1;
        continue;
      }
      if (v == InputVerdict::kPass && !h.later_fragment) {
        verdict[i] = 0;
        continue;
      }
      l3[i] = h.l3_offset;
      if (h.family == AddressFamily::kIpv4) {
        verdict[i] = 2;
        uint32_t dst;
        std::memcpy(&dst, rte_pktmbuf_mtod_offset(pkts[i], const uint8_t*, h.l3_offset + offsetof(rte_ipv4_hdr, dst_addr)), 4);
        dst4[n4] = rte_be_to_cpu_32(dst);
        index4[n4++] = i;
      } else {
        verdict[i] = route6(pkts[i], h.l3_offset);
      }
    }
    if (n4) rte_lpm_lookup_bulk(lpm4_, dst4, hop4, n4);
    for (uint32_t j = 0; j < n4; ++j) {
      const uint16_t i = index4[j];
      verdict[i] = forward4(pkts[i], l3[i], hop4[j]);
      // Routed by its destination alone; the fast path checks the TTL itself.
      if (verdict[i] == 0) issue_ticket(i, FlowTicket{}, rewrite_src_ ? kWritesEthDst | kWritesEthSrc : kWritesEthDst);
    }
    return compact_burst(pkts, n, dropped, n_dropped, [&](uint16_t i) { return verdict[i] == 1; });
  }

  static constexpr bool kStateful = false;
  bool stateful() const override { return kStateful; }

  // The routes never change after init.
  static constexpr bool kRepeatsFlows = true;
  uint64_t repeat(const FlowTicket* const*, rte_mbuf* const*, uint16_t n, uint64_t) override {
    forwarded_ += n;
    return 0;
  }

  void visit_counters(const CounterVisitor& visit) const override {
    visit("routes", routes_);
    visit("forwarded", read_counter(forwarded_));
    visit("no_route", read_counter(no_route_));
    visit("ttl_expired", read_counter(ttl_expired_));
    input_.visit(visit);
  }

 private:
  uint8_t forward4(rte_mbuf* m, uint16_t l3, uint32_t lookup) {
    if (!(lookup & RTE_LPM_LOOKUP_SUCCESS)) {
      if (default4_ < 0) {
        no_route_++;
        return 1;
      }
      lookup = static_cast<uint32_t>(default4_);
    }
    auto* ip = rte_pktmbuf_mtod_offset(m, rte_ipv4_hdr*, l3);
    if (ip->time_to_live <= 1) {
      ttl_expired_++;
      return 1;
    }
    decrement_ipv4_ttl(reinterpret_cast<uint8_t*>(ip));
    rewrite_macs(m, lookup & 0x00ffffff);
    forwarded_++;
    return 0;
  }

  uint8_t route6(rte_mbuf* m, uint16_t l3) {
    auto* ip = rte_pktmbuf_mtod_offset(m, rte_ipv6_hdr*, l3);
    uint32_t hop;
    if (rte_lpm6_lookup(lpm6_, ip->dst_addr, &hop) != 0) {
      if (default6_ < 0) {
        no_route_++;
        return 1;
      }
      hop = static_cast<uint32_t>(default6_);
    }
    if (ip->hop_limits <= 1) {
      ttl_expired_++;
      return 1;
    }
    ip->hop_limits--;  // IPv6 has no header checksum
    rewrite_macs(m, hop);
    forwarded_++;
    return 0;
  }

  void rewrite_macs(rte_mbuf* m, uint32_t hop) {
    auto* eth = rte_pktmbuf_mtod(m, rte_ether_hdr*);
    eth->dst_addr = hops_[hop].mac;
    if (rewrite_src_) eth->src_addr = src_mac_;
  }

  rte_lpm* lpm4_ = nullptr;
  rte_lpm6* lpm6_ = nullptr;
  std::vector<NextHop> hops_;
  int64_t default4_ = -1, default6_ = -1;  // next hop of 0.0.0.0/0 and ::/0, if given
  rte_ether_addr src_mac_{};
  bool rewrite_src_ = false;
  uint64_t routes_ = 0;
  InputPolicy input_;
  uint64_t forwarded_ = 0;
  uint64_t no_route_ = 0;
  uint64_t ttl_expired_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("router", RouterVnf, "longest-prefix match (rte_lpm / rte_lpm6), next-hop MAC rewrite, TTL decrement");

}  // namespace nfv
