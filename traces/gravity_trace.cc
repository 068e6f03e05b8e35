#include "gravity_trace.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>
#include <stdexcept>

#include "geo_distance.h"

namespace nfv {

RateTrace gravity_od_trace(const Topology& topology, const GravityTraceShape& shape) {
  const std::size_t n = topology.sites.size();
  if (n < 2) throw std::invalid_argument("gravity trace: topology " + topology.name + " has fewer than two sites");
  if (shape.rows == 0 || !(shape.step_seconds > 0) || !(shape.total_mbps > 0) || !(shape.diurnal_amplitude >= 0) ||
      shape.diurnal_amplitude >= 1 || !(shape.noise >= 0) || !(shape.distance_km > 0))
    throw std::invalid_argument("gravity trace: rows and step > 0, total > 0, amplitude in [0, 1), noise >= 0, distance > 0");
  std::mt19937_64 random(shape.seed);
  std::lognormal_distribution<double> mass(0.0, 1.0);
  std::vector<double> masses(n);
  for (double& m : masses) m = mass(random);

  struct Pair {
    std::size_t from, to;
    double weight;
  };
  std::vector<Pair> pairs;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const Site &a = topology.sites[i], &b = topology.sites[j];
      const double km = great_circle_km(a.latitude_deg, a.longitude_deg, b.latitude_deg, b.longitude_deg);
      pairs.push_back({i, j, masses[i] * masses[j] / (1 + km / shape.distance_km)});
    }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) { return x.weight > y.weight; });
  if (shape.pairs > 0 && shape.pairs < pairs.size()) pairs.resize(shape.pairs);
  const double total_weight = std::accumulate(pairs.begin(), pairs.end(), 0.0, [](double s, const Pair& p) { return s + p.weight; });

  RateTrace trace;
  trace.label = "gravity " + topology.name + " seed " + std::to_string(shape.seed);
  trace.step_seconds = shape.step_seconds;
  trace.start_unix_s = shape.start_unix_s;
  trace.unit = RateUnit::mbit_per_s;
  for (const Pair& p : pairs) trace.columns.push_back(topology.sites[p.from].name + "->" + topology.sites[p.to].name);
  std::normal_distribution<double> normal(0.0, 1.0);
  const double sigma = shape.noise;
  trace.values.reserve(shape.rows * pairs.size());
  for (std::size_t row = 0; row < shape.rows; ++row) {
    const double utc_s = static_cast<double>(shape.start_unix_s) + static_cast<double>(row) * shape.step_seconds;
    for (const Pair& p : pairs) {
      // Local solar time at the source; the peak at 15:00, the trough at 03:00.
      const double local_h = std::fmod(utc_s / 3600 + topology.sites[p.from].longitude_deg / 15 + 48, 24.0);
      const double diurnal = 1 + shape.diurnal_amplitude * std::sin(2 * std::numbers::pi * (local_h - 9) / 24);
      const double factor = sigma > 0 ? std::exp(sigma * normal(random) - sigma * sigma / 2) : 1.0;
      trace.values.push_back(shape.total_mbps * p.weight / total_weight * diurnal * factor);
    }
  }
  return trace;
}

}  // namespace nfv
