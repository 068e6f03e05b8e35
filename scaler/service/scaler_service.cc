#include "scaler_service.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <algorithm>
#include <array>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "metric_info.h"
#include "pods_backend.h"

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
  std::vector<scaler::JournalEntry> entries;
  if (!config.journal().empty()) entries = Journal::read(config.journal());
  choice_ = entries.empty() ? config.policy() : entries.back().policy();
  std::unique_ptr<Forecaster> forecaster;
  try {
    forecaster = std::make_unique<Forecaster>(setup_.forecast, *setup_.model, setup_.mapping, setup_.arrivals);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(setup_.source.locate("forecast", std::string("a forecast this system can make: ") + e.what()));
  }
  const Plan start = starting_plan(params_of(config.policy()), setup_.model->topology());
  std::unique_ptr<Backend> backend =
      config.backend() == scaler::BACKEND_PODS
          ? make_pods_backend(setup_)
          : make_sim_backend(setup_.model, setup_.arrivals, start, config.realtime() ? config.slot_seconds() : 0.0);
  SlotLoopSettings settings;
  settings.horizon = config.horizon();
  settings.limits = setup_.limits;
  settings.shadow = config.shadow();
  settings.history = setup_.history;
  settings.history_slots = setup_.history ? setup_.history->slots() : 0;
  loop_ = std::make_unique<SlotLoop>(setup_.model, std::move(backend), std::move(forecaster),
                                     make_policy(choice_.name(), params_of(choice_), PolicyContext(setup_.model, setup_.mapping)), start, settings);
  loop_->start();
  if (!entries.empty()) {
    // Resume: the forecaster relearns the journaled rates, the simulator
    // re-runs the journaled slots (pods carry their own state), the policy
    // takes its state back.
    std::vector<SlotLoop::PastSlot> past;
    for (const auto& entry : entries) {
      SlotLoop::PastSlot slot;
      slot.slot = entry.slot();
      slot.plan = to_plan(entry.plan());
      slot.applied = entry.applied();
      slot.slots = std::max<std::uint64_t>(entry.slots(), 1);  // journals from before the field: 0
      for (const auto& chain : entry.chains()) slot.arrival_pps.push_back(chain.arrival_pps());
      past.push_back(std::move(slot));
    }
    const auto& so_far = entries.back().cost_so_far();
    loop_->resume(past, CostBreakdown{so_far.operating(), so_far.deployment(), so_far.wan(), so_far.sla_penalty()});
    loop_->policy().restore(entries.back().policy_state());
    cost_so_far_ = loop_->cost_so_far();
    resumed_ = entries.size();
  }
  slot_ = loop_->next_slot();
  if (!config.journal().empty())
    journal_ = std::make_unique<Journal>(
        config.journal(), config.journal_max_mib() > 0 ? std::max<std::uint64_t>(1, config.journal_max_mib() * (1 << 20)) : 0);
  instances_per_site_.assign(setup_.model->sites(), 0.0);
  for (const PoolPlan& p : loop_->last_good().pools) instances_per_site_[p.site] += p.instances;
  site_up_.assign(setup_.model->sites(), 1);
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

scaler::JournalEntry ScalerService::journal_entry(const SlotRecord& r) const {
  const Topology& topology = setup_.model->topology();
  scaler::JournalEntry entry;
  entry.set_slot(r.slot);
  entry.set_time(utc_now());
  {
    std::lock_guard lock(mutex_);
    *entry.mutable_policy() = choice_;
  }
  const Observation& measured = r.report.observation;
  for (std::size_t c = 0; c < topology.chains.size(); ++c) {
    auto* chain = entry.add_chains();
    chain->set_chain(topology.chains[c].name);
    const ChainTraffic& t = c < measured.chains.size() ? measured.chains[c] : ChainTraffic{};
    chain->set_arrival_pps(c < measured.arrival_pps.size() ? measured.arrival_pps[c] : 0.0);
    chain->set_forecast_pps(r.forecast.horizon > 0 && r.forecast.chains == topology.chains.size() ? r.forecast.mean(c, 0) : 0.0);
    chain->set_delivered(t.delivered);
    chain->set_dropped(t.dropped);
    chain->set_late(t.late);
    chain->set_p99_ms(std::isfinite(t.p99_latency_ms) ? t.p99_latency_ms : 0.0);
  }
  to_entries(r.plan, entry.mutable_plan());
  entry.set_reason(r.reason);
  fill_cost(r.report.cost, entry.mutable_cost());
  fill_cost(loop_->cost_so_far(), entry.mutable_cost_so_far());
  entry.set_applied(r.applied);
  entry.set_shadow(setup_.config.shadow());
  entry.set_error(r.error);
  entry.set_decision_ms(r.decision_ms);
  entry.set_forecast_ms(r.forecast_ms);
  entry.set_slots(r.report.slots);
  entry.set_policy_state(loop_->policy().state());
  entry.set_instances(static_cast<std::uint64_t>(std::max<std::int64_t>(0, r.plan.total_instances())));
  for (std::size_t s = 0; s < measured.site_down.size(); ++s)
    if (measured.site_down[s]) entry.add_sites_down(topology.sites[s].name);
  if (r.details.present) {
    auto* learned = entry.mutable_learned();
    learned->set_value(r.details.value);
    learned->set_guard(r.details.guard);
    learned->set_guard_reason(r.details.guard_reason);
    learned->set_guard_fallbacks(r.details.guard_fallbacks);
    for (const PolicyDetails::PoolAction& a : r.details.actions) {
      auto* action = learned->add_actions();
      action->set_chain(topology.chains[a.chain].name);
      action->set_hop(a.hop + 1);
      action->set_site(topology.sites[a.site].name);
      action->set_scale(a.scale);
      action->set_split(a.split);
    }
  }
  return entry;
}

