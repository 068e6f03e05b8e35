#include "environment.h"

#include <stdexcept>
#include <string>

namespace nfv {

ScalerEnvironment::ScalerEnvironment(std::shared_ptr<const SystemModel> model,
                                     std::shared_ptr<const ArrivalSchedule> arrivals, Plan initial_plan)
    : arrivals_(std::move(arrivals)), initial_plan_(std::move(initial_plan)), simulator_(std::move(model)) {
  if (arrivals_->chains != simulator_.model().chains())
    throw std::invalid_argument("environment: arrivals for " + std::to_string(arrivals_->chains) + " chains, the system has " +
                                std::to_string(simulator_.model().chains()));
  simulator_.reset(initial_plan_);
}

const Observation& ScalerEnvironment::reset() {
  simulator_.reset(initial_plan_);
  return observation();
}

StepResult ScalerEnvironment::step(const Plan& plan) {
  if (done())
    throw std::logic_error("environment: step after the last of " + std::to_string(slots()) + " slots; call reset()");
  const SlotOutcome& outcome = simulator_.step(plan, arrivals_->slot(slot()));
  return StepResult{-outcome.cost.total(), done(), outcome.cost, outcome.total};
}

}  // namespace nfv
