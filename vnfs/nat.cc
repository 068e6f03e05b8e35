// nat: source NAT (NAPT) for IPv4 TCP, UDP and ICMP echo. Outbound packets
// from the internal prefix get an external address (chosen by the internal
// address, so a host keeps one) and a port (or echo id) from that address's
// pool; replies to an external address:port are translated back. Mappings are
// endpoint-independent; rte_hash tables index them in both directions and idle
// ones expire per protocol. Checksums are updated incrementally.
#include <arpa/inet.h>

#include <algorithm>
#include <bit>
#include <memory>
#include <vector>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "checksum.h"
#include "hash_table.h"
#include "header_mark.h"
#include "input_policy.h"
#include "paced_sweep.h"
#include "text_file.h"
#include "two_way_burst.h"
#include "vnf.h"

namespace nfv {
namespace {

// Address (network order), port or echo id (network order), protocol.
// Padded to 16 bytes: rte_hash compares 16-byte keys with one vector
// instruction, shorter ones through a memcmp call.
struct alignas(8) NatKey {  // rte_hash_crc reads it 8 bytes at a time
  uint32_t addr;
  uint16_t port;
  uint8_t protocol;
  uint8_t pad;
  uint64_t zero;
};
static_assert(sizeof(NatKey) == 16);

struct Session {
  NatKey inside;
  NatKey outside;
  uint64_t last_seen;  // TSC
  bool active;
  bool closing;  // TCP: FIN or RST seen, the transitory timeout applies
  uint32_t generation;  // bumped when the session is released: ends its flow tickets
};

enum ProtoIndex { kTcp, kUdp, kIcmp, kProtocols };

// Outbound packets are looked up by inside endpoint, inbound ones by outside.
constexpr TwoWayVerdict kOutbound = kForward, kInbound = kReverse;

// Which slot owns an inbound packet: the one whose share holds the external
// port (or echo id) it is addressed to.
struct PortShare final : OwnerSlot {
  uint16_t port_min = 1024;
  uint32_t ports = 0;  // per slot
  uint32_t slots = 1;
  std::vector<uint32_t> external;  // network order
  uint32_t internal_net = 0, internal_mask = 0;

  int slot_of(const rte_mbuf* m, uint32_t& /*flow_hash*/) const override {
    ParsedPacket p;
    if (parse_trusting_mark(m, g_header_mark, p) != ParseStatus::kOk || p.key.family != AddressFamily::kIpv4 || p.later_fragment) return -1;
    uint32_t src, dst;
    std::memcpy(&src, p.key.src_addr, 4);
    std::memcpy(&dst, p.key.dst_addr, 4);
    if ((src & internal_mask) == internal_net || std::find(external.begin(), external.end(), dst) == external.end()) return -1;
    uint32_t port = p.key.dst_port;
    if (p.key.protocol == IPPROTO_ICMP) {
      const auto* icmp = rte_pktmbuf_mtod_offset(m, const uint8_t*, p.l4_offset);
      if (p.l4_offset + sizeof(rte_icmp_hdr) > rte_pktmbuf_data_len(m) || icmp[0] != RTE_IP_ICMP_ECHO_REPLY) return -1;
      port = static_cast<uint32_t>(icmp[4] << 8 | icmp[5]);  // the echo id
    } else if (p.key.protocol != IPPROTO_TCP && p.key.protocol != IPPROTO_UDP) {
      return -1;
    }
    if (port < port_min || port >= port_min + ports * slots) return -1;
    return static_cast<int>((port - port_min) / ports);
  }
};

class NatVnf final : public Vnf {
 public:
  ~NatVnf() override {
    if (out_table_) rte_hash_free(out_table_);
    if (in_table_) rte_hash_free(in_table_);
  }

