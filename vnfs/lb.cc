// lb: L4 load balancer. Each service (VIP:port/protocol) has weighted
// backends picked by a Maglev table; a connection table keeps a flow on its
// backend (affinity) and a reverse table maps replies back to the VIP
// (full NAT of the destination, so replies must come back through the lb).
// A backend marked down leaves the Maglev table; only its own connections move.
#include <arpa/inet.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "checksum.h"
#include "hash_table.h"
#include "header_mark.h"
#include "input_policy.h"
#include "lb_maglev.h"
#include "paced_sweep.h"
#include "text_file.h"
#include "two_way_burst.h"
#include "vnf.h"

namespace nfv {
namespace {

struct Endpoint {
  uint32_t addr;  // network order
  uint16_t port;  // network order
};

struct Backend {
  Endpoint at;
  std::string name;  // "A.B.C.D:P"
  uint32_t weight;
};

struct Service {
  Endpoint vip;
  uint8_t protocol;
  std::vector<Backend> backends;
};

// The IPv4 5-tuple a connection is known by (VIPs are IPv4 only). 16 bytes:
// rte_hash compares 16-byte keys with one vector instruction, other sizes
// through a memcmp call.
struct alignas(8) Tuple {  // rte_hash_crc reads it 8 bytes at a time
  uint32_t src_addr;  // network order, like the ports
  uint32_t dst_addr;
  uint16_t src_port;
  uint16_t dst_port;
  uint8_t protocol;
  uint8_t pad[3];
};
static_assert(sizeof(Tuple) == 16);

struct alignas(8) Connection {
  Tuple client;  // client -> VIP
  Tuple reply;   // backend -> client
  uint64_t last_seen;
  uint16_t service;
  uint16_t backend;
  bool active;
  uint32_t generation;  // bumped when the connection ends or moves: ends its flow tickets
};

constexpr size_t kMaxServices = 64;

// Packets to a VIP are looked up by client tuple; others may be replies.
constexpr TwoWayVerdict kToService = kForward, kMaybeReply = kReverse;

bool parse_endpoint(const std::string& text, Endpoint& out) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  in_addr a;
  if (inet_pton(AF_INET, text.substr(0, colon).c_str(), &a) != 1) return false;
  uint16_t lo, hi;
  if (!parse_port_range(text.substr(colon + 1), lo, hi) || lo != hi || text.substr(colon + 1) == "any") return false;
  out = {a.s_addr, rte_cpu_to_be_16(lo)};
  return true;
}

// Gives both directions of a connection one steering hash, that of its
// client -> VIP tuple as the lb sees it, so flow pins keep a backend's
// replies on the instance that holds the connection. A reply (backend ->
// client) finds its VIP through its backend; a backend endpoint that serves
// several services cannot say which, and its replies keep their own hash.
struct ConnectionSteering final : OwnerSlot {
  struct Vip {
    uint32_t addr;  // network order, like the port
    uint16_t port;
    uint8_t protocol;
  };
  static constexpr int kAmbiguous = -1;
  std::vector<Vip> vips;                                   // by service
  std::vector<std::pair<uint64_t, int>> service_of_backend;  // sorted by endpoint key

  static uint64_t endpoint_key(uint32_t addr, uint16_t port, uint8_t protocol) {
    return static_cast<uint64_t>(addr) << 24 | static_cast<uint64_t>(port) << 8 | protocol;
  }

