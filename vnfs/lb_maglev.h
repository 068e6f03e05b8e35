// Weighted Maglev lookup table (Eisenbud et al., NSDI 2016): every backend
// fills table slots in its own permutation order, turns handed out in
// proportion to its weight. Removing a backend only re-fills its own slots
// (plus a small fraction), so most flows keep their backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// Its own namespace: the pod's instance pools have a Maglev of their own
// (dataplane/maglev.h), keyed by instance id.
namespace nfv::lb {

struct MaglevBackend {
  std::string name;  // hashed for the permutation, e.g. "10.1.0.1:8080"
  uint32_t weight;   // 0 = down
};

// Returns `table_size` entries, each a backend index (or -1 if every weight is 0).
// `table_size` should be prime and well above the number of backends.
std::vector<int32_t> build_maglev_table(const std::vector<MaglevBackend>& backends, uint32_t table_size);

bool is_prime(uint32_t n);

}  // namespace nfv::lb
