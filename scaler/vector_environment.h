// K environments stepped in one call on worker threads, for learning
// policies that collect experience from many episodes at once. Each
// environment owns its state (simulator, forecaster, random stream), so
// stepping them in parallel gives exactly what stepping them one after
// another gives.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "environment.h"
#include "worker_pool.h"

namespace nfv {

class VectorEnvironment {
 public:
  // `threads`: helper threads besides the caller (0 = step on the caller alone).
  VectorEnvironment(std::vector<ScalerEnvironment> environments, std::size_t threads);

  std::size_t size() const { return environments_.size(); }
  ScalerEnvironment& operator[](std::size_t k) { return environments_[k]; }
  const ScalerEnvironment& operator[](std::size_t k) const { return environments_[k]; }

  // episodes[k] for environment k.
  void reset(std::span<const EpisodeSpec> episodes);
  // plans[k] for environment k; the results in the same order. Throws what
  // an environment threw (the first), after every step has finished.
  std::vector<StepResult> step(std::span<const Plan> plans);
  // Runs `work(k)` for every environment on the worker threads (e.g. to
  // featurize or decode next to the step).
  void for_each(const std::function<void(std::size_t)>& work);

 private:
  std::vector<ScalerEnvironment> environments_;
  WorkerPool workers_;
};

// K environments over the same system and trace, settings and first plan.
std::vector<ScalerEnvironment> copies(std::size_t k, const ScalerEnvironment& prototype);

}  // namespace nfv
