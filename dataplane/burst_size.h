// How many packets a worker reads from a port at once. An instance costs
// much the same per burst it gets, however many packets are in it: a chain
// whose pools spread each burst over four instances per hop ran 8-15%
// faster on bursts of 64 than of 32 (the fast path and hop by hop alike).
// The benchmarks run their references (testpmd, the fused chain, each VNF
// alone) at the same burst.
#pragma once

#include <cstdint>

namespace nfv {

inline constexpr uint16_t kBurstSize = 64;

}  // namespace nfv
