#include "lb_maglev.h"

#include <algorithm>

#include <rte_hash_crc.h>

namespace nfv::lb {

bool is_prime(uint32_t n) {
  if (n < 2) return false;
  for (uint32_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

std::vector<int32_t> build_maglev_table(const std::vector<MaglevBackend>& backends, uint32_t table_size) {
  std::vector<int32_t> table(table_size, -1);
  const size_t n = backends.size();
  uint32_t max_weight = 0;
  for (const auto& b : backends) max_weight = std::max(max_weight, b.weight);
  if (max_weight == 0) return table;
  std::vector<uint64_t> offset(n), skip(n), next(n, 0), credit(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& name = backends[i].name;
    offset[i] = rte_hash_crc(name.data(), static_cast<uint32_t>(name.size()), 0x12345678) % table_size;
    skip[i] = rte_hash_crc(name.data(), static_cast<uint32_t>(name.size()), 0x9abcdef0) % (table_size - 1) + 1;
  }
  uint32_t filled = 0;
  while (true) {
    for (size_t i = 0; i < n; ++i) {
      // A backend takes a turn each time its credit reaches the top weight.
      credit[i] += backends[i].weight;
      if (credit[i] < max_weight) continue;
      credit[i] -= max_weight;
      uint64_t slot;
      do {
        slot = (offset[i] + next[i] * skip[i]) % table_size;
        next[i]++;
      } while (table[slot] >= 0);
      table[slot] = static_cast<int32_t>(i);
      if (++filled == table_size) return table;
    }
  }
}

}  // namespace nfv::lb
