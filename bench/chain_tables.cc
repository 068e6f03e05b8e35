#include "chain_tables.h"

#include <random>
#include <vector>

#include <rte_acl.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lpm.h>

namespace nfv::bench {
namespace {

constexpr int kRules = 1000, kRoutes = 10000, kTableEntries = 65536;

enum AclField { kProtocol, kSource, kDestination, kSourcePort, kDestinationPort, kAclFields };
RTE_ACL_RULE_DEF(AclRule, kAclFields);

}  // namespace

rte_acl_ctx* create_bench_acl(const char* name) {
  rte_acl_param param{};
  param.name = name;
  param.socket_id = SOCKET_ID_ANY;
  param.rule_size = RTE_ACL_RULE_SZ(kAclFields);
  param.max_rule_num = kRules;
  rte_acl_ctx* ctx = rte_acl_create(&param);
  if (!ctx) return nullptr;
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
  config.defs[kProtocol] = {RTE_ACL_FIELD_TYPE_BITMASK, 1, kProtocol, 0, 0};
  config.defs[kSource] = {RTE_ACL_FIELD_TYPE_MASK, 4, kSource, 1, kAclSourceOffset};
  config.defs[kDestination] = {RTE_ACL_FIELD_TYPE_MASK, 4, kDestination, 2, kAclDestinationOffset};
  config.defs[kSourcePort] = {RTE_ACL_FIELD_TYPE_RANGE, 2, kSourcePort, 3, kAclPortsOffset};
  config.defs[kDestinationPort] = {RTE_ACL_FIELD_TYPE_RANGE, 2, kDestinationPort, 3, kAclPortsOffset + 2};
  if (rte_acl_add_rules(ctx, reinterpret_cast<const rte_acl_rule*>(rules.data()), kRules) != 0 || rte_acl_build(ctx, &config) != 0) {
    rte_acl_free(ctx);
    return nullptr;
  }
  return ctx;
}

rte_hash* create_bench_hash(const char* name) {
  rte_hash_parameters params{};
  params.name = name;
  params.entries = kTableEntries;
  params.key_len = 16;
  params.hash_func = rte_hash_crc;
  params.socket_id = SOCKET_ID_ANY;
  return rte_hash_create(&params);
}

rte_lpm* create_bench_lpm(const char* name) {
  rte_lpm_config config{};
  config.max_rules = kRoutes + 1;
  config.number_tbl8s = kRoutes / 2 + 256;
  rte_lpm* lpm = rte_lpm_create(name, SOCKET_ID_ANY, &config);
  if (!lpm) return nullptr;
  std::mt19937 rng(1);
  for (int i = 0; i < kRoutes; ++i) {
    const uint8_t depth = static_cast<uint8_t>(8 + rng() % 25);
    uint32_t addr = rng();
    if (depth < 32) addr &= ~((1u << (32 - depth)) - 1);
    rte_lpm_add(lpm, addr, depth, rng() % 16);
  }
  if (rte_lpm_add(lpm, (10u << 24) | (10u << 16), 16, 1) != 0) {
    rte_lpm_free(lpm);
    return nullptr;
  }
  return lpm;
}

}  // namespace nfv::bench