void ScalerService::run(const std::atomic<bool>& stop, const std::function<void(const scaler::JournalEntry&)>& on_slot) {
  const auto& config = setup_.config;
  while (!stop.load() && !loop_->done() && (config.slots() == 0 || loop_->next_slot() < config.slots())) {
    std::optional<scaler::PolicyChoice> asked;
    std::uint64_t requests_when_asked = 0;
    {
      std::lock_guard lock(mutex_);
      asked = pending_;
      requests_when_asked = policy_requests_;
    }
    if (asked) {
      // Built outside the lock: a checkpoint to load or a solver to set up
      // takes seconds, and status requests and metrics scrapes would wait
      // on it. Only this thread sets choice_, so it is read here unlocked.
      // Checked when asked, but a policy's files (a checkpoint) may have
      // changed since: the run goes on either way.
      scaler::PolicyChoice in_force = *asked;
      try {
        loop_->switch_policy(make_policy(asked->name(), params_of(*asked), PolicyContext(setup_.model, setup_.mapping)),
                             "policy switched from " + choice_text(choice_) + " to " + choice_text(*asked));
      } catch (const std::exception& e) {
        in_force = choice_;
        loop_->switch_policy(make_policy(choice_.name(), params_of(choice_), PolicyContext(setup_.model, setup_.mapping)),
                             "policy switch to " + choice_text(*asked) + " failed (" + e.what() + "), " +
                                 choice_text(choice_) + " goes on");
      }
      std::lock_guard lock(mutex_);
      choice_ = in_force;
      if (policy_requests_ == requests_when_asked) pending_.reset();  // one asked meanwhile waits for the next slot
    }
    const SlotRecord& record = loop_->run_slot();
    const scaler::JournalEntry entry = journal_entry(record);
    if (journal_) journal_->write(entry);
    {
      std::lock_guard lock(mutex_);
      slot_ = loop_->next_slot();
      ++decisions_;
      kept_last_plan_ = loop_->kept_last_plan();
      apply_failures_ = loop_->apply_failures();
      if (record.details.present && !record.details.guard.empty() && record.details.guard != "agent") ++guard_fallbacks_;
      last_decision_ms_ = record.decision_ms;
      last_reason_ = record.reason;
      last_error_ = record.error;
      cost_so_far_ = loop_->cost_so_far();
      std::fill(instances_per_site_.begin(), instances_per_site_.end(), 0.0);
      for (const PoolPlan& p : loop_->last_good().pools) instances_per_site_[p.site] += p.instances;
      const auto& down = record.report.observation.site_down;
      for (std::size_t s = 0; s < site_up_.size(); ++s) site_up_[s] = s < down.size() && down[s] ? 0 : 1;
      for (const ChainTraffic& chain : record.report.observation.chains) {
        dropped_total_ += chain.dropped;
        delivered_total_ += chain.delivered;
        late_total_ += chain.late;
      }
    }
    if (on_slot) on_slot(entry);
  }
}

