// nfv-sim: runs a scaler policy over a rate trace on the fluid simulator of
// a topology and prints what it cost, what it served and how many instances
// it ran (docs/simulator.md).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "episode.h"
#include "option_values.h"
#include "policy.h"
#include "scenario.h"

namespace {

constexpr const char* kUsage = R"(usage: nfv-sim [options]

Runs a scaler policy over the test rows of a rate trace on the fluid
simulator of a topology (the same slot loop as nfv-scaler, forecaster
included) and prints what it cost, what it served and how many instances it
ran.

the system and its traffic:
%s
the policy:
  --policy NAME          a registered policy (default static; --list shows them)
  --param KEY=VALUE      policy parameter, repeatable
  --forecast MODEL[:K=V,...]  what the policy plans for: persistence (default),
                         oracle, or a predictor with its parameters, e.g.
                         ewma:alpha=0.3, rnn:checkpoint=gru.pt
  --horizon N            slots of forecast the policy gets (default 1)
  --warm-up N            train slots the forecaster learns before the first
                         test slot (default a week of them; 0 = none)
  --list                 list the policies and forecast models, then exit

output:
  --csv FILE             one line per slot
  --chain-csv FILE       one line per slot and chain
  --quiet                no progress line
  --explain              print why the policy decided as it did, every slot

A trace whose columns are SRC->DST pairs makes one chain per pair (from SRC
to DST through --vnfs); otherwise each column feeds the topology's chain of
that name.
)";

struct Options {
  nfv::ScenarioOptions scenario;
  std::string policy = "static";
  nfv::PolicyParams params;
  nfv::ForecastSpec forecast;
  std::size_t horizon = 1;
  std::optional<std::size_t> warm_up;
  std::string csv;
  std::string chain_csv;
  bool quiet = false;
  bool explain = false;
};

void print_list() {
  std::printf("policies:\n");
  for (const auto& [name, description] : nfv::policy_names()) std::printf("  %-14s %s\n", name.c_str(), description.c_str());
  std::printf("forecast models:\n");
  for (const auto& [name, description] : nfv::forecast_models()) std::printf("  %-14s %s\n", name.c_str(), description.c_str());
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help" || option == "-h") {
      std::printf(kUsage, nfv::kScenarioUsage);
      std::exit(0);
    }
    if (option == "--list") {
      print_list();
      std::exit(0);
    }
    if (option == "--quiet") {
      o.quiet = true;
      continue;
    }
    if (option == "--explain") {
      o.explain = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value (--help lists the options)");
    const std::string value = argv[++i];
    if (nfv::scenario_option(option, value, o.scenario)) continue;
    if (option == "--policy") o.policy = value;
    else if (option == "--param") nfv::add_named_param(option, value, o.params);
    else if (option == "--forecast") o.forecast = nfv::parse_forecast_spec(value);
    else if (option == "--horizon") o.horizon = nfv::option_count(option, value);
    else if (option == "--warm-up") o.warm_up = nfv::option_count(option, value);
    else if (option == "--csv") o.csv = value;
    else if (option == "--chain-csv") o.chain_csv = value;
    else throw std::invalid_argument("unknown option '" + option + "' (--help lists the options)");
  }
  return o;
}

std::string percent(double part, double whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f%%", whole > 0 ? 100 * part / whole : 0.0);
  return text;
}

void print_summary(const nfv::EpisodeSummary& s, const nfv::SlaPenalty& sla) {
  const nfv::CostBreakdown& c = s.cost;
  const nfv::ChainTraffic& t = s.traffic;
  std::printf("\n%s policy, %s forecast, over %zu slots\n", s.policy.c_str(), s.forecast.c_str(), s.slots);
  std::printf("cost        %14.2f\n", c.total());
  std::printf("  operating %14.2f  (%s)\n", c.operating, percent(c.operating, c.total()).c_str());
  std::printf("  deploying %14.2f  (%s)\n", c.deployment, percent(c.deployment, c.total()).c_str());
  std::printf("  WAN       %14.2f  (%s)\n", c.wan, percent(c.wan, c.total()).c_str());
  std::printf("  SLA       %14.2f  (%s; %g per %s dropped or late)\n", c.sla_penalty,
              percent(c.sla_penalty, c.total()).c_str(), sla.price, nfv::basis_name(sla.basis).c_str());
  std::printf("traffic     %14.6g packets arrived\n", t.arrived);
  std::printf("  delivered %14.6g  (%s)\n", t.delivered, percent(t.delivered, t.arrived).c_str());
  std::printf("  dropped   %14.6g  (%s)\n", t.dropped, percent(t.dropped, t.arrived).c_str());
  std::printf("  late      %14.6g  (%s of delivered)\n", t.late, percent(t.late, t.delivered).c_str());
  std::printf("  queued    %14.6g  at the end\n", t.backlog);
  std::printf("  latency   mean %.3f ms, worst slot p99 %.3f ms\n", t.mean_latency_ms, t.p99_latency_ms);
  std::printf("instances   min %.0f, mean %.1f, max %.0f, at the end %.0f; %.0f started\n", s.min_instances,
              s.mean_instances, s.max_instances, s.final_instances, s.started_instances);
  std::printf("decisions   p50 %.3f ms, p99 %.3f ms, max %.3f ms; %zu kept the last good plan\n", s.decision_p50_ms,
              s.decision_p99_ms, s.decision_max_ms, s.kept_last_plan);
}

