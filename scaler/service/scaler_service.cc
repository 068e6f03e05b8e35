#include "scaler_service.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace nfv {
namespace {

PolicyParams params_of(const scaler::PolicyChoice& choice) {
  return PolicyParams(choice.params().begin(), choice.params().end());
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

void fill_cost(const CostBreakdown& cost, scaler::SlotCost* out) {
  out->set_operating(cost.operating);
  out->set_deployment(cost.deployment);
  out->set_wan(cost.wan);
  out->set_sla_penalty(cost.sla_penalty);
  out->set_total(cost.total());
}

std::string choice_text(const scaler::PolicyChoice& choice) {
  std::string text = choice.name();
  for (const auto& [key, value] : PolicyParams(choice.params().begin(), choice.params().end()))
    text += " " + key + "=" + value;
  return text;
}

}  // namespace

ScalerService::ScalerService(ScalerSetup setup) : setup_(std::move(setup)) {
  const auto& config = setup_.config;
  const Topology& topology = setup_.model->topology();
  std::vector<scaler::JournalEntry> entries;
  if (!config.journal().empty()) entries = Journal::read(config.journal());
  choice_ = entries.empty() ? config.policy() : entries.back().policy();
  policy_ = make_policy(choice_.name(), params_of(choice_), setup_.model);
  forecaster_ = std::make_unique<Forecaster>(setup_);
  const Plan start = starting_plan(params_of(config.policy()), topology);
  last_good_ = start;
  backend_ = config.backend() == scaler::BACKEND_PODS ? make_pods_backend(setup_)
                                                       : make_sim_backend(setup_, start, config.realtime());
  observation_ = backend_->start(start);
  if (!entries.empty()) {
    // Resume: the simulator re-runs the journaled slots to restore its queues
    // and place in the trace; pods carry their own state.
    if (config.backend() != scaler::BACKEND_PODS)
      for (const auto& entry : entries) observation_ = backend_->run_slot(to_plan(entry.plan()), entry.applied()).observation;
    // The forecaster learns the journaled rates again (a predictor's history).
    Observation measured;
    for (const auto& entry : entries) {
      measured.arrival_pps.clear();
      for (const auto& chain : entry.chains()) measured.arrival_pps.push_back(chain.arrival_pps());
      (void)forecaster_->forecast(measured, config.horizon(), entry.slot() + 1);
    }
    for (auto it = entries.rbegin(); it != entries.rend(); ++it)
      if (it->applied()) {
        last_good_ = to_plan(it->plan());
        break;
      }
    observation_.plan = last_good_;
    policy_->restore(entries.back().policy_state());
    const auto& so_far = entries.back().cost_so_far();
    cost_so_far_ = CostBreakdown{so_far.operating(), so_far.deployment(), so_far.wan(), so_far.sla_penalty()};
    slot_ = entries.back().slot() + 1;
    resumed_ = entries.size();
  }
  if (!config.journal().empty()) journal_ = std::make_unique<Journal>(config.journal());
  instances_per_site_.assign(setup_.model->sites(), 0.0);
}

ScalerService::~ScalerService() = default;

Plan ScalerService::to_plan(const google::protobuf::RepeatedPtrField<planfile::PoolEntry>& entries) const {
  const Topology& topology = setup_.model->topology();
  Plan plan;
  for (const auto& e : entries) {
    std::size_t chain = topology.chains.size();
    for (std::size_t c = 0; c < topology.chains.size(); ++c)
      if (topology.chains[c].name == e.chain()) chain = c;
    const auto site = topology.find_site(e.site());
    if (chain == topology.chains.size() || !site || e.hop() < 1)
      throw std::runtime_error("journal: a pool of another topology (" + e.chain() + "/" + std::to_string(e.hop()) + "@" +
                               e.site() + ")");
    plan.pools.push_back(PoolPlan{static_cast<std::uint32_t>(chain), e.hop() - 1, static_cast<std::uint32_t>(*site),
                                  e.instances(), e.has_split() ? e.split() : 1.0});
  }
  return plan;
}

void ScalerService::to_entries(const Plan& plan, google::protobuf::RepeatedPtrField<planfile::PoolEntry>* entries) const {
  const Topology& topology = setup_.model->topology();
  for (const PoolPlan& p : plan.pools) {
    auto* e = entries->Add();
    e->set_chain(topology.chains[p.chain].name);
    e->set_hop(p.hop + 1);
    e->set_site(topology.sites[p.site].name);
    e->set_instances(p.instances);
    e->set_split(p.split);
  }
}

std::string ScalerService::apply_limits(Plan& plan) const {
  const Topology& topology = setup_.model->topology();
  std::string changed;
  for (std::size_t s = 0; s < topology.sites.size(); ++s) {
    const double max = setup_.max_per_site[s] > 0 ? setup_.max_per_site[s] : topology.sites[s].instance_capacity;
    const double min = setup_.min_per_site[s];
    std::vector<PoolPlan*> here;
    double total = 0;
    for (PoolPlan& p : plan.pools)
      if (p.site == s) {
        here.push_back(&p);
        total += p.instances;
      }
    if (here.empty()) {
      if (setup_.min_per_site[s] > 0)
        changed += (changed.empty() ? "" : "; ") + std::string("site ") + topology.sites[s].name +
                   " runs no pool to hold its minimum";
      continue;
    }
    const auto largest = [&] {
      return *std::max_element(here.begin(), here.end(), [](PoolPlan* a, PoolPlan* b) { return a->instances < b->instances; });
    };
    const double before = total;
    while (max > 0 && total > max && largest()->instances > 1) {
      --largest()->instances;
      --total;
    }
    while (total < min) {
      ++largest()->instances;
      ++total;
    }
    if (max > 0 && total > max)
      throw std::runtime_error("site " + topology.sites[s].name + " needs " + std::to_string(static_cast<long>(total)) +
                               " instances (one per pool), more than its limit " + std::to_string(static_cast<long>(max)));
    if (total != before)
      changed += (changed.empty() ? "" : "; ") + std::string("site ") + topology.sites[s].name + " limited from " +
                 std::to_string(static_cast<long>(before)) + " to " + std::to_string(static_cast<long>(total)) + " instances";
  }
  return changed;
}

void ScalerService::run(const std::atomic<bool>& stop, const std::function<void(const scaler::JournalEntry&)>& on_slot) {
  const auto& config = setup_.config;
  const Topology& topology = setup_.model->topology();
  PlanValidator validator(topology);
  while (!stop.load() && !backend_->done() && (config.slots() == 0 || slot_ < config.slots())) {
    scaler::JournalEntry entry;
    std::string reason, error;
    {
      std::lock_guard lock(mutex_);
      if (pending_) {
        policy_ = make_policy(pending_->name(), params_of(*pending_), setup_.model);
        reason = "policy switched from " + choice_text(choice_) + " to " + choice_text(*pending_) + "; ";
        choice_ = *pending_;
        pending_.reset();
      }
      entry.set_slot(slot_);
    }
    entry.set_time(utc_now());
    *entry.mutable_policy() = choice_;
    observation_.slot = slot_;
    const auto forecast_begun = std::chrono::steady_clock::now();
    Forecast forecast;
    try {
      forecast = forecaster_->forecast(observation_, config.horizon(), slot_);
    } catch (const std::exception& e) {
      reason += std::string("forecast failed (") + e.what() + "), persistence used; ";
      forecast = persistence_forecast(observation_, config.horizon());
    }
    entry.set_forecast_ms(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - forecast_begun).count());
    const std::string forecast_note = forecaster_->note();
    Plan plan;
    const auto begun = std::chrono::steady_clock::now();
    try {
      plan = policy_->decide(observation_, forecast);
      reason += policy_->explain();
    } catch (const std::exception& e) {
      error = std::string("policy failed: ") + e.what();
    }
    if (!forecast_note.empty()) reason += (reason.empty() ? "" : "; ") + forecast_note;
    const double decision_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begun).count();
    if (error.empty()) {
      try {
        const std::string limited = apply_limits(plan);
        if (!limited.empty()) reason += (reason.empty() ? "" : "; ") + limited;
      } catch (const std::exception& e) {
        error = std::string("limits: ") + e.what();
      }
      const auto problems = error.empty() ? validator.problems(plan) : std::vector<std::string>{};
      if (!problems.empty()) error = "invalid plan: " + problems.front();
      else if (error.empty() && plan.total_instances() == 0 && last_good_.total_instances() > 0)
        error = "the plan has no instance at all";
    }
    if (!error.empty()) {
      plan = last_good_;
      reason += (reason.empty() ? "" : "; ") + std::string("kept the last good plan");
    }
    const bool apply = !config.shadow();
    SlotReport report;
    bool applied = apply;
    try {
      report = backend_->run_slot(plan, apply);
    } catch (const std::exception& e) {
      // Nothing changed in the system: the slot runs under the last good plan.
      error += (error.empty() ? "" : "; ") + std::string(e.what());
      reason += (reason.empty() ? "" : "; ") + std::string("apply failed, the last good plan stays");
      applied = false;
      report = backend_->run_slot(last_good_, false);
    }
    if (applied) last_good_ = plan;
    cost_so_far_ += report.cost;

