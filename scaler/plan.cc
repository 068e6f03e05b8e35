// Indexing of instance pools and the arithmetic of the vocabulary's values.
#include "plan.h"

#include <algorithm>

namespace nfv {

PoolIndex::PoolIndex(const Topology& topology) : sites_(topology.sites.size()) {
  for (const Chain& chain : topology.chains) {
    first_hop_.push_back(hops_);
    hops_ += chain.vnfs.size();
  }
}

std::int64_t Plan::total_instances() const {
  std::int64_t total = 0;
  for (const PoolPlan& pool : pools) total += pool.instances;
  return total;
}

ChainTraffic& ChainTraffic::operator+=(const ChainTraffic& other) {
  const double delivered_before = delivered;
  arrived += other.arrived;
  delivered += other.delivered;
  dropped += other.dropped;
  late += other.late;
  backlog += other.backlog;
  backlog_change += other.backlog_change;
  p99_latency_ms = std::max(p99_latency_ms, other.p99_latency_ms);
  if (delivered > 0)
    mean_latency_ms = (mean_latency_ms * delivered_before + other.mean_latency_ms * other.delivered) / delivered;
  return *this;
}

Forecast persistence_forecast(const Observation& observation, std::size_t horizon) {
  Forecast forecast;
  forecast.chains = observation.arrival_pps.size();
  forecast.horizon = horizon;
  forecast.mean_pps.reserve(forecast.chains * horizon);
  for (double rate : observation.arrival_pps) forecast.mean_pps.insert(forecast.mean_pps.end(), horizon, rate);
  return forecast;
}

}  // namespace nfv
