#include "maglev.h"

#include <algorithm>
#include <stdexcept>

#include <rte_hash_crc.h>

namespace nfv {

bool is_prime(uint32_t n) {
  if (n < 2) return false;
  for (uint32_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

std::vector<uint16_t> build_maglev_table(const std::vector<MaglevBackend>& backends, uint32_t size) {
  if (!is_prime(size)) throw std::invalid_argument("Maglev table size must be prime");
  if (backends.size() >= kNoBackend) throw std::invalid_argument("too many Maglev backends");
  std::vector<uint16_t> table(size, kNoBackend);
  if (backends.empty()) return table;
  const std::size_t n = backends.size();
  // Each backend walks its own permutation of the table: offset + j * skip.
  std::vector<uint32_t> offset(n), skip(n), next(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    offset[i] = rte_hash_crc_8byte(backends[i].key, 0x5bd1e995) % size;
    skip[i] = rte_hash_crc_8byte(backends[i].key, 0x1b873593) % (size - 1) + 1;
  }
  // Weighted turns: a backend claims an entry each time its credit reaches
  // the heaviest weight, so shares follow the weights.
  uint32_t max_weight = 0;
  for (const auto& b : backends) max_weight = std::max(max_weight, std::max<uint32_t>(b.weight, 1));
  std::vector<uint64_t> credit(n, 0);
  uint32_t filled = 0;
  while (filled < size) {
    for (std::size_t i = 0; i < n && filled < size; ++i) {
      credit[i] += std::max<uint32_t>(backends[i].weight, 1);
      if (credit[i] < max_weight) continue;
      credit[i] -= max_weight;
      uint32_t entry;
      do {
        entry = static_cast<uint32_t>((offset[i] + static_cast<uint64_t>(next[i]) * skip[i]) % size);
        ++next[i];
      } while (table[entry] != kNoBackend);
      table[entry] = static_cast<uint16_t>(i);
      ++filled;
    }
  }
  return table;
}

}  // namespace nfv