    for (std::size_t c = 0; c < topology.chains.size(); ++c) {
      auto* chain = entry.add_chains();
      chain->set_chain(topology.chains[c].name);
      const ChainTraffic& t = c < report.observation.chains.size() ? report.observation.chains[c] : ChainTraffic{};
      chain->set_arrival_pps(c < report.observation.arrival_pps.size() ? report.observation.arrival_pps[c] : 0.0);
      chain->set_forecast_pps(forecast.horizon > 0 ? forecast.mean(c, 0) : 0.0);
      chain->set_delivered(t.delivered);
      chain->set_dropped(t.dropped);
      chain->set_late(t.late);
      chain->set_p99_ms(c < report.p99_ms.size() ? report.p99_ms[c] : 0.0);
    }
    to_entries(plan, entry.mutable_plan());
    entry.set_reason(reason);
    fill_cost(report.cost, entry.mutable_cost());
    fill_cost(cost_so_far_, entry.mutable_cost_so_far());
    entry.set_applied(applied);
    entry.set_shadow(config.shadow());
    entry.set_error(error);
    entry.set_decision_ms(decision_ms);
    entry.set_policy_state(policy_->state());
    entry.set_instances(static_cast<std::uint64_t>(std::max<std::int64_t>(0, plan.total_instances())));
    if (journal_) journal_->write(entry);