  void init(const VnfSettings& settings) override {
    clock_ = settings.clock;
    input_.init(settings, {"external", "internal", "port_min", "port_max", "sessions", "flow_cache",
                           "tcp_timeout", "tcp_transitory_timeout", "udp_timeout", "icmp_timeout"},
                InputPolicyDefaults{.drop_malformed = true, .drop_non_ip = false, .drop_fragments = true});
    for (const std::string& a : split(settings.get_string("external", ""), ',')) {
      in_addr addr;
      if (inet_pton(AF_INET, a.c_str(), &addr) != 1) throw VnfConfigError("external", "IPv4 addresses separated by commas, got '" + a + "'");
      external_.push_back(addr.s_addr);
    }
    if (external_.empty()) throw VnfConfigError("external", "at least one external IPv4 address");
    // The prefix all external addresses share: most packets fail it in one compare.
    uint32_t differ = 0;
    for (uint32_t e : external_) differ |= rte_be_to_cpu_32(e) ^ rte_be_to_cpu_32(external_[0]);
    const int common_bits = std::countl_zero(differ);  // 32 when there is one address
    const uint32_t common_mask = common_bits == 0 ? 0 : ~0u << (32 - common_bits);
    external_mask_ = rte_cpu_to_be_32(common_mask);
    external_net_ = external_[0] & external_mask_;
    Prefix internal;
    const std::string internal_text = settings.get_string("internal", "");
    if (!parse_prefix(internal_text, internal) || internal.family != 4)
      throw VnfConfigError("internal", "the internal IPv4 prefix A.B.C.D/N, got '" + internal_text + "'");
    std::memcpy(&internal_net_, internal.addr, 4);
    internal_mask_ = internal.length ? rte_cpu_to_be_32(~0u << (32 - internal.length)) : 0;
    port_min_ = static_cast<uint16_t>(settings.get_uint("port_min", 1024, 1, 65535));
    port_max_ = static_cast<uint16_t>(settings.get_uint("port_max", 65535, port_min_, 65535));
    // Each slot of the pool owns an equal share of the ports (and echo ids),
    // so a reply names the instance that holds its session.
    share_.port_min = port_min_;
    share_.slots = static_cast<uint32_t>(std::max(settings.slots, 1));
    share_.ports = (port_max_ - port_min_ + 1u) / share_.slots;
    if (share_.ports == 0)
      throw VnfConfigError("port_max", "a range of at least one port per instance (max_instances " + std::to_string(share_.slots) + ")");
    share_.external = external_;
    share_.internal_net = internal_net_;
    share_.internal_mask = internal_mask_;
    const uint16_t own_min = static_cast<uint16_t>(port_min_ + static_cast<uint32_t>(settings.slot) * share_.ports);
    const uint16_t own_max = static_cast<uint16_t>(own_min + share_.ports - 1);
    const uint64_t hz = rte_get_tsc_hz();
    timeout_[kTcp] = settings.get_uint("tcp_timeout", 7440, 1, 86400) * hz;
    timeout_[kUdp] = settings.get_uint("udp_timeout", 300, 1, 86400) * hz;
    timeout_[kIcmp] = settings.get_uint("icmp_timeout", 60, 1, 86400) * hz;
    tcp_transitory_timeout_ = settings.get_uint("tcp_transitory_timeout", 240, 1, 86400) * hz;
    const uint32_t sessions = static_cast<uint32_t>(settings.get_uint("sessions", 65536, 64, 1u << 24));

    out_table_ = create_hash_table("nat_out", sessions, sizeof(NatKey), settings.socket_id, "sessions");
    in_table_ = create_hash_table("nat_in", sessions, sizeof(NatKey), settings.socket_id, "sessions");
    // Sessions are indexed by their outbound-table position; sized once.
    sessions_.assign(rte_hash_max_key_id(out_table_) + 1, Session{});
    const uint32_t cache_slots = static_cast<uint32_t>(settings.get_uint("flow_cache", kDefaultFlowCacheSlots, 0, 1u << 22));
    out_cache_.init(cache_slots);
    in_cache_.init(cache_slots);
    const uint64_t shortest = std::min({timeout_[kTcp], timeout_[kUdp], timeout_[kIcmp], tcp_transitory_timeout_});
    sweep_.init(static_cast<uint32_t>(sessions_.size()), shortest / 4, clock_());
    // Free ports per (external address, protocol): a stack, filled once.
    const uint32_t ports = share_.ports;
    free_ports_.resize(external_.size() * kProtocols);
    free_top_.assign(external_.size() * kProtocols, ports);
    for (auto& stack : free_ports_) {
      stack.resize(ports);
      for (uint32_t p = 0; p < ports; ++p) stack[p] = static_cast<uint16_t>(own_max - p);
    }
  }

  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) override {
    const uint64_t now = clock_();
    expire_some(now);
    // Pass 1 finds each packet's direction and key; one bulk lookup per
    // direction; pass 2 rewrites.
    TwoWayBurst<Pending> burst;
    burst.classify_all(input_, pkts, n,
                       [this](uint16_t i, rte_mbuf* m, const HeaderLayout& h, Pending& q) { return classify(i, m, h, q); });
    burst.look_up(out_table_, out_cache_, [this](int32_t pos, const NatKey& key) { return holds(pos, &Session::inside, key); },
                  in_table_, in_cache_, [this](int32_t pos, const NatKey& key) { return holds(pos, &Session::outside, key); });
    Pending* const pending = burst.pending;
    uint8_t* const verdict = burst.verdict;
    for (uint32_t j = 0; j < burst.n_forward; ++j) {
      const uint16_t i = burst.forward_index[j];
      Pending& q = pending[i];
      const int32_t peer = hairpin_peer(q);
      if (peer == kNoPeer) {
        hairpin_no_session_++;
        verdict[i] = kDropIt;
        continue;
      }
      int32_t pos = burst.forward_pos[j];
      if (pos < 0) pos = rte_hash_lookup(out_table_, &q.key);  // a new flow seen twice in this burst
      if (pos < 0) pos = create_session(q.key, q.l4.proto, now);
      if (pos < 0) {
        verdict[i] = kDropIt;
        continue;
      }
      Session& sess = sessions_[pos];
      count(went_by(session_data(pos, kOutbound), now), 1);
      if (q.l4.proto == kTcp) note_tcp_flags(sess, q.l4.tcp_flags);
      rewrite(q.ip, q.ip + offsetof(rte_ipv4_hdr, src_addr), q.l4.src_port, sess.outside, q.l4);
      if (peer == kNotHairpin && q.l4.proto != kIcmp) issue_session_ticket(i, sess, pos, kOutbound, q.l4.proto);
      if (peer >= 0) {
        Session& to = sessions_[peer];
        to.last_seen = now;
        rewrite(q.ip, q.ip + offsetof(rte_ipv4_hdr, dst_addr), q.l4.dst_port, to.inside, q.l4);
        hairpinned_++;
      }
    }
    for (uint32_t j = 0; j < burst.n_reverse; ++j) {
      const uint16_t i = burst.reverse_index[j];
      Pending& q = pending[i];
      if (burst.reverse_data[j] < 0) {
        no_session_++;
        verdict[i] = kDropIt;
        continue;
      }
      Session& sess = sessions_[burst.reverse_data[j]];
      count(went_by(session_data(burst.reverse_data[j], kInbound), now), 1);
      if (q.l4.proto == kTcp) note_tcp_flags(sess, q.l4.tcp_flags);
      rewrite(q.ip, q.ip + offsetof(rte_ipv4_hdr, dst_addr), q.l4.dst_port, sess.inside, q.l4);
      if (q.l4.proto != kIcmp) issue_session_ticket(i, sess, burst.reverse_data[j], kInbound, q.l4.proto);
    }
    return burst.compact(pkts, n, dropped, n_dropped);
  }

