// The DPDK tables of the bench's 4-VNF chain, built as the VNFs build theirs
// for the bench's flows: rte_acl over 1,000 rules (firewall), rte_hash on
// 16-byte keys (nat's sessions, lb's connections), rte_lpm over 10,000
// routes (router). dpdk_lookup_floor times each alone; lean_chain runs them
// in one fused loop.
#pragma once

#include <cstdint>

struct rte_acl_ctx;
struct rte_hash;
struct rte_lpm;

namespace nfv::bench {

// The bench's flows: 198.18.x.y:1024+f -> 198.19.0.1:9000/udp; after the lb
// the destination is one of 3 backends 10.10.0.1-3 (what the router looks up).
// Host order.
inline uint32_t source_of(int f) { return (198u << 24) | (18u << 16) | static_cast<uint32_t>(f); }
inline uint32_t backend_of(int f) { return (10u << 24) | (10u << 16) | static_cast<uint32_t>(1 + f % 3); }
inline constexpr uint32_t kServiceAddress = (198u << 24) | (19u << 16) | 1;  // 198.19.0.1
inline constexpr uint16_t kServicePort = 9000;

// The ACL reads an IPv4 packet where it lies, from its protocol byte on
// (as DPDK's l3fwd-acl does): addresses 3 and 7 bytes further, then the ports.
inline constexpr uint32_t kAclSourceOffset = 3, kAclDestinationOffset = 7, kAclPortsOffset = 11;
inline constexpr uint32_t kAclInputBytes = kAclPortsOffset + 4;

// 1,000 deny rules shaped like the firewall's random_rules: a 10.0.0.0/8
// source prefix of /16../32, one destination port, TCP or UDP. None matches
// the bench's flows, so every packet walks the trie to its default.
// Null on failure; free with rte_acl_free.
rte_acl_ctx* create_bench_acl(const char* name);

// A 65,536-entry table for 16-byte keys, CRC-hashed with seed 0 (as
// vnfs/hash_table.h's). Null on failure; free with rte_hash_free.
rte_hash* create_bench_hash(const char* name);

// 10,000 random routes /8../32 as the router's random_routes, plus
// 10.10.0.0/16 to next hop 1. Null on failure; free with rte_lpm_free.
rte_lpm* create_bench_lpm(const char* name);

}  // namespace nfv::bench
