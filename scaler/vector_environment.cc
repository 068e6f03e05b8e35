#include "vector_environment.h"

#include <stdexcept>
#include <string>

namespace nfv {

VectorEnvironment::VectorEnvironment(std::vector<ScalerEnvironment> environments, std::size_t threads)
    : environments_(std::move(environments)), workers_(std::min(threads, environments_.size())) {}

void VectorEnvironment::reset(std::span<const EpisodeSpec> episodes) {
  if (episodes.size() != size())
    throw std::invalid_argument("vector environment: " + std::to_string(episodes.size()) + " episodes for " +
                                std::to_string(size()) + " environments");
  workers_.run(size(), [&](std::size_t k) { environments_[k].reset(episodes[k]); });
}

std::vector<StepResult> VectorEnvironment::step(std::span<const Plan> plans) {
  if (plans.size() != size())
    throw std::invalid_argument("vector environment: " + std::to_string(plans.size()) + " plans for " +
                                std::to_string(size()) + " environments");
  std::vector<StepResult> results(size());
  workers_.run(size(), [&](std::size_t k) { results[k] = environments_[k].step(plans[k]); });
  return results;
}

void VectorEnvironment::for_each(const std::function<void(std::size_t)>& work) { workers_.run(size(), work); }

std::vector<ScalerEnvironment> copies(std::size_t k, const ScalerEnvironment& prototype) {
  std::vector<ScalerEnvironment> out;
  out.reserve(k);
  for (std::size_t i = 0; i < k; ++i)
    out.emplace_back(prototype.shared_model(), prototype.shared_arrivals(), prototype.initial_plan(), prototype.settings());
  return out;
}

}  // namespace nfv