    observation_ = report.observation;
    {
      std::lock_guard lock(mutex_);
      ++slot_;
      ++decisions_;
      if (!error.empty()) ++kept_last_plan_;
      if (apply && !applied) ++apply_failures_;
      last_decision_ms_ = decision_ms;
      last_reason_ = reason;
      last_error_ = error;
      std::fill(instances_per_site_.begin(), instances_per_site_.end(), 0.0);
      for (const PoolPlan& p : last_good_.pools) instances_per_site_[p.site] += p.instances;
      for (const auto& chain : entry.chains()) {
        dropped_total_ += chain.dropped();
        delivered_total_ += chain.delivered();
      }
    }
    if (on_slot) on_slot(entry);
  }
}

void ScalerService::request_policy(const scaler::PolicyChoice& choice) {
  // Built once now only to check the name and parameters: errors reach the caller.
  (void)make_policy(choice.name(), params_of(choice), setup_.model);
  std::lock_guard lock(mutex_);
  pending_ = choice;
}

std::uint64_t ScalerService::next_slot() const {
  std::lock_guard lock(mutex_);
  return slot_;
}

control::Response ScalerService::handle(const control::Request& request) {
  control::Response response;
  if (request.has_set_policy()) {
    try {
      request_policy(request.set_policy());
      response.set_ok(true);
    } catch (const std::exception& e) {
      response.set_ok(false);
      response.set_error(e.what());
    }
    return response;
  }
  if (request.has_scaler_status()) {
    std::lock_guard lock(mutex_);
    auto* s = response.mutable_scaler();
    s->set_name(setup_.config.name());
    *s->mutable_policy() = choice_;
    if (pending_) *s->mutable_pending_policy() = *pending_;
    s->set_slot(slot_);
    s->set_shadow(setup_.config.shadow());
    s->set_backend(setup_.config.backend() == scaler::BACKEND_PODS ? "pods" : "sim");
    fill_cost(cost_so_far_, s->mutable_cost_so_far());
    s->set_instances(static_cast<std::uint64_t>(std::accumulate(instances_per_site_.begin(), instances_per_site_.end(), 0.0)));
    s->set_last_reason(last_reason_);
    s->set_last_error(last_error_);
    response.set_ok(true);
    return response;
  }
  response.set_ok(false);
  response.set_error("nfv-scaler answers set_policy and scaler_status (the other requests are for pods)");
  return response;
}