  static constexpr bool kStateful = true;
  bool stateful() const override { return kStateful; }

  static constexpr bool kRepeatsFlows = true;
  void upkeep(uint64_t now) override { expire_some(now); }
  uint64_t repeat(const FlowTicket* const* tickets, rte_mbuf* const*, uint16_t n, uint64_t now) override {
    // Sums in registers, added once: a member count per packet would be a
    // store each, which the session stores keep the compiler from merging.
    uint64_t out = 0, in = 0;
    for (uint16_t i = 0; i < n; ++i) {
      const Counted c = went_by(tickets[i]->data, now);
      out += c == kCountedOut;
      in += c == kCountedIn;
    }
    count(kCountedOut, out);
    count(kCountedIn, in);
    count(kCountedPassed, n - out - in);
    return 0;
  }

  std::shared_ptr<const OwnerSlot> owner_slot() const override {
    if (share_.slots == 1) return nullptr;
    return std::make_shared<PortShare>(share_);
  }

  void visit_counters(const CounterVisitor& visit) const override {
    visit("sessions", read_counter(active_sessions_));
    visit("sessions_created", read_counter(created_));
    visit("sessions_expired", read_counter(expired_));
    visit("tcp_closing", read_counter(closing_));
    visit("hairpinned", read_counter(hairpinned_));
    visit("hairpin_no_session", read_counter(hairpin_no_session_));
    visit("translated_out", read_counter(translated_out_));
    visit("translated_in", read_counter(translated_in_));
    visit("pool_exhausted", read_counter(pool_exhausted_));
    visit("table_full", read_counter(table_full_));
    visit("flow_cache_hits", read_counter(out_cache_.hits) + read_counter(in_cache_.hits));
    visit("flow_cache_misses", read_counter(out_cache_.misses) + read_counter(in_cache_.misses));
    visit("no_session", read_counter(no_session_));
    visit("not_translated", read_counter(not_translated_));
    visit("icmp_unsupported", read_counter(icmp_unsupported_));
    visit("unsupported_protocol", read_counter(unsupported_protocol_));
    visit("ipv6_passed", read_counter(ipv6_passed_));
    visit("malformed_truncated_icmp", read_counter(truncated_icmp_));
    input_.visit(visit);
  }