int run(const Options& o) {
  const nfv::Scenario scenario = nfv::load_scenario(o.scenario);
  const auto& model = scenario.model;
  const auto& arrivals = scenario.test;
  const nfv::Plan start = nfv::starting_plan(o.params, model->topology());
  auto policy = nfv::make_policy(o.policy, o.params, nfv::PolicyContext(model, arrivals->mapping));
  std::printf("%s", scenario.describe().c_str());
  std::printf("policy    %s", policy->name().c_str());
  for (const auto& [key, value] : o.params) std::printf(" %s=%s", key.c_str(), value.c_str());
  std::printf("\nforecast  %s, %zu slot(s) ahead", nfv::forecast_spec_text(o.forecast).c_str(), o.horizon);
  // The forecaster first learns the train rows' last week (or --warm-up slots), as it would have lived through them.
  const auto history = scenario.train->slots() > 0 ? scenario.train : nullptr;
  const std::size_t warm_up =
      history ? std::min(history->slots(), o.warm_up.value_or(nfv::default_warm_up_slots(arrivals->mapping.step_seconds))) : 0;
  if (warm_up > 0) std::printf(", warmed up on the last %zu train slots", warm_up);
  std::printf("\n");

  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    if (!csv) throw std::runtime_error(o.csv + ": cannot write");
    csv << "slot,arrived_packets,delivered_packets,dropped_packets,late_packets,backlog_packets,mean_latency_ms,"
           "p99_latency_ms,instances,started,operating_cost,deployment_cost,wan_cost,sla_penalty,total_cost\n";
  }
  std::ofstream chain_csv;
  if (!o.chain_csv.empty()) {
    chain_csv.open(o.chain_csv);
    if (!chain_csv) throw std::runtime_error(o.chain_csv + ": cannot write");
    chain_csv << "slot,chain,arrived_packets,delivered_packets,dropped_packets,late_packets,backlog_packets,"
                 "mean_latency_ms,p99_latency_ms,forecast_pps\n";
  }
  const std::size_t progress_every = std::max<std::size_t>(1, arrivals->slots() / 100);
  nfv::CostBreakdown cost_so_far;
  const auto on_slot = [&](const nfv::SlotRecord& record) {
    const std::size_t slot = record.slot;
    const nfv::SlotReport& report = record.report;
    cost_so_far += report.cost;
    nfv::ChainTraffic total;
    for (const nfv::ChainTraffic& chain : report.observation.chains) total += chain;
    if (csv.is_open()) {
      double instances = 0, started = 0;
      for (double n : report.usage.instances_per_site) instances += n;
      for (double n : report.usage.started_per_site) started += n;
      const auto& c = report.cost;
      csv << slot << ',' << total.arrived << ',' << total.delivered << ',' << total.dropped << ',' << total.late << ','
          << total.backlog << ',' << total.mean_latency_ms << ',' << total.p99_latency_ms << ',' << instances << ','
          << started << ',' << c.operating << ',' << c.deployment << ',' << c.wan << ',' << c.sla_penalty << ','
          << c.total() << '\n';
    }
    if (chain_csv.is_open())
      for (std::size_t c = 0; c < report.observation.chains.size(); ++c) {
        const auto& t = report.observation.chains[c];
        chain_csv << slot << ',' << model->topology().chains[c].name << ',' << t.arrived << ',' << t.delivered << ','
                  << t.dropped << ',' << t.late << ',' << t.backlog << ',' << t.mean_latency_ms << ','
                  << t.p99_latency_ms << ',' << (record.forecast.horizon > 0 ? record.forecast.mean(c, 0) : 0.0) << '\n';
      }
    if (o.explain) std::fprintf(stderr, "slot %zu: %s%s%s\n", slot, record.reason.c_str(), record.error.empty() ? "" : " ERROR ",
                                record.error.c_str());
    if (!o.quiet && (slot % progress_every == 0 || slot + 1 == arrivals->slots()))
      std::fprintf(stderr, "\rslot %zu/%zu  cost %.1f  dropped %s ", slot + 1, arrivals->slots(), cost_so_far.total(),
                   percent(total.dropped, total.arrived).c_str());
  };
  const nfv::EpisodeSummary summary =
      nfv::simulate(model, arrivals, std::move(policy), start, o.forecast, o.horizon, on_slot, history, warm_up);
  if (!o.quiet) std::fprintf(stderr, "\n");
  print_summary(summary, model->settings().sla);
  if (csv.is_open()) std::printf("per-slot figures: %s\n", o.csv.c_str());
  if (chain_csv.is_open()) std::printf("per-slot figures per chain: %s\n", o.chain_csv.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "nfv-sim: %s\n", error.what());
    return 1;
  }
}
