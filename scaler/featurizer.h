// What a learning policy sees: a fixed-size feature vector per instance
// pool (chain, hop, site; PoolIndex order) plus global features, the same
// layout for any topology and any number of chains, so that one network
// with parameters shared across pools runs on systems it was not trained
// on. Rates are expressed in instances' worth of traffic (packets/s over
// the hop's per-instance service rate, log1p), prices relative to the
// system's mean, latencies relative to the chain's SLA: nothing depends on
// a trace's units or a topology's size. docs/learning.md lists the features.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "arrival_schedule.h"
#include "plan.h"
#include "system_model.h"

namespace nfv {

class Featurizer {
 public:
  // `horizon`: forecast steps in the features (a shorter forecast repeats
  // its last step, a longer one is cut); `mapping`: trace time, for the
  // time of day and week.
  Featurizer(std::shared_ptr<const SystemModel> model, const TraceMapping& mapping, std::size_t horizon);

  std::size_t pools() const { return pools_; }
  std::size_t pool_features() const { return pool_names_.size(); }
  std::size_t global_features() const { return global_names_.size(); }
  const std::vector<std::string>& pool_feature_names() const { return pool_names_; }
  const std::vector<std::string>& global_feature_names() const { return global_names_; }
  // 1 where a pool's site may serve its hop within the chain's SLA (sla_sites).
  const std::vector<std::uint8_t>& candidate() const { return candidate_; }

  // Writes pools() x pool_features() floats (row per pool) and
  // global_features() floats. Thread-safe (const, no shared scratch).
  void featurize(const Observation& observation, const Forecast& forecast, std::span<float> pool_out,
                 std::span<float> global_out) const;

 private:
  std::shared_ptr<const SystemModel> model_;
  TraceMapping mapping_;
  std::size_t horizon_;
  std::size_t pools_;
  std::vector<std::string> pool_names_, global_names_;
  std::vector<std::uint8_t> candidate_;
  std::vector<float> static_;  // per pool: the features that never change (SLA margin, prices, hop position, candidate)
  std::vector<double> capacity_;  // per site, 0 = unlimited
};

// Per pool (PoolIndex), 1 where the pool's site is among sla_sites() of its chain.
std::vector<std::uint8_t> sla_pool_mask(const SystemModel& model);

}  // namespace nfv
