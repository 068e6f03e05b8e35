// Flow pins across a pool's growth from one instance.
#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "flow_affinity.h"

namespace nfv {
namespace {

// A pool of one instance (slot 0) or two (slots 0 and 1), Maglev alternating.
PoolView pool_of(int instances, uint32_t generation_0) {
  PoolView view;
  view.stateful = true;
  for (int s = 0; s < instances; ++s) {
    view.state[s] = InstanceState::kActive;
    view.generation[s] = s == 0 ? generation_0 : 1;
  }
  view.active = view.slots_in_use = static_cast<uint16_t>(instances);
  for (int e = 0; e < 97; ++e) view.maglev.push_back(static_cast<uint16_t>(e % instances));
  return view;
}

std::vector<uint32_t> random_hashes(std::mt19937& rng, int n) {
  std::vector<uint32_t> out(static_cast<size_t>(n));
  for (auto& h : out) h = rng();
  return out;
}

// Slots of every hash, in bursts of 32; counts them per slot.
std::array<int, 2> place(FlowAffinity& pins, const std::vector<uint32_t>& hashes, const PoolView& view) {
  std::array<int, 2> per_slot{};
  for (size_t at = 0; at < hashes.size(); at += 32) {
    const uint16_t n = static_cast<uint16_t>(std::min<size_t>(32, hashes.size() - at));
    uint16_t slots[32];
    pins.slots_for(&hashes[at], n, view, rte_rdtsc(), slots);
    for (uint16_t i = 0; i < n; ++i) per_slot[slots[i]]++;
  }
  return per_slot;
}

void note(FlowAffinity& pins, const std::vector<uint32_t>& hashes, const PoolView& view) {
  for (size_t at = 0; at < hashes.size(); at += 32)
    pins.note_single(&hashes[at], static_cast<uint16_t>(std::min<size_t>(32, hashes.size() - at)), view);
}

// While the pool has one instance nothing is pinned; when a second one
// appears the flows the first served stay with it and new flows spread.
// Back at one instance the memory of old flows starts over, and a new
// instance in slot 0 inherits nothing.
TEST(FlowAffinityTest, FlowsOfALoneInstanceStayWithItWhenThePoolGrows) {
  std::mt19937 rng(11);
  FlowAffinity pins("test pool", 1u << 14, rte_get_tsc_hz() * 60, static_cast<int>(rte_socket_id()));
  const PoolView one = pool_of(1, 1), two = pool_of(2, 1);
  const auto served = random_hashes(rng, 1000), unseen = random_hashes(rng, 1000);
  note(pins, served, one);
  EXPECT_EQ(pins.flows_on(0), 0u) << "one instance: no pins";
  EXPECT_EQ(place(pins, served, two)[0], 1000) << "the lone instance's flows stay with it";
  const auto fresh = place(pins, unseen, two);
  EXPECT_GT(fresh[1], 400) << "new flows follow Maglev";
  EXPECT_EQ(place(pins, unseen, two), fresh) << "and are pinned where they went";
  EXPECT_EQ(pins.flows_on(0) + pins.flows_on(1), 2000u);

  // Back to one instance, then two again: flows seen only before the
  // return (and never pinned) are forgotten; flows seen since stay.
  const auto before = random_hashes(rng, 1000), since = random_hashes(rng, 1000);
  note(pins, before, one);
  place(pins, served, two);  // grows for a moment: `before` was not seen then
  note(pins, since, one);
  EXPECT_EQ(place(pins, since, two)[0], 1000);
  EXPECT_GT(place(pins, before, two)[1], 400) << "the bitmap started over at the return to one instance";

  // A new instance in slot 0 (another generation) inherits no flows.
  FlowAffinity other("other pool", 1u << 14, rte_get_tsc_hz() * 60, static_cast<int>(rte_socket_id()));
  const auto old_flows = random_hashes(rng, 1000);
  note(other, old_flows, pool_of(1, 1));
  EXPECT_GT(place(other, old_flows, pool_of(2, 2))[1], 400);
}

}  // namespace
}  // namespace nfv