  int slot_of(const rte_mbuf* m, uint32_t& flow_hash_out) const override {
    ParsedPacket p;
    if (parse_trusting_mark(m, g_header_mark, p) != ParseStatus::kOk || p.key.family != AddressFamily::kIpv4 || p.later_fragment ||
        (p.key.protocol != IPPROTO_TCP && p.key.protocol != IPPROTO_UDP))
      return -1;
    uint32_t src, dst;
    std::memcpy(&src, p.key.src_addr, 4);
    std::memcpy(&dst, p.key.dst_addr, 4);
    const uint16_t dst_port = rte_cpu_to_be_16(p.key.dst_port);
    for (const Vip& vip : vips)
      if (vip.addr == dst && vip.port == dst_port && vip.protocol == p.key.protocol) {
        flow_hash_out = flow_hash(p.key);
        return -1;
      }
    const uint64_t key = endpoint_key(src, rte_cpu_to_be_16(p.key.src_port), p.key.protocol);
    const auto it = std::lower_bound(service_of_backend.begin(), service_of_backend.end(), std::make_pair(key, INT32_MIN));
    if (it == service_of_backend.end() || it->first != key || it->second == kAmbiguous) return -1;
    const Vip& vip = vips[static_cast<size_t>(it->second)];
    flow_hash_out = flow_hash_ipv4(dst, vip.addr, p.key.dst_port, rte_be_to_cpu_16(vip.port), p.key.protocol);
    return -1;
  }
};

class LoadBalancerVnf final : public Vnf {
 public:
  ~LoadBalancerVnf() override {
    if (conn_table_) rte_hash_free(conn_table_);
    if (reply_table_) rte_hash_free(reply_table_);
  }

  void init(const VnfSettings& settings) override {
    clock_ = settings.clock;
    input_.init(settings, {"services", "down", "table_size", "connections", "conn_timeout", "flow_cache"},
                InputPolicyDefaults{.drop_malformed = true, .drop_non_ip = false, .drop_fragments = true});
    parse_services(settings.get_string("services", ""));
    if (settings.slots > 1) build_steering();
    table_size_ = static_cast<uint32_t>(settings.get_uint("table_size", 65537, 3, 1u << 24));
    if (!lb::is_prime(table_size_)) throw VnfConfigError("table_size", "a prime (e.g. 65537), got " + std::to_string(table_size_));
    timeout_ = settings.get_uint("conn_timeout", 300, 1, 86400) * rte_get_tsc_hz();
    size_t total = 0;
    for (const auto& s : services_) {
      backend_base_.push_back(static_cast<uint32_t>(total));
      total += s.backends.size();
    }
    up_ = std::vector<std::atomic<uint8_t>>(total);
    wanted_up_.assign(total, 1);
    for (const std::string& name : split(settings.get_string("down", ""), ',')) {
      std::string reply;
      if (!set_backend(name, false, reply)) throw VnfConfigError("down", "backends of the services, " + reply);
    }
    for (auto& buffer : tables_) buffer.resize(services_.size());
    rebuild(0);
    active_.store(0);
    for (size_t b = 0; b < total; ++b) up_[b].store(wanted_up_[b]);

    const uint32_t connections = static_cast<uint32_t>(settings.get_uint("connections", 65536, 64, 1u << 24));
    conn_table_ = create_hash_table("lb_conn", connections, sizeof(Tuple), settings.socket_id, "connections");
    reply_table_ = create_hash_table("lb_reply", connections, sizeof(Tuple), settings.socket_id, "connections");
    conns_.assign(rte_hash_max_key_id(conn_table_) + 1, Connection{});
    const uint32_t cache_slots = static_cast<uint32_t>(settings.get_uint("flow_cache", kDefaultFlowCacheSlots, 0, 1u << 22));
    conn_cache_.init(cache_slots);
    reply_cache_.init(cache_slots);
    sweep_.init(static_cast<uint32_t>(conns_.size()), timeout_ / 4, clock_());
  }

  uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) override {
    // Announce which Maglev buffer this burst reads; re-check so a concurrent
    // publication is never missed (the control thread waits for us to leave it).
    int buffer;
    do {
      buffer = active_.load();
      in_use_.store(buffer);
    } while (active_.load() != buffer);
    const uint64_t now = clock_();
    expire_some(now);
    // Pass 1: keys and services; one bulk lookup per table; pass 2: decisions and rewrites.
    TwoWayBurst<Pending> burst;
    burst.classify_all(input_, pkts, n, [this](uint16_t, rte_mbuf* m, const HeaderLayout& h, Pending& q) { return prepare(m, h, q); });
    burst.look_up(conn_table_, conn_cache_, [this](int32_t pos, const Tuple& key) { return holds(pos, &Connection::client, key); },
                  reply_table_, reply_cache_, [this](int32_t pos, const Tuple& key) { return holds(pos, &Connection::reply, key); });
    bool created = false;
    for (uint32_t j = 0; j < burst.n_forward; ++j) {
      const uint16_t i = burst.forward_index[j];
      const int32_t pos = to_backend(burst.pending[i], burst.forward_pos[j], tables_[buffer], now, created);
      if (pos == kDropped) burst.verdict[i] = kDropIt;
      else if (pos >= 0) issue_ticket(i, FlowTicket{&conns_[pos].generation, conns_[pos].generation, static_cast<uint32_t>(pos) << 1});
    }
    for (uint32_t j = 0; j < burst.n_reverse; ++j) {
      Pending& q = burst.pending[burst.reverse_index[j]];
      void* data = reinterpret_cast<void*>(static_cast<uintptr_t>(burst.reverse_data[j]));
      // A connection opened earlier in this burst was not in the table at lookup time.
      const bool hit = burst.reverse_data[j] >= 0 || (created && rte_hash_lookup_data(reply_table_, &q.key, &data) >= 0);
      if (!hit) {
        not_vip_++;
        continue;
      }
      const auto pos = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(data));
      Connection& c = conns_[pos];
      touch(static_cast<int32_t>(pos), now);
      count(kToClient, 1);
      rewrite(q.ip, q.ip + offsetof(rte_ipv4_hdr, src_addr), q.l4, services_[c.service].vip, q.key.protocol, q.checksum);
      issue_ticket(burst.reverse_index[j], FlowTicket{&c.generation, c.generation, pos << 1 | kToClientBit});
    }
    in_use_.store(-1, std::memory_order_release);
    return burst.compact(pkts, n, dropped, n_dropped);
  }

  static constexpr bool kStateful = true;
  bool stateful() const override { return kStateful; }

  // Backends go up and down only through control(), after which the pod
  // ends every ticket; a connection's own end or move bumps its generation.
  static constexpr bool kRepeatsFlows = true;
  void upkeep(uint64_t now) override { expire_some(now); }
  uint64_t repeat(const FlowTicket* const* tickets, rte_mbuf* const*, uint16_t n, uint64_t now) override {
    // The count summed in a register and added once (a member count per
    // packet would be a store each, between the connections' stores).
    uint64_t to_client = 0;
    for (uint16_t i = 0; i < n; ++i) {
      touch(static_cast<int32_t>(tickets[i]->data >> 1), now);
      to_client += tickets[i]->data & kToClientBit;
    }
    count(kToClient, to_client);
    count(kToBackend, n - to_client);
    return 0;
  }

  std::shared_ptr<const OwnerSlot> owner_slot() const override { return steering_; }

  // "backend down A.B.C.D:P" / "backend up A.B.C.D:P" / "backends".
  bool control(const std::string& request, std::string& reply) override {
    std::istringstream in(request);
    std::string verb, state, name;
    in >> verb >> state >> name;
    if (verb == "backends") {
      std::ostringstream out;
      for (size_t s = 0; s < services_.size(); ++s)
        for (size_t b = 0; b < services_[s].backends.size(); ++b)
          out << services_[s].backends[b].name << " " << (up_[backend_base_[s] + b].load() ? "up" : "down") << "\n";
      reply = out.str();
      return true;
    }
    if (verb != "backend" || (state != "down" && state != "up") || name.empty()) {
      reply = "expected 'backend down|up A.B.C.D:PORT' or 'backends'";
      return false;
    }
    if (!set_backend(name, state == "up", reply)) return false;
    // Fill the buffer the worker is not reading, then publish it.
    const int next = 1 - active_.load();
    while (in_use_.load() == next) std::this_thread::yield();
    rebuild(next);
    active_.store(next);
    // Only now do connections on a down backend move: the table they re-hash
    // into no longer holds it.
    for (size_t b = 0; b < up_.size(); ++b) up_[b].store(wanted_up_[b]);
    reply = name + " " + state;
    return true;
  }

  void visit_counters(const CounterVisitor& visit) const override {
    visit("connections", read_counter(active_conns_));
    visit("connections_created", read_counter(created_));
    visit("connections_expired", read_counter(expired_));
    visit("connections_moved", read_counter(moved_));
    visit("to_backend", read_counter(to_backend_));
    visit("to_client", read_counter(to_client_));
    visit("not_vip", read_counter(not_vip_));
    visit("no_backend", read_counter(no_backend_));
    visit("table_full", read_counter(table_full_));
    visit("flow_cache_hits", read_counter(conn_cache_.hits) + read_counter(reply_cache_.hits));
    visit("flow_cache_misses", read_counter(conn_cache_.misses) + read_counter(reply_cache_.misses));
    size_t up = 0;
    for (const auto& u : up_) up += u.load();
    visit("backends_up", up);
    input_.visit(visit);
  }

 private:
  void parse_services(const std::string& text) {
    for (const std::string& spec : split(text, ';')) {
      const std::string expected = "VIP:PORT/tcp|udp=BACKEND:PORT[*WEIGHT],...; got '" + spec + "'";
      const size_t eq = spec.find('='), slash = spec.find('/');
      if (eq == std::string::npos || slash == std::string::npos || slash > eq) throw VnfConfigError("services", expected);
      Service s;
      const std::string proto = spec.substr(slash + 1, eq - slash - 1);
      if (proto == "tcp") s.protocol = IPPROTO_TCP;
      else if (proto == "udp") s.protocol = IPPROTO_UDP;
      else throw VnfConfigError("services", expected);
      if (!parse_endpoint(spec.substr(0, slash), s.vip)) throw VnfConfigError("services", expected);
      for (const std::string& b : split(spec.substr(eq + 1), ',')) {
        const size_t star = b.find('*');
        Backend backend;
        backend.name = b.substr(0, star);
        backend.weight = 1;
        if (star != std::string::npos) {
          char* end = nullptr;
          const long w = std::strtol(b.c_str() + star + 1, &end, 10);
          if (*end || w < 1 || w > 1000) throw VnfConfigError("services", "weights 1-1000; " + expected);
          backend.weight = static_cast<uint32_t>(w);
        }
        if (!parse_endpoint(backend.name, backend.at)) throw VnfConfigError("services", expected);
        s.backends.push_back(backend);
      }
      if (s.backends.empty() || s.backends.size() > 65535) throw VnfConfigError("services", expected);
      services_.push_back(std::move(s));
    }
    if (services_.empty() || services_.size() > kMaxServices)
      throw VnfConfigError("services", "1 to " + std::to_string(kMaxServices) + " services VIP:PORT/PROTO=BACKENDS separated by ';'");
  }

  void build_steering() {
    auto steering = std::make_shared<ConnectionSteering>();
    std::map<uint64_t, int> service_of;
    for (size_t s = 0; s < services_.size(); ++s) {
      const Service& service = services_[s];
      steering->vips.push_back({service.vip.addr, service.vip.port, service.protocol});
      for (const Backend& b : service.backends) {
        const uint64_t key = ConnectionSteering::endpoint_key(b.at.addr, b.at.port, service.protocol);
        const auto [it, fresh] = service_of.emplace(key, static_cast<int>(s));
        if (!fresh && it->second != static_cast<int>(s)) it->second = ConnectionSteering::kAmbiguous;
      }
    }
    steering->service_of_backend.assign(service_of.begin(), service_of.end());
    steering_ = std::move(steering);
  }

  bool set_backend(const std::string& name, bool up, std::string& reply) {
    bool found = false;
    for (size_t s = 0; s < services_.size(); ++s)
      for (size_t b = 0; b < services_[s].backends.size(); ++b)
        if (services_[s].backends[b].name == name) {
          wanted_up_[backend_base_[s] + b] = up;
          found = true;
        }
    if (!found) reply = "no backend '" + name + "'";
    return found;
  }

  void rebuild(int buffer) {
    for (size_t s = 0; s < services_.size(); ++s) {
      std::vector<lb::MaglevBackend> weighted;
      for (size_t b = 0; b < services_[s].backends.size(); ++b)
        weighted.push_back({services_[s].backends[b].name, wanted_up_[backend_base_[s] + b] ? services_[s].backends[b].weight : 0});
      tables_[buffer][s] = lb::build_maglev_table(weighted, table_size_);
    }
  }

  int find_service(const Tuple& key) const {
    for (size_t s = 0; s < services_.size(); ++s)
      if (services_[s].vip.addr == key.dst_addr && services_[s].vip.port == key.dst_port && services_[s].protocol == key.protocol)
        return static_cast<int>(s);
    return -1;
  }

  struct alignas(8) Pending {
    Tuple key;
    uint8_t* ip;  // byte pointers into packed headers: every access is a memcpy
    uint8_t* l4;
    uint8_t* checksum;
    int service;
  };

  uint8_t prepare(rte_mbuf* m, const HeaderLayout& h, Pending& q) {
    if (h.family != AddressFamily::kIpv4 || (h.protocol != IPPROTO_TCP && h.protocol != IPPROTO_UDP)) {
      not_vip_++;
      return kPassIt;
    }
    q.ip = rte_pktmbuf_mtod_offset(m, uint8_t*, h.l3_offset);
    q.l4 = rte_pktmbuf_mtod_offset(m, uint8_t*, h.l4_offset);
    q.key = Tuple{};
    std::memcpy(&q.key.src_addr, q.ip + offsetof(rte_ipv4_hdr, src_addr), 4);
    std::memcpy(&q.key.dst_addr, q.ip + offsetof(rte_ipv4_hdr, dst_addr), 4);
    std::memcpy(&q.key.src_port, q.l4, 2);  // TCP and UDP: source then destination port
    std::memcpy(&q.key.dst_port, q.l4 + 2, 2);
    q.key.protocol = h.protocol;
    q.checksum = q.l4 + (h.protocol == IPPROTO_TCP ? offsetof(rte_tcp_hdr, cksum) : offsetof(rte_udp_hdr, dgram_cksum));
    q.service = find_service(q.key);
    // Not to a VIP: maybe a backend's reply, which goes back out from the VIP.
    return q.service >= 0 ? kToService : kMaybeReply;
  }

  // Ticket data: the connection's position, and this bit for a reply.
  static constexpr uint32_t kToClientBit = 1;

  // A packet of connection `pos` (none: < 0, a packet Maglev alone
  // steered) went by: the connection is touched, and the packets counted
  // towards the client or the backend. process() and repeat() both go
  // through these two, so that the paths cannot drift.
  void touch(int32_t pos, uint64_t now) {
    if (pos >= 0) conns_[pos].last_seen = now;
  }
  enum Direction : bool { kToBackend = false, kToClient = true };
  void count(Direction direction, uint64_t packets) { (direction == kToClient ? to_client_ : to_backend_) += packets; }
  static constexpr int32_t kDropped = -2, kNoConnection = -1;

  // Picks (or keeps) the connection's backend and rewrites the destination.
  // Returns the connection's position, kNoConnection when the table had no
  // room (rewritten all the same), or kDropped.
  int32_t to_backend(const Pending& q, int32_t pos, const std::vector<std::vector<int32_t>>& tables, uint64_t now, bool& created) {
    const int service = q.service;
    if (pos < 0) pos = rte_hash_lookup(conn_table_, &q.key);  // opened earlier in this burst
    int32_t backend;
    if (pos >= 0 && up_[backend_base_[service] + conns_[pos].backend].load(std::memory_order_relaxed)) {
      backend = conns_[pos].backend;
    } else {
      const auto& table = tables[service];
      const uint32_t hash = flow_hash_ipv4(q.key.src_addr, q.key.dst_addr, rte_be_to_cpu_16(q.key.src_port),
                                           rte_be_to_cpu_16(q.key.dst_port), q.key.protocol);
      backend = table[hash % table.size()];
      if (backend < 0) {
        no_backend_++;
        return kDropped;
      }
      if (pos >= 0) {
        // Its backend went down: this connection (only) moves.
        rte_hash_del_key(reply_table_, &conns_[pos].reply);
        conns_[pos].generation++;
        moved_++;
      } else {
        pos = rte_hash_add_key(conn_table_, &q.key);
        if (pos >= 0) {
          created_++;
          active_conns_++;
        } else {
          table_full_++;
        }
      }
      if (pos >= 0) {
        Connection& c = conns_[pos];
        c.client = q.key;
        c.reply = q.key;
        const Endpoint& at = services_[service].backends[backend].at;
        c.reply.src_addr = at.addr;
        c.reply.dst_addr = q.key.src_addr;
        c.reply.src_port = at.port;
        c.reply.dst_port = q.key.src_port;
        c.service = static_cast<uint16_t>(service);
        c.backend = static_cast<uint16_t>(backend);
        c.active = true;
        // A connection's second packet is answered by the cache.
        conn_cache_.remember_key(c.client, pos);
        if (!index_reply(c.reply, pos)) {
          table_full_++;
          c.reply = Tuple{};  // not indexed: no cache check may match it either
        } else {
          reply_cache_.remember_key(c.reply, pos);
        }
        created = true;
      }
    }
    touch(pos, now);
    count(kToBackend, 1);
    rewrite(q.ip, q.ip + offsetof(rte_ipv4_hdr, dst_addr), q.l4 + 2, services_[service].backends[backend].at, q.key.protocol, q.checksum);
    return pos >= 0 ? pos : kNoConnection;
  }

  // Indexes connection `pos`'s reply tuple. One tuple maps to one
  // connection: where two share it (one client port to two services with a
  // common backend), the newer takes it and the older loses it whole, so
  // neither a cache check nor a flow ticket of the older answers for it.
  bool index_reply(const Tuple& reply, int32_t pos) {
    void* owner;
    if (rte_hash_lookup_data(reply_table_, &reply, &owner) >= 0) {
      Connection& previous = conns_[reinterpret_cast<uintptr_t>(owner)];
      previous.reply = Tuple{};
      previous.generation++;
    }
    return rte_hash_add_key_data(reply_table_, &reply, reinterpret_cast<void*>(static_cast<uintptr_t>(pos))) >= 0;
  }

  static void rewrite(uint8_t* ip, uint8_t* addr, uint8_t* port, const Endpoint& to, uint8_t protocol, uint8_t* l4_checksum) {
    rewrite_endpoint(ip + offsetof(rte_ipv4_hdr, hdr_checksum), addr, port, to.addr, to.port, l4_checksum,
                     protocol == IPPROTO_UDP ? L4Checksum::kUdp : L4Checksum::kTcp);
  }

  // Whether connection `pos` (a flow cache's candidate) is live and has `key` as its `side` tuple.
  bool holds(int32_t pos, Tuple Connection::*side, const Tuple& key) const {
    const Connection& c = conns_[pos];
    return c.active && std::memcmp(&(c.*side), &key, sizeof(key)) == 0;
  }

  // The connections due for a check (the table once per quarter timeout):
  // idle ones past the timeout end.
  void expire_some(uint64_t now) {
    sweep_.run(now, [&](uint32_t pos) {
      Connection& c = conns_[pos];
      if (!c.active || now - c.last_seen < timeout_) return;
      rte_hash_del_key(conn_table_, &c.client);
      rte_hash_del_key(reply_table_, &c.reply);
      c.active = false;
      c.generation++;
      active_conns_--;
      expired_++;
    });
  }

  std::vector<Service> services_;
  std::vector<uint32_t> backend_base_;          // first index in up_ per service
  std::vector<std::atomic<uint8_t>> up_;        // written by control, read by the worker
  std::vector<uint8_t> wanted_up_;              // control thread only: what the next table holds
  std::vector<std::vector<int32_t>> tables_[2]; // Maglev tables per service, double-buffered
  std::atomic<int> active_{0};
  std::atomic<int> in_use_{-1};
  uint32_t table_size_ = 65537;
  std::shared_ptr<const ConnectionSteering> steering_;  // pools of several instances only
  TscClock clock_ = &hardware_tsc;
  uint64_t timeout_ = 0;
  rte_hash* conn_table_ = nullptr;   // client 5-tuple -> connection
  rte_hash* reply_table_ = nullptr;  // backend -> client 5-tuple -> connection
  FlowCache conn_cache_, reply_cache_;  // in front of the tables
  std::vector<Connection> conns_;
  PacedSweep sweep_;
  InputPolicy input_;
  uint64_t active_conns_ = 0;
  uint64_t created_ = 0;
  uint64_t expired_ = 0;
  uint64_t moved_ = 0;
  uint64_t to_backend_ = 0;
  uint64_t to_client_ = 0;
  uint64_t not_vip_ = 0;
  uint64_t no_backend_ = 0;
  uint64_t table_full_ = 0;
};

}  // namespace

NFV_REGISTER_VNF("lb", LoadBalancerVnf, "L4 load balancer: VIP:port to weighted backends by Maglev hashing with connection affinity");

}  // namespace nfv
