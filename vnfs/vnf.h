// The VNF interface: what every network function type implements, and the
// registry that creates them by name.
//
// Thread contract: init() and counters() run on the control thread; process()
// runs on exactly one worker lcore (an instance is never shared between
// workers), so instance state needs no locks.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "flow_ticket.h"
#include "tsc_clock.h"

struct rte_mbuf;

namespace nfv {

// The framework never hands a VNF more packets than this in one call.
inline constexpr uint16_t kMaxVnfBurst = 64;  // a bit each in a uint64_t (repeat())
static_assert(kMaxVnfBurst <= 64, "repeat()'s drops and the fast path's per-burst sets are 64-bit masks");

// A bad VNF parameter; `field` is the params key, `expected` what it should be.
class VnfConfigError : public std::runtime_error {
 public:
  VnfConfigError(const std::string& field, const std::string& expected)
      : std::runtime_error("param '" + field + "': expected " + expected), field_(field) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// What an instance is told when it is created.
struct VnfSettings {
  std::string instance_name;                  // unique in the pod, e.g. "web/1/counter@w0"
  int socket_id = 0;                          // NUMA node for its tables
  std::map<std::string, std::string> params;  // from the hop's `params`
  // Where the instance sits in its pool: slot `slot` of at most `slots`
  // (the hop's max_instances). A VNF that shares a resource out among the
  // pool's instances (nat: the external ports) takes its slot's share.
  int slot = 0;
  int slots = 1;
  // What time-driven VNFs (meters, timeouts, exports) read as now.
  TscClock clock = &hardware_tsc;

  // Typed access that names the key when the value is wrong.
  uint64_t get_uint(const std::string& key, uint64_t fallback, uint64_t min, uint64_t max) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  // Fails on keys the VNF does not know, so typos do not pass silently.
  void reject_unknown(const std::vector<std::string>& known) const;
};

// Steering for a pool whose replies carry nothing of their flow's hash, so
// flow pins (which know only the flow's other direction) would send them
// to an instance without their state. Either the reply names its instance
// (nat: an external port from its slot's share), or both directions can be
// given one hash (lb: the client -> VIP tuple, rebuilt from a reply). It
// depends on the configuration only, so any instance's answers for the
// whole pool; it runs on workers and must not write.
class OwnerSlot {
 public:
  virtual ~OwnerSlot() = default;
  // The slot that holds the packet's state; or -1 to steer it by flow pin
  // and Maglev on `flow_hash` (the pod's hash of the packet, which this may
  // replace with the hash of the flow's other direction).
  virtual int slot_of(const rte_mbuf* m, uint32_t& flow_hash) const = 0;
};

// Receives a VNF's counters by name when the control thread reads them.
using CounterVisitor = std::function<void(const std::string& name, uint64_t value)>;

class Vnf {
 public:
  virtual ~Vnf() = default;

  // Builds tables from the settings; throws VnfConfigError on bad params.
  virtual void init(const VnfSettings& settings) = 0;

  // Fast path. Processes pkts[0..n), n <= kMaxVnfBurst; packets that go on are compacted into
  // pkts[0..return value); packets this VNF drops are appended to
  // dropped[*n_dropped..] (the framework frees and counts them). A VNF
  // that moves or resizes a packet's headers, or changes its EtherType,
  // protocol, fragment bits or TCP data offset, must clear its header mark
  // (header_mark.h).
  virtual uint16_t process(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped) = 0;

  // Reports the instance's own counters (read without locks).
  virtual void visit_counters(const CounterVisitor& visit) const = 0;

  // Whether this instance keeps per-flow state. What the pod acts on is the
  // type's answer, VnfRegistry::stateful (the class's kStateful).
  virtual bool stateful() const = 0;

  // Reply steering for pools of more than one instance (null: none needed).
  virtual std::shared_ptr<const OwnerSlot> owner_slot() const { return nullptr; }

  // An operator request to this instance (e.g. lb "backend down 10.1.0.1:80",
  // monitor "top"). Runs on the control thread while process() runs: what it
  // changes reaches the fast path through atomic publication, never a lock.
  // Returns false (with a reason in `reply`) when the request is not understood.
  virtual bool control(const std::string& request, std::string& reply) {
    reply = "this VNF takes no requests ('" + request + "')";
    return false;
  }

  // The chain fast path (flow_ticket.h). A type that can say, per packet,
  // that its treatment of the packet's flow repeats sets kRepeatsFlows in
  // its class (VnfRegistry::repeats_flows) and fills tickets in process()
  // when tickets_ is set (issue_ticket).
  static constexpr bool kRepeatsFlows = false;
  // The per-burst upkeep process() does before its packets (expiry sweeps):
  // the fast path calls it for a burst it takes past the VNF, before it
  // checks the burst's tickets. `now` is the VNF's clock, read by the
  // caller once for the whole burst (a fast-path burst reaches many
  // instances: one reading each would cost more than their work), and
  // never earlier than a reading process() already used (expiry counts
  // `now - last seen` unsigned).
  virtual void upkeep(uint64_t /*now*/) {}
  // Packets whose tickets held went by without process() (their headers as
  // the whole chain left them; their lengths as they came): do to the flow
  // state and the counters what process() would have done to them at `now`
  // (the VNF's clock, as for upkeep()). Returns the packets process() would
  // have dropped (bit i for pkts[i]: a meter's colour), which the framework
  // drops.
  virtual uint64_t repeat(const FlowTicket* const* /*tickets*/, rte_mbuf* const* /*pkts*/, uint16_t /*n*/, uint64_t /*now*/) {
    return 0;
  }