void ScalerService::request_policy(const scaler::PolicyChoice& choice) {
  // Built once now only to check the name and parameters: errors reach the caller.
  (void)make_policy(choice.name(), params_of(choice), PolicyContext(setup_.model, setup_.mapping));
  std::lock_guard lock(mutex_);
  pending_ = choice;
  ++policy_requests_;
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

namespace {

// Every metric the service exports (metrics() writes only these).
constexpr MetricInfo kSlot{"nfv_scaler_slot", "gauge", "The next slot to decide."};
constexpr MetricInfo kDecisionsTotal{"nfv_scaler_decisions_total", "counter", "Decisions taken."};
constexpr MetricInfo kKeptLastPlanTotal{"nfv_scaler_kept_last_plan_total", "counter",
                                "Slots that kept the last good plan after a failure."};
constexpr MetricInfo kApplyFailuresTotal{"nfv_scaler_apply_failures_total", "counter", "Plans the system refused."};
constexpr MetricInfo kGuardFallbacksTotal{"nfv_scaler_guard_fallbacks_total", "counter",
                                "Slots where a learning policy's guard found the agent's plan unsafe and its guard policy decided."};
constexpr MetricInfo kDecisionSeconds{"nfv_scaler_decision_seconds", "gauge", "Wall time of the last decision."};
constexpr MetricInfo kPolicyInfo{"nfv_scaler_policy_info", "gauge", "The policy in force."};
constexpr MetricInfo kShadow{"nfv_scaler_shadow", "gauge", "1 when decisions are journaled but not applied."};
constexpr MetricInfo kInstances{"nfv_scaler_instances", "gauge", "Instances per site in the plan in force."};
constexpr MetricInfo kSiteUp{"nfv_scaler_site_up", "gauge",
                                "1 while the pod hosting the site answers, 0 while it is down (plans leave it)."};
constexpr MetricInfo kCostTotal{"nfv_scaler_cost_total", "counter", "Cost so far by term, by the one cost model."};
constexpr MetricInfo kPacketsTotal{"nfv_scaler_packets_total", "counter",
                                "Packets of all chains by outcome (late: delivered past the chain's SLA)."};
constexpr std::array kScalerMetrics{kSlot, kDecisionsTotal, kKeptLastPlanTotal, kApplyFailuresTotal, kGuardFallbacksTotal,
                                    kDecisionSeconds, kPolicyInfo, kShadow, kInstances, kSiteUp, kCostTotal, kPacketsTotal};

}  // namespace

std::vector<MetricInfo> scaler_metrics() { return {kScalerMetrics.begin(), kScalerMetrics.end()}; }

std::string ScalerService::metrics() const {
  std::lock_guard lock(mutex_);
  std::ostringstream m;
  const auto metric = [&](const MetricInfo& info) {
    m << "# HELP " << info.name << ' ' << info.help << "\n# TYPE " << info.name << ' ' << info.type << '\n';
  };
  metric(kSlot);
  m << kSlot.name << ' ' << slot_ << '\n';
  metric(kDecisionsTotal);
  m << kDecisionsTotal.name << ' ' << decisions_ << '\n';
  metric(kKeptLastPlanTotal);
  m << kKeptLastPlanTotal.name << ' ' << kept_last_plan_ << '\n';
  metric(kApplyFailuresTotal);
  m << kApplyFailuresTotal.name << ' ' << apply_failures_ << '\n';
  metric(kGuardFallbacksTotal);
  m << kGuardFallbacksTotal.name << ' ' << guard_fallbacks_ << '\n';
  metric(kDecisionSeconds);
  m << kDecisionSeconds.name << ' ' << last_decision_ms_ / 1e3 << '\n';
  metric(kPolicyInfo);
  m << kPolicyInfo.name << "{policy=\"" << choice_.name() << "\"} 1\n";
  metric(kShadow);
  m << kShadow.name << ' ' << (setup_.config.shadow() ? 1 : 0) << '\n';
  metric(kInstances);
  const Topology& topology = setup_.model->topology();
  for (std::size_t s = 0; s < instances_per_site_.size(); ++s)
    m << kInstances.name << "{site=\"" << topology.sites[s].name << "\"} " << instances_per_site_[s] << '\n';
  metric(kSiteUp);
  for (std::size_t s = 0; s < site_up_.size(); ++s)
    m << kSiteUp.name << "{site=\"" << topology.sites[s].name << "\"} " << int{site_up_[s]} << '\n';
  metric(kCostTotal);
  m << kCostTotal.name << "{term=\"operating\"} " << cost_so_far_.operating << '\n';
  m << kCostTotal.name << "{term=\"deployment\"} " << cost_so_far_.deployment << '\n';
  m << kCostTotal.name << "{term=\"wan\"} " << cost_so_far_.wan << '\n';
  m << kCostTotal.name << "{term=\"sla\"} " << cost_so_far_.sla_penalty << '\n';
  metric(kPacketsTotal);
  m << kPacketsTotal.name << "{outcome=\"delivered\"} " << delivered_total_ << '\n';
  m << kPacketsTotal.name << "{outcome=\"dropped\"} " << dropped_total_ << '\n';
  m << kPacketsTotal.name << "{outcome=\"late\"} " << late_total_ << '\n';
  return m.str();
}

}  // namespace nfv
