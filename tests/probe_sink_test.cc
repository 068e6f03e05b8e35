// nfv-replay's sink holds a latency histogram for its most recent slots
// only: however many slots a run has, the histograms held stay at the cap,
// and a folded slot keeps the percentiles it had. Probes go in through a
// net_ring port, as a pod would send them. A probe whose sent time lies
// ahead (forged) counts in the slot after now's, so rows stay bounded.
#include <rte_bus_vdev.h>
#include <rte_ethdev.h>

#include <gtest/gtest.h>

#include "packet_builder.h"
#include "probe_payload.h"
#include "probe_sink.h"

namespace nfv {
namespace {

using nfv::test::Bytes;

constexpr uint64_t kSlotNs = 1'000'000;  // 1 ms slots

// A net_ring port: what is sent on it comes back on its receive queue.
uint16_t ring_port(const std::string& name, rte_mempool* pool) {
  EXPECT_EQ(rte_vdev_init(name.c_str(), nullptr), 0) << name;
  uint16_t port = 0;
  EXPECT_EQ(rte_eth_dev_get_port_by_name(name.c_str(), &port), 0) << name;
  rte_eth_conf conf{};
  EXPECT_EQ(rte_eth_dev_configure(port, 1, 1, &conf), 0);
  EXPECT_EQ(rte_eth_rx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, nullptr, pool), 0);
  EXPECT_EQ(rte_eth_tx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, nullptr), 0);
  EXPECT_EQ(rte_eth_dev_start(port), 0);
  return port;
}

// A probe of `chain` sent `sent_ns` with sequence number `seq`.
rte_mbuf* probe(rte_mempool* pool, uint16_t chain, uint64_t seq, uint64_t sent_ns) {
  Bytes l4 = nfv::test::udp(9000, 9000, kProbeBytes);  // the header and room for the probe after it
  write_probe(l4.data() + 8, chain, seq, sent_ns);
  const Bytes frame = nfv::test::concat({nfv::test::ethernet(0x0800), nfv::test::ipv4("10.0.0.1", "10.1.0.1", 17, 8 + kProbeBytes), l4});
  return nfv::test::to_mbuf(pool, frame);
}

// Sends the probes into the port and has the sink receive all of them, in as many polls as it takes.
void deliver(ProbeSink& sink, uint16_t port, std::vector<rte_mbuf*> probes) {
  ASSERT_EQ(rte_eth_tx_burst(port, 0, probes.data(), static_cast<uint16_t>(probes.size())), probes.size());
  uint64_t received = 0;
  for (int polls = 0; received < probes.size(); ++polls) {
    ASSERT_LT(polls, 1000) << "the sink took " << received << " of " << probes.size() << " probes";
    received += sink.poll(rte_rdtsc());
  }
}

TEST(ProbeSink, HoldsHistogramsForTheLastSlotsOnly) {
  rte_mempool* pool = nfv::test::test_pool("sink_cap");
  const uint16_t port = ring_port("net_ring_sink_cap", pool);
  const WallClock clock;
  SinkPlan plan;
  plan.chain_names = {"video", "calls"};
  plan.slot_wall_seconds = 1e-3;
  plan.slot_histograms = 4;
  ProbeSink sink(plan, port, clock);
  // Slot 0 began a second ago: the later a slot, the lower its probes' latency.
  const uint64_t start_ns = clock.to_ns(rte_rdtsc()) - 1'000'000'000;
  sink.align_slots(start_ns);

  // 50 slots of 10 probes per chain.
  uint64_t seq[2] = {0, 0};
  std::vector<ProbeSink::Percentiles> when_live;
  for (std::size_t slot = 0; slot < 50; ++slot) {
    std::vector<rte_mbuf*> burst;
    for (uint16_t chain = 0; chain < 2; ++chain)
      for (int i = 0; i < 10; ++i) burst.push_back(probe(pool, chain, seq[chain]++, start_ns + slot * kSlotNs + i * 1000));
    deliver(sink, port, burst);
    EXPECT_LE(sink.slot_histograms(), 2u * plan.slot_histograms) << "slot " << slot;
    when_live.push_back(sink.at(slot, 0).percentiles());
  }
  EXPECT_EQ(sink.slots(), 50u);
  EXPECT_EQ(sink.slot_histograms(), 2u * plan.slot_histograms);
  // A folded slot keeps its counts and the percentiles it had while live.
  for (std::size_t slot = 0; slot < 50; ++slot) {
    const auto& cell = sink.at(slot, 0);
    EXPECT_EQ(cell.packets, 10u) << "slot " << slot;
    EXPECT_EQ(cell.latency != nullptr, slot >= 50 - plan.slot_histograms) << "slot " << slot;
    EXPECT_EQ(cell.percentiles().p99, when_live[slot].p99) << "slot " << slot;
    EXPECT_GT(cell.percentiles().p99, 0u) << "slot " << slot;
    EXPECT_EQ(sink.lost_by_sequence(slot, 1), 0) << "slot " << slot;
  }
  // A late probe of a folded slot is counted, without its latency.
  deliver(sink, port, {probe(pool, 1, seq[1]++, start_ns + 3 * kSlotNs)});
  EXPECT_EQ(sink.at(3, 1).packets, 11u);
  EXPECT_EQ(sink.at(3, 1).latency, nullptr);
  EXPECT_EQ(sink.chain_total(1).packets, 501u);
  EXPECT_EQ(sink.chain_total(1).latency.count(), 501u);
  EXPECT_EQ(sink.slot_histograms(), 2u * plan.slot_histograms);
  EXPECT_EQ(rte_mempool_in_use_count(pool), 0u) << "the sink frees what it receives";
}

TEST(ProbeSink, AProbeSentInTheFutureCountsNoLaterThanTheSlotAfterNow) {
  rte_mempool* pool = nfv::test::test_pool("sink_fut");
  const uint16_t port = ring_port("net_ring_sink_fut", pool);
  const WallClock clock;
  SinkPlan plan;
  plan.chain_names = {"video"};
  plan.slot_wall_seconds = 1e-3;
  ProbeSink sink(plan, port, clock);
  const uint64_t start_ns = clock.to_ns(rte_rdtsc()) - 100'000'000;  // slot 0 began 100 ms ago
  sink.align_slots(start_ns);
  // A forged sent time a year ahead: without the cap, 3e10 rows.
  deliver(sink, port, {probe(pool, 0, 0, start_ns + 365ull * 24 * 3600 * 1'000'000'000)});
  const uint64_t now_slot = (clock.to_ns(rte_rdtsc()) - start_ns) / kSlotNs;
  EXPECT_GE(sink.slots(), 100u);
  EXPECT_LE(sink.slots(), now_slot + 2) << "rows up to the slot after now's, no further";
  EXPECT_EQ(sink.at(sink.slots() - 1, 0).packets, 1u) << "the probe is counted, in the last row";
  EXPECT_EQ(sink.chain_total(0).packets, 1u);
  EXPECT_EQ(rte_mempool_in_use_count(pool), 0u);
}

}  // namespace
}  // namespace nfv