 private:
  // Where the port (or echo id) and L4 checksum live; false when the packet has none we handle.
  struct L4 {
    ProtoIndex proto;
    uint8_t* src_port;  // unaligned: accessed with memcpy
    uint8_t* dst_port;
    uint8_t* checksum;
    L4Checksum checksum_kind;
    uint8_t tcp_flags;   // 0 for UDP and ICMP
  };

  struct Pending {
    NatKey key;  // inside endpoint (outbound) or outside endpoint (inbound)
    uint8_t* ip;
    L4 l4;
  };

  bool locate_l4(rte_mbuf* m, const HeaderLayout& h, const uint8_t* ip, bool outbound, L4& l4) {
    uint8_t* l4p = rte_pktmbuf_mtod_offset(m, uint8_t*, h.l4_offset);
    if (h.protocol == IPPROTO_TCP) {
      l4 = {kTcp, l4p + offsetof(rte_tcp_hdr, src_port), l4p + offsetof(rte_tcp_hdr, dst_port),
            l4p + offsetof(rte_tcp_hdr, cksum), L4Checksum::kTcp, l4p[offsetof(rte_tcp_hdr, tcp_flags)]};
      return true;
    }
    if (h.protocol == IPPROTO_UDP) {
      l4 = {kUdp, l4p + offsetof(rte_udp_hdr, src_port), l4p + offsetof(rte_udp_hdr, dst_port),
            l4p + offsetof(rte_udp_hdr, dgram_cksum), L4Checksum::kUdp, 0};
      return true;
    }
    if (h.protocol == IPPROTO_ICMP) {
      // The parser does not bound ICMP: check the 8-byte echo header here.
      uint16_t total_length;
      std::memcpy(&total_length, ip + offsetof(rte_ipv4_hdr, total_length), 2);
      const uint32_t datagram_end = h.l3_offset + rte_be_to_cpu_16(total_length);
      if (h.l4_offset + sizeof(rte_icmp_hdr) > std::min<uint32_t>(datagram_end, rte_pktmbuf_data_len(m))) {
        truncated_icmp_++;
        return false;
      }
      auto* icmp = reinterpret_cast<rte_icmp_hdr*>(l4p);
      // Echo requests go out, echo replies come back; the id acts as both ports.
      const uint8_t expected = outbound ? RTE_IP_ICMP_ECHO_REQUEST : RTE_IP_ICMP_ECHO_REPLY;
      if (icmp->icmp_type != expected) {
        icmp_unsupported_++;
        return false;
      }
      uint8_t* ident = l4p + offsetof(rte_icmp_hdr, icmp_ident);
      l4 = {kIcmp, ident, ident, l4p + offsetof(rte_icmp_hdr, icmp_cksum), L4Checksum::kIcmp, 0};
      return true;
    }
    return false;
  }

  // Ticket data: a session's position and direction (low bit: inbound), or
  // a packet passed untranslated (neither from inside nor to an external address).
  static constexpr uint32_t kPassedData = UINT32_MAX;
  static uint32_t session_data(int32_t pos, TwoWayVerdict direction) {
    return static_cast<uint32_t>(pos) << 1 | (direction == kInbound);
  }

  // A packet of the flow that `data` names went by: its session is touched,
  // and the answer says which counter it goes to (count()). process() and
  // repeat() both go through these two, so that the paths cannot drift.
  enum Counted : uint8_t { kCountedOut, kCountedIn, kCountedPassed };
  Counted went_by(uint32_t data, uint64_t now) {
    if (data == kPassedData) return kCountedPassed;
    sessions_[data >> 1].last_seen = now;
    return (data & 1) ? kCountedIn : kCountedOut;
  }
  void count(Counted c, uint64_t packets) {
    (c == kCountedOut ? translated_out_ : c == kCountedIn ? translated_in_ : not_translated_) += packets;
  }

