#include "instance_pool.h"

#include <atomic>
#include <stdexcept>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <spdlog/spdlog.h>

#include "burst_size.h"

namespace nfv {
namespace {

std::atomic<uint32_t> g_next_instance_id{1};

}  // namespace

InstancePool::InstancePool(std::string name, const HopInfo& hop, int site, uint32_t instances, int workers, uint64_t tsc_hz)
    : name_(std::move(name)), hop_(hop), site_(site), workers_(workers), tsc_hz_(tsc_hz) {
  for (auto& s : slots_) s = std::make_unique<Instance>();
  // Whether the VNF type keeps flow state decides whether flows need pinning.
  view_.stateful = VnfRegistry::instance().stateful(hop.vnf);
  std::string error;
  if (!scale_to(static_cast<int>(instances), 0, &error)) throw std::runtime_error(name_ + ": " + error);
}

InstancePool::~InstancePool() {
  for (auto& s : slots_) {
    if (!s->queue) continue;
    rte_mbuf* m;
    while (rte_ring_dequeue(s->queue, reinterpret_cast<void**>(&m)) == 0) rte_pktmbuf_free(m);
    rte_ring_free(s->queue);
  }
}

int InstancePool::draining() const {
  int n = 0;
  for (auto st : view_.state) n += st == InstanceState::kDraining;
  return n;
}

void InstancePool::start_instance(int slot) {
  Instance& in = *slots_[slot];
  in.id = g_next_instance_id++;
  in.pool_serial = ++started_;
  in.owner = slot % workers_;
  in.vnf = VnfRegistry::instance().create(hop_.vnf);
  VnfSettings settings;
  settings.instance_name = name_ + "#" + std::to_string(in.id);
  settings.socket_id = static_cast<int>(rte_socket_id());
  settings.params = hop_.params;
  settings.slot = slot;
  settings.slots = static_cast<int>(hop_.max_instances);
  // settings.clock stays the hardware TSC: the fast path hands upkeep() and
  // repeat() its own rte_rdtsc() reading as the VNF's clock.
  in.vnf->init(settings);  // throws VnfConfigError, named by the caller
  if (!owner_slot_) {
    owner_slot_ = in.vnf->owner_slot();
    view_.owner = owner_slot_.get();
  }
  for (const std::string& request : standing_requests_) {
    std::string reply;
    if (!in.vnf->control(request, reply)) spdlog::warn("{}: instance {} refused standing request '{}': {}", name_, in.id, request, reply);
  }
  if (!in.queue) {
    // Ring names are process-wide: the instance id keeps them unique.
    const std::string ring_name = "inst_q_" + std::to_string(in.id);
    in.queue = rte_ring_create(ring_name.c_str(), hop_.queue_packets, static_cast<int>(rte_socket_id()), RING_F_SC_DEQ);
    if (!in.queue) throw std::runtime_error(name_ + ": no memory for an instance queue (" + rte_strerror(rte_errno) + ")");
  }
  in.bucket = TokenBucket(hop_.service_rate_pps, tsc_hz_, kBurstSize);  // an idle instance takes a whole burst
  in.counters = InstanceCounters{};
  in.draining_since_tsc = 0;
  view_.state[slot] = InstanceState::kActive;
  view_.generation[slot]++;
}

void InstancePool::add_standing_request(const std::string& request) {
  std::erase(standing_requests_, request);
  standing_requests_.push_back(request);
}

bool InstancePool::scale_to(int n, uint64_t now_tsc, std::string* error) {
  if (n < 0 || n > static_cast<int>(hop_.max_instances)) {
    *error = "instances must be in [0, " + std::to_string(hop_.max_instances) + "], got " + std::to_string(n);
    return false;
  }
  // Scale out: reuse draining instances first (their flows never left),
  // then start new ones in free slots.
  for (int s = 0; s < kMaxInstancesPerPool && view_.active < n; ++s)
    if (view_.state[s] == InstanceState::kDraining) {
      view_.state[s] = InstanceState::kActive;
      view_.active++;
    }
  for (int s = 0; s < static_cast<int>(hop_.max_instances) && view_.active < n; ++s)
    if (view_.state[s] == InstanceState::kFree) {
      start_instance(s);
      view_.active++;
    }
  // Scale in: the highest active slots drain.
  for (int s = kMaxInstancesPerPool - 1; s >= 0 && view_.active > n; --s)
    if (view_.state[s] == InstanceState::kActive) {
      view_.state[s] = InstanceState::kDraining;
      slots_[s]->draining_since_tsc = now_tsc;
      view_.active--;
    }
  rebuild_maglev();
  count_slots_in_use();
  return true;
}

bool InstancePool::drain_instance(uint32_t id, uint64_t now_tsc, std::string* error) {
  for (int s = 0; s < kMaxInstancesPerPool; ++s) {
    if (view_.state[s] != InstanceState::kActive || slots_[s]->id != id) continue;
    if (view_.active == 1) {
      *error = "instance " + std::to_string(id) + " is the last active one of " + name_;
      return false;
    }
    view_.state[s] = InstanceState::kDraining;
    slots_[s]->draining_since_tsc = now_tsc;
    view_.active--;
    rebuild_maglev();
    return true;
  }
  *error = "no active instance " + std::to_string(id) + " in " + name_;
  return false;
}

void InstancePool::count_slots_in_use() {
  view_.slots_in_use = 0;
  for (int s = 0; s < kMaxInstancesPerPool; ++s)
    if (view_.state[s] != InstanceState::kFree) view_.slots_in_use = static_cast<uint16_t>(s + 1);
}

void InstancePool::rebuild_maglev() {
  std::vector<MaglevBackend> backends;
  std::vector<uint16_t> slot_of;
  for (int s = 0; s < kMaxInstancesPerPool; ++s)
    if (view_.state[s] == InstanceState::kActive) {
      // By the pool's own count, not the pod-wide id: pods of one config
      // spread flows alike, whatever else the process ran before.
      backends.push_back({slots_[s]->pool_serial, 1});
      slot_of.push_back(static_cast<uint16_t>(s));
    }
  if (backends.empty()) {
    view_.maglev.clear();  // no active instance: the placement gets no flows
    return;
  }
  view_.maglev = build_maglev_table(backends);
  for (auto& entry : view_.maglev) entry = slot_of[entry];
}

std::vector<int> InstancePool::drained(const std::vector<uint32_t>& flows_per_slot, uint64_t now_tsc) const {
  std::vector<int> out;
  const uint64_t timeout_tsc = tsc_hz_ / 1000 * hop_.drain_timeout_ms;
  for (int s = 0; s < kMaxInstancesPerPool; ++s) {
    if (view_.state[s] != InstanceState::kDraining) continue;
    const bool empty = flows_per_slot[s] == 0 && rte_ring_count(slots_[s]->queue) == 0;
    if (empty || now_tsc - slots_[s]->draining_since_tsc > timeout_tsc) out.push_back(s);
  }
  return out;
}

void InstancePool::mark_free(const std::vector<int>& slots) {
  for (int s : slots) {
    view_.state[s] = InstanceState::kFree;
    view_.generation[s]++;
  }
  count_slots_in_use();
}

std::vector<rte_mbuf*> InstancePool::destroy_freed(const std::vector<int>& slots) {
  std::vector<rte_mbuf*> leftovers;
  for (int s : slots) {
    Instance& in = *slots_[s];
    rte_mbuf* m;
    while (rte_ring_dequeue(in.queue, reinterpret_cast<void**>(&m)) == 0) leftovers.push_back(m);
    freed_.in_packets += in.counters.in_packets;
    freed_.out_packets += in.counters.out_packets;
    freed_.dropped += in.counters.dropped;
    in.counters = InstanceCounters{};
    in.vnf.reset();
  }
  return leftovers;
}

}  // namespace nfv
