#include "flow_affinity.h"

#include <atomic>
#include <stdexcept>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

namespace nfv {

FlowAffinity::FlowAffinity(const std::string& name, uint32_t capacity, uint64_t idle_timeout_tsc, int socket_id)
    : idle_timeout_tsc_(idle_timeout_tsc) {
  static std::atomic<unsigned> next_id{0};
  const std::string table_name = "pin_" + std::to_string(next_id++);
  rte_hash_parameters params{};
  params.name = table_name.c_str();
  params.entries = capacity;
  params.key_len = sizeof(uint32_t);
  params.hash_func = rte_hash_crc;
  params.socket_id = socket_id;
  table_ = rte_hash_create(&params);
  if (!table_) throw std::runtime_error(name + ": cannot create its flow table (" + rte_strerror(rte_errno) + ")");
  pins_.resize(rte_hash_max_key_id(table_) + 1, Pin{0, 0, 0, false});
}

FlowAffinity::~FlowAffinity() {
  if (table_) rte_hash_free(table_);
}

void FlowAffinity::unpin(int32_t position) {
  flows_[pins_[position].slot]--;
  pins_[position].in_use = false;
}

uint16_t FlowAffinity::slot_for(uint32_t flow_hash, const PoolView& view, uint64_t now_tsc) {
  int32_t position = rte_hash_lookup(table_, &flow_hash);
  if (position >= 0) {
    Pin& pin = pins_[position];
    if (view.state[pin.slot] != InstanceState::kFree && view.generation[pin.slot] == pin.generation) {
      pin.last_seen_tsc = now_tsc;
      return pin.slot;
    }
    // Its instance is gone (drain timeout): the flow has to move.
    moved_++;
    unpin(position);
  } else {
    position = rte_hash_add_key(table_, &flow_hash);
    if (position < 0) {
      table_full_++;
      return view.slot_for(flow_hash);
    }
  }
  const uint16_t slot = view.slot_for(flow_hash);
  pins_[position] = Pin{now_tsc, view.generation[slot], slot, true};
  flows_[slot]++;
  return slot;
}

void FlowAffinity::expire_some(uint64_t now_tsc, uint32_t budget) {
  // By position, not with rte_hash_iterate, which scans every empty slot up
  // to the next entry and so costs the table's size when it is nearly empty.
  for (uint32_t i = 0; i < budget; ++i) {
    const uint32_t position = sweep_cursor_;
    sweep_cursor_ = sweep_cursor_ + 1 == pins_.size() ? 0 : sweep_cursor_ + 1;
    Pin& pin = pins_[position];
    if (!pin.in_use || now_tsc - pin.last_seen_tsc <= idle_timeout_tsc_) continue;
    void* key;
    if (rte_hash_get_key_with_position(table_, static_cast<int32_t>(position), &key) == 0) rte_hash_del_key(table_, key);
    unpin(static_cast<int32_t>(position));
  }
}

}  // namespace nfv
