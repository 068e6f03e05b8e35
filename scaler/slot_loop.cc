#include "slot_loop.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace nfv {
namespace {

double ms_since(std::chrono::steady_clock::time_point begun) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begun).count();
}

void add(std::string& reason, const std::string& part) {
  if (!part.empty()) reason += (reason.empty() ? "" : "; ") + part;
}

}  // namespace

SlotLoop::SlotLoop(std::shared_ptr<const SystemModel> model, std::unique_ptr<Backend> backend,
                   std::unique_ptr<Forecaster> forecaster, std::unique_ptr<Policy> policy, Plan start,
                   SlotLoopSettings settings)
    : model_(std::move(model)), backend_(std::move(backend)), forecaster_(std::move(forecaster)),
      policy_(std::move(policy)), settings_(std::move(settings)), validator_(model_->topology()),
      last_good_(std::move(start)) {
  validator_.require_valid(last_good_, "starting plan");
}

SlotLoop::~SlotLoop() = default;

void SlotLoop::start() {
  policy_->reset();
  forecaster_->reset();
  if (settings_.history) forecaster_->warm_up(*settings_.history, settings_.history_slots);
  observation_ = backend_->start(last_good_);
}

void SlotLoop::switch_policy(std::unique_ptr<Policy> policy, std::string why) {
  policy_ = std::move(policy);
  pending_reason_ = std::move(why);
}

void SlotLoop::resume(const std::vector<PastSlot>& past, const CostBreakdown& cost_so_far) {
  if (backend_->reruns_history() && !past.empty() && past.front().slot > 0) backend_->start_history_at(past.front().slot);
  for (const PastSlot& slot : past) {
    if (backend_->reruns_history()) observation_ = backend_->run_slot(slot.plan, slot.applied).observation;
    for (std::size_t s = slot.slot; s < slot.slot + slot.slots; ++s) forecaster_->observe(slot.arrival_pps, s);
    if (slot.applied) last_good_ = slot.plan;
  }
  if (!past.empty()) {
    // Pods: the slot clock may have run on while the scaler was away.
    const std::size_t after = past.back().slot + past.back().slots;
    observation_.slot = backend_->reruns_history() ? after : std::max(observation_.slot, after);
    observation_.plan = last_good_;
    if (!backend_->reruns_history()) {
      // Pods: what the last journaled slot measured is what the next decision starts from.
      observation_.arrival_pps = past.back().arrival_pps;
      observation_.measured = true;
    }
  }
  cost_so_far_ = cost_so_far;
}

const SlotRecord& SlotLoop::run_slot() {
  const Topology& topology = model_->topology();
  // The record is reused slot after slot: its buffers keep their capacity.
  SlotRecord& r = record_;
  r.slot = observation_.slot;
  r.reason.swap(pending_reason_);
  pending_reason_.clear();
  r.error.clear();
  r.decided = r.applied = false;
  r.forecast_ms = r.decision_ms = 0;
  r.details = {};

  const auto forecast_begun = std::chrono::steady_clock::now();
  try {
    r.forecast = forecaster_->forecast(r.slot, settings_.horizon);
  } catch (const std::exception& e) {
    add(r.reason, std::string("forecast failed (") + e.what() + "), persistence used");
    r.forecast = persistence_forecast(observation_, settings_.horizon);
  }
  r.forecast_ms = ms_since(forecast_begun);

  // The plan for the slot: the policy's, or before any measurement the
  // plan in force; either way within the limits and checked.
  bool asked = false;
  if (!observation_.measured) {
    add(r.reason, "no slot measured yet: the plan in force stays");
    r.plan = last_good_;
  } else {
    asked = true;
    const auto begun = std::chrono::steady_clock::now();
    try {
      r.plan = policy_->decide(observation_, r.forecast);
      r.decided = true;
      add(r.reason, policy_->explain());
      r.details = policy_->details();
    } catch (const std::exception& e) {
      r.error = std::string("policy failed: ") + e.what();
    }
    r.decision_ms = ms_since(begun);
  }
  add(r.reason, forecaster_->note());
  // A site down (its pod does not answer) has no capacity: whatever the
  // policy decided, its pools move to the sites that remain.
  const bool sites_down = !observation_.site_down.empty();
  if (sites_down) {
    limits_ = settings_.limits;
    limits_.down = observation_.site_down;
    limits_.runs_pool = [this](std::size_t chain, std::size_t hop, std::size_t site) {
      return backend_->runs_pool(chain, hop, site);
    };
  }
  const SiteLimits& limits = sites_down ? limits_ : settings_.limits;
  if (r.error.empty()) {
    try {
      add(r.reason, enforce_site_limits(r.plan, topology, limits));
    } catch (const std::exception& e) {
      r.error = std::string("limits: ") + e.what();
    }
  }
  if (r.error.empty()) {
    const auto problems = validator_.problems(r.plan);
    if (!problems.empty()) r.error = "invalid plan: " + problems.front();
    else if (r.plan.total_instances() == 0 && last_good_.total_instances() > 0) r.error = "the plan has no instance at all";
  }
  if (!r.error.empty()) {
    r.decided = false;
    r.plan = last_good_;
    add(r.reason, "kept the last good plan");
    if (asked) ++kept_last_plan_;
    if (sites_down) {
      // The last good plan leaves the down sites too, when it can.
      Plan moved = last_good_;
      try {
        const std::string why = enforce_site_limits(moved, topology, limits);
        if (validator_.problems(moved).empty()) {
          r.plan = std::move(moved);
          add(r.reason, why);
        }
      } catch (const std::exception&) {
        // It stays as it was.
      }
    }
  }

  const bool apply = !settings_.shadow;
  r.applied = apply;
  try {
    r.report = backend_->run_slot(r.plan, apply);
  } catch (const std::exception& e) {
    // Nothing changed in the system: the slot runs under the last good plan.
    add(r.error, e.what());
    add(r.reason, "apply failed, the last good plan stays");
    r.applied = false;
    ++apply_failures_;
    r.report = backend_->run_slot(last_good_, false);
  }
  if (r.applied) last_good_ = r.plan;
  cost_so_far_ += r.report.cost;
  const std::size_t slots = r.report.slots;
  if (slots > 1)
    add(r.reason, "the backend fell behind the slot clock: slots " + std::to_string(r.slot) + ".." +
                      std::to_string(r.slot + slots - 1) + " measured as one");
  // A catch-up span's mean rate stands for every slot it covered: the
  // seasonal predictors count observations, so one per slot keeps their phase.
  for (std::size_t s = r.slot; s < r.slot + slots; ++s) forecaster_->observe(r.report.observation.arrival_pps, s);
  observation_ = r.report.observation;
  observation_.slot = r.slot + slots;
  return r;
}

}  // namespace nfv
