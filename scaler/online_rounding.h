// Online rounding of the online policy's fractional instances to whole ones,
// hop by hop: a hop gets ceil(its fractional total) instances (never less
// capacity than the fractional solution), placed by largest remainder over
// its sites; it keeps the instances it already runs while they are fewer
// than `keep` above the fractional total (no churn at an integer boundary);
// and a unit rounded up at a full site moves to the hop's next site with room.
#pragma once

#include <cstdint>
#include <vector>

#include "plan.h"
#include "topology.h"

namespace nfv {

struct RoundingResult {
  std::vector<std::int32_t> instances;   // per pool
  std::vector<double> overflow;          // per site: instances over its capacity that could not move
  bool fits() const;
};

// `fractional` and `previous` per pool (PoolIndex); `candidate` says which
// pools may get instances; `site_capacity` per site (0 = unlimited);
// `min_per_hop` instances every hop keeps.
RoundingResult round_online(const Topology& topology, const PoolIndex& pools, const std::vector<double>& fractional,
                            const std::vector<std::int32_t>& previous, const std::vector<char>& candidate,
                            const std::vector<double>& site_capacity, double keep, double min_per_hop);

}  // namespace nfv
