#include "hash_table.h"

#include <atomic>
#include <cstdio>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>

#include "vnf.h"

namespace nfv {

rte_hash* create_hash_table(const char* kind, uint32_t entries, uint32_t key_len, int socket_id, const std::string& size_param) {
  static std::atomic<unsigned> next_id{0};
  char name[RTE_HASH_NAMESIZE];
  std::snprintf(name, sizeof(name), "nfv_%s_%u", kind, next_id++);
  rte_hash_parameters params{};
  params.name = name;
  params.entries = entries;
  params.key_len = key_len;
  params.hash_func = rte_hash_crc;  // hash_func_init_val 0, as table_hash
  params.socket_id = socket_id;
  rte_hash* table = rte_hash_create(&params);
  if (!table) throw VnfConfigError(size_param, std::string("a table size that fits in memory (") + rte_strerror(rte_errno) + ")");
  return table;
}

}  // namespace nfv