  // The ticket of packet i translated by session `pos`: it holds while the
  // session lives; TCP flags that change the session's state need process().
  void issue_session_ticket(uint16_t i, const Session& s, int32_t pos, TwoWayVerdict direction, ProtoIndex proto) {
    issue_ticket(i, FlowTicket{&s.generation, s.generation, session_data(pos, direction)}, 0,
                 proto == kTcp ? RTE_TCP_SYN_FLAG | RTE_TCP_FIN_FLAG | RTE_TCP_RST_FLAG : 0);
  }

  // Direction and lookup key of a sound IPv4 packet, or the verdict when it needs no lookup.
  uint8_t classify(uint16_t i, rte_mbuf* m, const HeaderLayout& h, Pending& q) {
    if (h.family != AddressFamily::kIpv4) {
      ipv6_passed_++;
      return kPassIt;
    }
    q.ip = rte_pktmbuf_mtod_offset(m, uint8_t*, h.l3_offset);
    uint32_t src, dst;
    std::memcpy(&src, q.ip + offsetof(rte_ipv4_hdr, src_addr), 4);
    std::memcpy(&dst, q.ip + offsetof(rte_ipv4_hdr, dst_addr), 4);
    const bool outbound = (src & internal_mask_) == internal_net_;
    const bool inbound = !outbound && is_external(dst);
    if (!outbound && !inbound) {
      count(kCountedPassed, 1);
      issue_ticket(i, FlowTicket{nullptr, 0, kPassedData});
      return kPassIt;
    }
    if (!locate_l4(m, h, q.ip, outbound, q.l4)) {
      // Passing it untranslated would leak internal addresses (or admit unsolicited traffic).
      if (h.protocol != IPPROTO_ICMP) unsupported_protocol_++;
      return kDropIt;
    }
    q.key = NatKey{outbound ? src : dst, 0, h.protocol, 0, 0};
    std::memcpy(&q.key.port, outbound ? q.l4.src_port : q.l4.dst_port, 2);
    return outbound ? kOutbound : kInbound;
  }

  // Rewrites one address and port to `to`, adjusting both checksums.
  static void rewrite(uint8_t* ip, uint8_t* addr, uint8_t* port, const NatKey& to, const L4& l4) {
    rewrite_endpoint(ip + offsetof(rte_ipv4_hdr, hdr_checksum), addr, port, to.addr, to.port, l4.checksum, l4.checksum_kind);
  }

  // Whether session `pos` (a flow cache's candidate) is live and has `key` as its `side` endpoint.
  bool holds(int32_t pos, NatKey Session::*side, const NatKey& key) const {
    const Session& s = sessions_[pos];
    return s.active && std::memcmp(&(s.*side), &key, sizeof(key)) == 0;
  }

  bool is_external(uint32_t addr) const {
    if ((addr & external_mask_) != external_net_) return false;
    for (uint32_t e : external_)
      if (e == addr) return true;
    return false;
  }

  int32_t create_session(const NatKey& inside, ProtoIndex proto, uint64_t now) {
    // The internal address picks the first external address to try.
    const size_t first = rte_hash_crc_4byte(inside.addr, 0) % external_.size();
    for (size_t k = 0; k < external_.size(); ++k) {
      const size_t a = (first + k) % external_.size();
      const size_t pool = a * kProtocols + proto;
      if (free_top_[pool] == 0) continue;
      const uint16_t port = free_ports_[pool][free_top_[pool] - 1];
      const NatKey outside = {external_[a], rte_cpu_to_be_16(port), inside.protocol, 0, 0};
      const int32_t pos = rte_hash_add_key(out_table_, &inside);
      if (pos < 0) {
        table_full_++;
        return -1;
      }
      if (rte_hash_add_key_data(in_table_, &outside, reinterpret_cast<void*>(static_cast<uintptr_t>(pos))) < 0) {
        rte_hash_del_key(out_table_, &inside);
        table_full_++;
        return -1;
      }
      free_top_[pool]--;
      sessions_[pos] = Session{inside, outside, now, true, false, sessions_[pos].generation};
      out_cache_.remember_key(inside, pos);  // a flow's second packet is answered by the cache
      in_cache_.remember_key(outside, pos);
      created_++;
      active_sessions_++;
      return pos;
    }
    pool_exhausted_++;
    return -1;
  }

