#include "dpdk_lookup_floor.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_lpm.h>

#include "chain_tables.h"
#include "flow_cache.h"
#include "hash_table.h"
#include "verdict_cache.h"

namespace nfv::bench {
namespace {

constexpr uint64_t kPackets = 4000000;

// Runs `lookup(first, n)` over the flows in bursts and returns cycles per packet.
template <typename Lookup>
double cycles_per_packet(int flows, int burst, Lookup&& lookup) {
  uint64_t cycles = 0, done = 0;
  int at = 0;
  while (done < kPackets) {
    const int n = std::min(burst, flows - at);
    const uint64_t t0 = rte_rdtsc_precise();
    lookup(at, n);
    cycles += rte_rdtsc_precise() - t0;
    done += static_cast<uint64_t>(n);
    at = at + n == flows ? 0 : at + n;
  }
  return static_cast<double>(cycles) / static_cast<double>(done);
}

double measure_acl(int flows, int burst) {
  rte_acl_ctx* ctx = create_bench_acl("floor_acl");
  if (!ctx) return 0;
  // Each flow's fields laid out as in its IPv4 header, from the protocol byte on.
  std::vector<std::array<uint8_t, kAclInputBytes>> inputs(static_cast<size_t>(flows));
  std::vector<const uint8_t*> data(static_cast<size_t>(flows));
  for (int f = 0; f < flows; ++f) {
    uint8_t* in = inputs[static_cast<size_t>(f)].data();
    const uint32_t src = rte_cpu_to_be_32(source_of(f)), dst = rte_cpu_to_be_32(kServiceAddress);
    const uint16_t ports[2] = {rte_cpu_to_be_16(static_cast<uint16_t>(1024 + f)), rte_cpu_to_be_16(kServicePort)};
    in[0] = 17;
    std::memcpy(in + kAclSourceOffset, &src, 4);
    std::memcpy(in + kAclDestinationOffset, &dst, 4);
    std::memcpy(in + kAclPortsOffset, ports, 4);
    data[static_cast<size_t>(f)] = in;
  }
  std::vector<uint32_t> results(static_cast<size_t>(burst));
  const double cycles = cycles_per_packet(flows, burst, [&](int first, int n) {
    rte_acl_classify(ctx, &data[static_cast<size_t>(first)], results.data(), static_cast<uint32_t>(n), 1);
  });
  rte_acl_free(ctx);
  return cycles;
}

// What the firewall pays on a flow it has seen: the key's hash and the
// search of its bucket in the verdict cache.
double measure_verdict_hit(int flows, int burst) {
  std::vector<VerdictCache::Key> keys(static_cast<size_t>(flows));
  VerdictCache cache;
  cache.init(kDefaultVerdictCacheEntries);
  for (int f = 0; f < flows; ++f) {
    const uint32_t addresses[2] = {rte_cpu_to_be_32(source_of(f)), rte_cpu_to_be_32(kServiceAddress)};
    const uint16_t ports[2] = {rte_cpu_to_be_16(static_cast<uint16_t>(1024 + f)), rte_cpu_to_be_16(kServicePort)};
    VerdictCache::Key& key = keys[static_cast<size_t>(f)];
    key = VerdictCache::Key::ipv4(reinterpret_cast<const uint8_t*>(addresses), reinterpret_cast<const uint8_t*>(ports), 17);
    cache.remember(key, VerdictCache::hash(key), 0);
  }
  std::vector<uint32_t> answers(static_cast<size_t>(burst));
  return cycles_per_packet(flows, burst, [&](int first, int n) {
    for (int j = 0; j < n; ++j) {
      const VerdictCache::Key& key = keys[static_cast<size_t>(first + j)];
      if (!cache.find(key, VerdictCache::hash(key), answers[static_cast<size_t>(j)])) answers[static_cast<size_t>(j)] = UINT32_MAX;
    }
  });
}

struct alignas(8) Key {
  uint32_t src, dst;
  uint16_t src_port, dst_port;
  uint8_t protocol, pad[3];
};
static_assert(sizeof(Key) == 16);

// A table holding every flow's 16-byte 5-tuple: the bulk lookup, or (with
// `cached`) what a VNF pays on a flow cache hit instead: the key's hash, the
// cache slot and the compare with the key stored at the position it names.
double measure_hash(int flows, int burst, bool cached) {
  rte_hash* table = create_bench_hash("floor_hash");
  if (!table) return 0;
  std::vector<Key> keys(static_cast<size_t>(flows));
  std::vector<const void*> key_pointers(static_cast<size_t>(flows));
  for (int f = 0; f < flows; ++f) {
    keys[static_cast<size_t>(f)] = {rte_cpu_to_be_32(source_of(f)), rte_cpu_to_be_32(kServiceAddress),
                                     rte_cpu_to_be_16(static_cast<uint16_t>(1024 + f)), rte_cpu_to_be_16(kServicePort), 17, {}};
    key_pointers[static_cast<size_t>(f)] = &keys[static_cast<size_t>(f)];
    if (rte_hash_add_key(table, &keys[static_cast<size_t>(f)]) < 0) {
      rte_hash_free(table);
      return 0;
    }
  }
  std::vector<int32_t> positions(static_cast<size_t>(burst));
  FlowCache cache;
  cache.init(kDefaultFlowCacheSlots);
  std::vector<Key> stored(rte_hash_max_key_id(table) + 1, Key{});
  for (const Key& key : keys) {
    const int32_t pos = rte_hash_lookup(table, &key);
    stored[static_cast<size_t>(pos)] = key;
    cache.remember(table_hash(&key, sizeof(key)), pos);
  }
  const double cycles = cycles_per_packet(flows, burst, [&](int first, int n) {
    if (!cached) {
      rte_hash_lookup_bulk(table, &key_pointers[static_cast<size_t>(first)], static_cast<uint32_t>(n), positions.data());
      return;
    }
    for (int j = 0; j < n; ++j) {
      const Key& key = keys[static_cast<size_t>(first + j)];
      const int32_t candidate = cache.candidate(table_hash(&key, sizeof(key)));
      const bool hit = candidate >= 0 && std::memcmp(&stored[static_cast<size_t>(candidate)], &key, sizeof(key)) == 0;
      positions[static_cast<size_t>(j)] = hit ? candidate : -1;
    }
  });
  rte_hash_free(table);
  return cycles;
}

double measure_lpm(int flows, int burst) {
  rte_lpm* lpm = create_bench_lpm("floor_lpm");
  if (!lpm) return 0;
  std::vector<uint32_t> destinations(static_cast<size_t>(flows));
  for (int f = 0; f < flows; ++f) destinations[static_cast<size_t>(f)] = backend_of(f);
  std::vector<uint32_t> hops(static_cast<size_t>(burst));
  const double cycles = cycles_per_packet(flows, burst, [&](int first, int n) {
    rte_lpm_lookup_bulk(lpm, &destinations[static_cast<size_t>(first)], hops.data(), static_cast<unsigned>(n));
  });
  rte_lpm_free(lpm);
  return cycles;
}

}  // namespace

LookupFloor measure_lookup_floor(int flows, int burst) {
  LookupFloor floor;
  floor.acl = measure_acl(flows, burst);
  floor.verdict_hit = measure_verdict_hit(flows, burst);
  floor.hash = measure_hash(flows, burst, false);
  floor.cache_hit = measure_hash(flows, burst, true);
  floor.lpm = measure_lpm(flows, burst);
  return floor;
}

}  // namespace nfv::bench
