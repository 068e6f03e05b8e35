// A synthetic origin-destination trace for any topology, for systems that
// have no measured matrices (and benchmarks at sizes no real trace has):
// a gravity model (each site a seeded log-normal "mass"; a pair's share is
// the product of its two masses, damped by distance) times a diurnal curve
// that follows the sun at the source site (its longitude sets its local
// time), times seeded log-normal noise per row and pair. Deterministic for a
// seed. Columns are SRC->DST, in Mbit/s, like the Abilene matrices, so every
// tool turns them into one chain per pair.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rate_trace.h"
#include "topology.h"

namespace nfv {

struct GravityTraceShape {
  std::size_t rows = 3 * 288;
  double step_seconds = 300;
  std::int64_t start_unix_s = 1767571200;  // 2026-01-05T00:00:00Z, a Monday
  double total_mbps = 10000;     // all pairs together, on average over a day
  double diurnal_amplitude = 0.6;  // a pair's peak is (1 + this) x its mean
  double noise = 0.15;           // standard deviation of the log of each cell's factor
  double distance_km = 2000;     // shares fall as 1 / (1 + distance / this)
  std::size_t pairs = 0;         // keep the heaviest N ordered pairs (0 = all)
  std::uint64_t seed = 1;
};

// Throws std::invalid_argument on a topology of fewer than two sites or a
// shape out of range.
RateTrace gravity_od_trace(const Topology& topology, const GravityTraceShape& shape);

}  // namespace nfv