  // The sessions due for a check (the table once per quarter of the
  // shortest timeout): idle ones past their timeout are released.
  void expire_some(uint64_t now) {
    sweep_.run(now, [&](uint32_t pos) {
      Session& s = sessions_[pos];
      if (!s.active) return;
      const ProtoIndex proto = s.inside.protocol == IPPROTO_TCP ? kTcp : s.inside.protocol == IPPROTO_UDP ? kUdp : kIcmp;
      if (now - s.last_seen >= (s.closing ? tcp_transitory_timeout_ : timeout_[proto])) release(s, proto);
    });
  }

  static constexpr int32_t kNotHairpin = -1;
  static constexpr int32_t kNoPeer = -2;

  // Hairpinning (RFC 4787 REQ-9): an outbound TCP/UDP packet to one of our
  // external address:ports is for the inside host that owns that mapping.
  // Returns the session to translate the destination back with, kNotHairpin
  // for a packet to elsewhere, kNoPeer when no inside host owns the port.
  int32_t hairpin_peer(const Pending& q) const {
    if (q.l4.proto == kIcmp) return kNotHairpin;
    NatKey to{0, 0, q.key.protocol, 0, 0};
    std::memcpy(&to.addr, q.ip + offsetof(rte_ipv4_hdr, dst_addr), 4);
    if (!is_external(to.addr)) return kNotHairpin;
    std::memcpy(&to.port, q.l4.dst_port, 2);
    void* data;
    if (rte_hash_lookup_data(in_table_, &to, &data) < 0) return kNoPeer;
    return static_cast<int32_t>(reinterpret_cast<uintptr_t>(data));
  }

  // RFC 5382: a connection that has sent FIN or RST either way is closing
  // and keeps its mapping only for the transitory timeout; a SYN reopens it.
  void note_tcp_flags(Session& s, uint8_t flags) {
    if (flags & (RTE_TCP_FIN_FLAG | RTE_TCP_RST_FLAG)) {
      closing_ += !s.closing;
      s.closing = true;
    } else if (flags & RTE_TCP_SYN_FLAG) {
      s.closing = false;
    }
  }

  void release(Session& s, ProtoIndex proto) {
    rte_hash_del_key(out_table_, &s.inside);
    rte_hash_del_key(in_table_, &s.outside);
    for (size_t a = 0; a < external_.size(); ++a) {
      if (external_[a] != s.outside.addr) continue;
      const size_t pool = a * kProtocols + proto;
      free_ports_[pool][free_top_[pool]++] = rte_be_to_cpu_16(s.outside.port);
    }
    s.active = false;
    s.generation++;
    active_sessions_--;
    expired_++;
  }

  rte_hash* out_table_ = nullptr;  // inside (addr, port, proto) -> session
  rte_hash* in_table_ = nullptr;   // outside (addr, port, proto) -> session
  FlowCache out_cache_, in_cache_;  // in front of the tables
  std::vector<Session> sessions_;
  std::vector<uint32_t> external_;  // network order
  uint32_t external_mask_ = 0, external_net_ = 0;  // their common prefix, network order
  std::vector<std::vector<uint16_t>> free_ports_;
  std::vector<uint32_t> free_top_;
  uint32_t internal_net_ = 0, internal_mask_ = 0;  // network order
  uint16_t port_min_ = 1024, port_max_ = 65535;
  PortShare share_;
  uint64_t timeout_[kProtocols] = {};
  TscClock clock_ = &hardware_tsc;
  uint64_t tcp_transitory_timeout_ = 0;
  uint64_t closing_ = 0;
  uint64_t hairpinned_ = 0;
  uint64_t hairpin_no_session_ = 0;
  PacedSweep sweep_;
  InputPolicy input_;
  uint64_t active_sessions_ = 0;
  uint64_t created_ = 0;
  uint64_t expired_ = 0;
  uint64_t translated_out_ = 0;
  uint64_t translated_in_ = 0;
  uint64_t pool_exhausted_ = 0;
  uint64_t table_full_ = 0;
  uint64_t no_session_ = 0;
  uint64_t not_translated_ = 0;
  uint64_t icmp_unsupported_ = 0;
  uint64_t unsupported_protocol_ = 0;
  uint64_t truncated_icmp_ = 0;
  uint64_t ipv6_passed_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("nat", NatVnf, "source NAT (NAPT) for TCP, UDP and ICMP echo with per-address port pools and timeouts");

}  // namespace nfv
