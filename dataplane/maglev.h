// Maglev consistent hashing (Eisenbud et al., NSDI 2016), weighted: a lookup
// table of prime size in which each backend owns a share of entries
// proportional to its weight. Adding or removing a backend moves only about
// its own share of entries, never a `hash % n` reshuffle. Backends are named
// by a stable key (e.g. an instance id), so a backend's preference order
// does not depend on its position in the list.
#pragma once

#include <cstdint>
#include <vector>

namespace nfv {

inline constexpr uint32_t kDefaultMaglevSize = 4099;  // prime, >> backends x 100 for even shares
inline constexpr uint16_t kNoBackend = 0xffff;

struct MaglevBackend {
  uint64_t key;     // stable identity
  uint32_t weight;  // > 0
};

// Returns, for each of `size` entries (size must be prime), the index in
// `backends` that owns it; all kNoBackend when there is no backend.
std::vector<uint16_t> build_maglev_table(const std::vector<MaglevBackend>& backends, uint32_t size = kDefaultMaglevSize);

bool is_prime(uint32_t n);

}  // namespace nfv