  // process() that also answers for each packet pkts[i] in tickets[i]
  // (tickets start as not repeatable).
  uint16_t process_with_tickets(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped, FlowTicketOut* tickets) {
    for (uint16_t i = 0; i < n; ++i) tickets[i] = FlowTicketOut{};
    tickets_ = tickets;
    const uint16_t kept = process(pkts, n, dropped, n_dropped);
    tickets_ = nullptr;
    return kept;
  }

 protected:
  // Inside process(): the answer for the burst's i-th packet, if asked.
  void issue_ticket(uint16_t i, const FlowTicket& ticket, uint8_t writes = 0, uint8_t tcp_slow_flags = 0) {
    if (tickets_) tickets_[i] = FlowTicketOut{ticket, true, writes, tcp_slow_flags};
  }

 private:
  FlowTicketOut* tickets_ = nullptr;  // set only during process_with_tickets
};

// Ends a burst in process()'s contract: packets for which drop_if(i) holds
// go to dropped[*n_dropped..]; the others stay, in order, in pkts[0..return).
template <typename DropIf>
inline uint16_t compact_burst(rte_mbuf** pkts, uint16_t n, rte_mbuf** dropped, uint16_t* n_dropped, DropIf&& drop_if) {
  uint16_t kept = 0;
  for (uint16_t i = 0; i < n; ++i) {
    if (drop_if(i)) dropped[(*n_dropped)++] = pkts[i];
    else pkts[kept++] = pkts[i];
  }
  return kept;
}

using VnfFactory = std::function<std::unique_ptr<Vnf>()>;

// What the pod asks of a VNF type without building one: its class's
// kStateful, kRepeatsFlows and, where it declares it, kOrderAcrossFlows.
struct VnfTraits {
  bool stateful = false;
  bool repeats_flows = false;
  bool order_across_flows = false;
};

// A class's kOrderAcrossFlows, false where it declares none (most VNFs treat
// each flow on its own).
template <typename Cls, typename = void>
inline constexpr bool kOrderAcrossFlowsOf = false;
template <typename Cls>
inline constexpr bool kOrderAcrossFlowsOf<Cls, std::void_t<decltype(Cls::kOrderAcrossFlows)>> = Cls::kOrderAcrossFlows;

class VnfRegistry {
 public:
  static VnfRegistry& instance();

  void add(const std::string& name, const std::string& description, const VnfTraits& traits, VnfFactory factory);
  bool contains(const std::string& name) const { return entries_.count(name) != 0; }
  // Throws std::invalid_argument naming the known types when `name` is unknown.
  std::unique_ptr<Vnf> create(const std::string& name) const;
  // Whether the type keeps per-flow state: a flow of a stateful VNF stays on
  // its instance (and its site) while the pool scales; a stateless one may
  // move. Throws like create().
  bool stateful(const std::string& name) const;
  // Whether the type's instances fill tickets for the chain fast path.
  // Throws like create().
  bool repeats_flows(const std::string& name) const;
  // Whether what the type does to a packet may depend on other flows'
  // packets before it (a meter flows share, a ranking of flows): the fast
  // path then hands its instances their packets in hop by hop's exact
  // order. Throws like create().
  bool order_across_flows(const std::string& name) const;
  // name -> description, sorted.
  std::map<std::string, std::string> list() const;

 private:
  struct Entry {
    std::string description;
    VnfTraits traits;
    VnfFactory factory;
  };
  const Entry& entry(const std::string& name) const;
  std::map<std::string, Entry> entries_;
};

struct VnfRegistration {
  VnfRegistration(const std::string& name, const std::string& description, const VnfTraits& traits, VnfFactory factory) {
    VnfRegistry::instance().add(name, description, traits, std::move(factory));
  }
};

// One line per VNF type, next to its class (the library is linked whole).
// The class says whether the type is stateful (static constexpr bool
// kStateful). A type that repeats flows says so too (kRepeatsFlows), and
// one whose repeats depend on other flows' packets (kOrderAcrossFlows).
#define NFV_REGISTER_VNF(name, cls, description)                                                                  \
  static ::nfv::VnfRegistration nfv_vnf_registration_##cls(name, description,                                      \
                                                           ::nfv::VnfTraits{cls::kStateful, cls::kRepeatsFlows, ::nfv::kOrderAcrossFlowsOf<cls>}, \
                                                           [] { return std::make_unique<cls>(); })

// Reads a counter another thread increments.
inline uint64_t read_counter(const uint64_t& counter) { return __atomic_load_n(&counter, __ATOMIC_RELAXED); }

}  // namespace nfv
