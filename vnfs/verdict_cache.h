// An exact-match cache of IPv4 5-tuples and what a classifier answered for
// them, for a VNF whose answer depends on the 5-tuple alone (the firewall's
// rule, as OVS keeps an exact-match cache in front of its classifier and
// nftables a flow table in front of its rules). Unlike FlowCache it holds
// the keys itself, since nothing behind it could confirm a candidate.
//
// Set associative: a key's hash picks a bucket of four entries, one cache
// line; a key is looked for in its bucket only and replaces, when absent,
// the entry its hash points to. Nothing ever expires: the classifier's
// answers do not change (a VNF whose rules change builds a new cache).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include <rte_hash_crc.h>

namespace nfv {

// 8192 entries, 128 KB: the busy flows of a core, with room for collisions.
constexpr uint32_t kDefaultVerdictCacheEntries = 8192;

class VerdictCache {
 public:
  // Answers are below this; one per rule of a firewall of up to ~16 M rules.
  static constexpr uint32_t kMaxAnswer = (1u << 24) - 2;

  // The key, two words read straight from the headers (network order):
  // the addresses, then the ports and the protocol. Built in registers and
  // hashed at once: a key assembled from narrower stores and read back
  // whole would stall on store forwarding (about 15 cycles, measured).
  struct Key {
    uint64_t addresses;  // source, destination
    uint64_t rest;       // source port, destination port, protocol

    // `addresses`: an IPv4 header's source address (the destination
    // follows); `ports`: a TCP/UDP header (null: no ports).
    static Key ipv4(const uint8_t* addresses, const uint8_t* ports, uint8_t protocol) {
      Key k;
      std::memcpy(&k.addresses, addresses, sizeof(k.addresses));
      uint32_t p = 0;
      if (ports) std::memcpy(&p, ports, sizeof(p));
      k.rest = p | static_cast<uint64_t>(protocol) << 32;
      return k;
    }
    // The ports as read (a memcpy of them gives the header's bytes back).
    uint32_t ports() const { return static_cast<uint32_t>(rest); }
    uint8_t protocol() const { return static_cast<uint8_t>(rest >> 32); }
  };

  // `entries` 0 turns the cache off; others are rounded up to a power of two
  // of at least one bucket.
  void init(uint32_t entries) {
    const uint32_t buckets = entries ? std::bit_ceil((entries + kWays - 1) / kWays) : 0;
    buckets_.assign(buckets, Bucket{});
    mask_ = buckets ? buckets - 1 : 0;
  }

  bool enabled() const { return !buckets_.empty(); }

  // The hash a key is filed under: pass it to find() and remember().
  static uint32_t hash(const Key& key) { return rte_hash_crc_8byte(key.rest, rte_hash_crc_8byte(key.addresses, 0)); }

  // Loads the bucket of a key with this hash, for a find() a little later.
  void prefetch(uint32_t hash) const { __builtin_prefetch(&buckets_[hash & mask_]); }

  // The answer remembered for `key` (true), or false. Only when enabled().
  bool find(const Key& key, uint32_t hash, uint32_t& answer) const {
    const Bucket& b = buckets_[hash & mask_];
    // Every entry is compared, without a branch: which one holds a key
    // differs from flow to flow, and a mispredicted early exit would cost
    // more than the lookup. A key is in its bucket at most once, so the
    // tags of the matching entries OR to the one tag (0: none, or empty).
    uint64_t tag = 0;
    for (const Entry& e : b.entries) {
      const bool match = (e.addresses == key.addresses) & ((e.rest & kRestMask) == key.rest);
      tag |= (e.rest >> kTagShift) & -static_cast<uint64_t>(match);
    }
    answer = static_cast<uint32_t>(tag) - 1;
    return tag != 0;
  }

  // Files `answer` (at most kMaxAnswer) for `key`: over its own entry if it
  // has one (two packets of a new flow in one burst), else over the entry
  // its hash names. Only when enabled().
  void remember(const Key& key, uint32_t hash, uint32_t answer) {
    Bucket& b = buckets_[hash & mask_];
    Entry* slot = &b.entries[(hash >> 28) & (kWays - 1)];  // bits the bucket index does not use
    for (Entry& e : b.entries)  // (a filled entry: an empty one would match the all-zero key)
      if (e.addresses == key.addresses && (e.rest & kRestMask) == key.rest && (e.rest >> kTagShift) != 0) slot = &e;
    slot->addresses = key.addresses;
    slot->rest = key.rest | static_cast<uint64_t>(answer + 1) << kTagShift;
  }

  uint64_t hits = 0;
  uint64_t misses = 0;

 private:
  static constexpr uint32_t kWays = 4;
  static constexpr int kTagShift = 40;  // ports (32 bits) and protocol (8) below
  static constexpr uint64_t kRestMask = (uint64_t{1} << kTagShift) - 1;

  struct Entry {
    uint64_t addresses;  // source, destination
    uint64_t rest;       // ports, protocol, then the tag: answer + 1 (0: empty)
  };
  struct alignas(64) Bucket {
    Entry entries[kWays] = {};
  };

  std::vector<Bucket> buckets_;
  uint32_t mask_ = 0;
};

}  // namespace nfv