std::string ScalerService::metrics() const {
  std::lock_guard lock(mutex_);
  std::ostringstream m;
  const auto metric = [&](const char* name, const char* type, const char* help) {
    m << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  };
  metric("nfv_scaler_slot", "gauge", "The next slot to decide.");
  m << "nfv_scaler_slot " << slot_ << '\n';
  metric("nfv_scaler_decisions_total", "counter", "Decisions taken.");
  m << "nfv_scaler_decisions_total " << decisions_ << '\n';
  metric("nfv_scaler_kept_last_plan_total", "counter", "Slots that kept the last good plan after a failure.");
  m << "nfv_scaler_kept_last_plan_total " << kept_last_plan_ << '\n';
  metric("nfv_scaler_apply_failures_total", "counter", "Plans the system refused.");
  m << "nfv_scaler_apply_failures_total " << apply_failures_ << '\n';
  metric("nfv_scaler_decision_seconds", "gauge", "Wall time of the last decision.");
  m << "nfv_scaler_decision_seconds " << last_decision_ms_ / 1e3 << '\n';
  metric("nfv_scaler_policy_info", "gauge", "The policy in force.");
  m << "nfv_scaler_policy_info{policy=\"" << choice_.name() << "\"} 1\n";
  metric("nfv_scaler_shadow", "gauge", "1 when decisions are journaled but not applied.");
  m << "nfv_scaler_shadow " << (setup_.config.shadow() ? 1 : 0) << '\n';
  metric("nfv_scaler_instances", "gauge", "Instances per site in the plan in force.");
  const Topology& topology = setup_.model->topology();
  for (std::size_t s = 0; s < instances_per_site_.size(); ++s)
    m << "nfv_scaler_instances{site=\"" << topology.sites[s].name << "\"} " << instances_per_site_[s] << '\n';
  metric("nfv_scaler_cost_total", "counter", "Cost so far by term, by the one cost model.");
  m << "nfv_scaler_cost_total{term=\"operating\"} " << cost_so_far_.operating << '\n';
  m << "nfv_scaler_cost_total{term=\"deployment\"} " << cost_so_far_.deployment << '\n';
  m << "nfv_scaler_cost_total{term=\"wan\"} " << cost_so_far_.wan << '\n';
  m << "nfv_scaler_cost_total{term=\"sla\"} " << cost_so_far_.sla_penalty << '\n';
  metric("nfv_scaler_packets_total", "counter", "Packets of all chains by outcome.");
  m << "nfv_scaler_packets_total{outcome=\"delivered\"} " << delivered_total_ << '\n';
  m << "nfv_scaler_packets_total{outcome=\"dropped\"} " << dropped_total_ << '\n';
  return m.str();
}

}  // namespace nfv
