// The rte_hash tables VNF instances keep flow state in: one creation path
// for every VNF, so each table gets a process-wide unique name, CRC hashing
// and the instance's NUMA node, and a failure names the param that sized it.
#pragma once

#include <cstdint>
#include <string>

struct rte_hash;

namespace nfv {

// A table of `entries` keys of `key_len` bytes, named "nfv_<kind>_<n>".
// Throws VnfConfigError(size_param, ...) when it cannot be created. The
// caller frees it with rte_hash_free.
rte_hash* create_hash_table(const char* kind, uint32_t entries, uint32_t key_len, int socket_id, const std::string& size_param);

}  // namespace nfv
