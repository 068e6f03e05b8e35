#include "dpdk_lookup_floor.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lpm.h>

namespace nfv::bench {
namespace {

constexpr int kRules = 1000, kRoutes = 10000, kTableEntries = 65536;
constexpr uint64_t kPackets = 4000000;

// The flows: 198.18.x.y:1024+f -> 198.19.0.1:9000/udp; after the lb the
// destination is one of 3 backends 10.10.0.1-3 (what the router looks up).
uint32_t source_of(int f) { return (198u << 24) | (18u << 16) | static_cast<uint32_t>(f); }
uint32_t backend_of(int f) { return (10u << 24) | (10u << 16) | static_cast<uint32_t>(1 + f % 3); }

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

// rte_acl input: protocol first (a one-byte field), then addresses and ports, network order.
struct alignas(8) AclInput {
  uint8_t protocol;
  uint8_t pad[3];
  uint32_t src, dst;
  uint16_t src_port, dst_port;
};
enum AclField { kProtocol, kSource, kDestination, kSourcePort, kDestinationPort, kAclFields };
RTE_ACL_RULE_DEF(AclRule, kAclFields);

// 1,000 deny rules shaped like the firewall's random_rules: a 10.0.0.0/8
// source prefix of /16../32, one destination port, TCP or UDP. None matches
// the flows, so every packet walks the trie to its default.
double measure_acl(int flows, int burst) {
  rte_acl_param param{};
  param.name = "floor_acl";
  param.socket_id = SOCKET_ID_ANY;
  param.rule_size = RTE_ACL_RULE_SZ(kAclFields);
  param.max_rule_num = kRules;
  rte_acl_ctx* ctx = rte_acl_create(&param);
  if (!ctx) return 0;
  std::mt19937 rng(1);
  std::vector<AclRule> rules(kRules);
  for (int i = 0; i < kRules; ++i) {
    AclRule& r = rules[static_cast<size_t>(i)];
    r.data.category_mask = 1;
    r.data.priority = RTE_ACL_MAX_PRIORITY - i;
    r.data.userdata = static_cast<uint32_t>(i + 1);
    r.field[kProtocol].value.u8 = (rng() & 1) ? 6 : 17;
    r.field[kProtocol].mask_range.u8 = 0xff;
    r.field[kSource].value.u32 = (10u << 24) | (rng() & 0x00ffffffu);
    r.field[kSource].mask_range.u32 = 16 + rng() % 17;
    r.field[kSourcePort].mask_range.u16 = 65535;
    r.field[kDestinationPort].value.u16 = r.field[kDestinationPort].mask_range.u16 = static_cast<uint16_t>(1 + rng() % 65535);
  }
  rte_acl_config config{};
  config.num_categories = 1;
  config.num_fields = kAclFields;
  config.defs[kProtocol] = {RTE_ACL_FIELD_TYPE_BITMASK, 1, kProtocol, 0, offsetof(AclInput, protocol)};
  config.defs[kSource] = {RTE_ACL_FIELD_TYPE_MASK, 4, kSource, 1, offsetof(AclInput, src)};
  config.defs[kDestination] = {RTE_ACL_FIELD_TYPE_MASK, 4, kDestination, 2, offsetof(AclInput, dst)};
  config.defs[kSourcePort] = {RTE_ACL_FIELD_TYPE_RANGE, 2, kSourcePort, 3, offsetof(AclInput, src_port)};
  config.defs[kDestinationPort] = {RTE_ACL_FIELD_TYPE_RANGE, 2, kDestinationPort, 3, offsetof(AclInput, dst_port)};
  if (rte_acl_add_rules(ctx, reinterpret_cast<const rte_acl_rule*>(rules.data()), kRules) != 0 || rte_acl_build(ctx, &config) != 0) {
    rte_acl_free(ctx);
    return 0;
  }
  std::vector<AclInput> inputs(static_cast<size_t>(flows));
  std::vector<const uint8_t*> data(static_cast<size_t>(flows));
  for (int f = 0; f < flows; ++f) {
    inputs[static_cast<size_t>(f)] = {17, {}, rte_cpu_to_be_32(source_of(f)), rte_cpu_to_be_32(0xc6130001),
                                       rte_cpu_to_be_16(static_cast<uint16_t>(1024 + f)), rte_cpu_to_be_16(9000)};
    data[static_cast<size_t>(f)] = reinterpret_cast<const uint8_t*>(&inputs[static_cast<size_t>(f)]);
  }
  std::vector<uint32_t> results(static_cast<size_t>(burst));
  const double cycles = cycles_per_packet(flows, burst, [&](int first, int n) {
    rte_acl_classify(ctx, &data[static_cast<size_t>(first)], results.data(), static_cast<uint32_t>(n), 1);
  });
  rte_acl_free(ctx);
  return cycles;
}

// A 65,536-entry table holding every flow's 16-byte 5-tuple, CRC-hashed (as nat's and lb's).
double measure_hash(int flows, int burst) {
  struct alignas(8) Key {
    uint32_t src, dst;
    uint16_t src_port, dst_port;
    uint8_t protocol, pad[3];
  };
  static_assert(sizeof(Key) == 16);
  rte_hash_parameters params{};
  params.name = "floor_hash";
  params.entries = kTableEntries;
  params.key_len = sizeof(Key);
  params.hash_func = rte_hash_crc;
  params.socket_id = SOCKET_ID_ANY;
  rte_hash* table = rte_hash_create(&params);
  if (!table) return 0;
  std::vector<Key> keys(static_cast<size_t>(flows));
  std::vector<const void*> key_pointers(static_cast<size_t>(flows));
  for (int f = 0; f < flows; ++f) {
    keys[static_cast<size_t>(f)] = {rte_cpu_to_be_32(source_of(f)), rte_cpu_to_be_32(0xc6130001),
                                     rte_cpu_to_be_16(static_cast<uint16_t>(1024 + f)), rte_cpu_to_be_16(9000), 17, {}};
    key_pointers[static_cast<size_t>(f)] = &keys[static_cast<size_t>(f)];
    if (rte_hash_add_key(table, &keys[static_cast<size_t>(f)]) < 0) {
      rte_hash_free(table);
      return 0;
    }
  }
  std::vector<int32_t> positions(static_cast<size_t>(burst));
  const double cycles = cycles_per_packet(flows, burst, [&](int first, int n) {
    rte_hash_lookup_bulk(table, &key_pointers[static_cast<size_t>(first)], static_cast<uint32_t>(n), positions.data());
  });
  rte_hash_free(table);
  return cycles;
}

// 10,000 random routes /8../32 as the router's random_routes, plus 10.10.0.0/16.
double measure_lpm(int flows, int burst) {
  rte_lpm_config config{};
  config.max_rules = kRoutes + 1;
  config.number_tbl8s = kRoutes / 2 + 256;
  rte_lpm* lpm = rte_lpm_create("floor_lpm", SOCKET_ID_ANY, &config);
  if (!lpm) return 0;
  std::mt19937 rng(1);
  for (int i = 0; i < kRoutes; ++i) {
    const uint8_t depth = static_cast<uint8_t>(8 + rng() % 25);
    uint32_t addr = rng();
    if (depth < 32) addr &= ~((1u << (32 - depth)) - 1);
    rte_lpm_add(lpm, addr, depth, rng() % 16);
  }
  rte_lpm_add(lpm, (10u << 24) | (10u << 16), 16, 1);
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
  floor.hash = measure_hash(flows, burst);
  floor.lpm = measure_lpm(flows, burst);
  return floor;
}

}  // namespace nfv::bench
