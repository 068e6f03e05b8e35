// The rte_hash tables VNF instances keep flow state in: one creation path
// for every VNF, so each table gets a process-wide unique name, CRC hashing
// and the instance's NUMA node, and a failure names the param that sized it.
#pragma once

#include <cstdint>
#include <string>

#include <rte_hash_crc.h>

struct rte_hash;

namespace nfv {

// A table of `entries` keys of `key_len` bytes, named "nfv_<kind>_<n>".
// Throws VnfConfigError(size_param, ...) when it cannot be created. The
// caller frees it with rte_hash_free.
rte_hash* create_hash_table(const char* kind, uint32_t entries, uint32_t key_len, int socket_id, const std::string& size_param);

// The hash those tables use, inlined: bulk lookups pass it to rte_hash's
// *_with_hash calls, which saves the library's call through a function
// pointer per key. Adds and deletes may use either form: both agree.
[[gnu::always_inline]] inline uint32_t table_hash(const void* key, uint32_t key_len) {
  return rte_hash_crc(key, key_len, 0);
}

}  // namespace nfv
