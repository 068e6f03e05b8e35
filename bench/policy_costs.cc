// The scaler's policies on the simulator over the test rows of a trace
// (default: Abilene, 132 OD pairs as one-hop chains on 12 sites, trained on
// March, tested on April), all through the one slot loop:
//  1. static (each chain sized for its peak), threshold (HPA) and online
//     (persistence forecast): cost and SLA violations against the lower
//     bound of the offline optimum (its LP relaxation, chain by chain, CLP);
//  2. how much prediction is worth: online fed by persistence, EWMA (alpha
//     per chain fitted on the train rows), Holt-Winters, the RNN (trained on
//     the train rows, or a checkpoint) and the oracle (the true next slots),
//     on the same slots: cost, violations, and the share of the
//     persistence-to-oracle gap each forecast closes;
//  3. with --drl FILE: the DRL policy of an nfv-train drl checkpoint, alone
//     and guarded by online, with the forecast it trained with, next to
//     online fed by that same forecast;
//  4. with --marl DIR: the decentralized placement agents of an nfv-train
//     marl directory (last and best validation), next to their base plan,
//     with the forecast they trained with, and the messages they exchange;
//  5. decision time per slot (p50, p99) of every run.
// Every forecaster first learns the last week of the train rows.
//
//   policy_costs [scenario options] [--online KEY=VALUE ...] [--policies LIST] [--forecasts LIST]
//                [--rnn FILE | --rnn-epochs N] [--drl FILE] [--marl DIR] [--no-bound]
//                [--integral-bound SECONDS]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "drl_policy.h"
#include "marl_policy.h"
#include "episode.h"
#include "offline_optimum.h"
#include "option_values.h"
#include "policy.h"
#include "predictor.h"
#include "rnn_predictor.h"
#include "scenario.h"

namespace {

constexpr const char* kUsage = R"(usage: policy_costs [options]

the system and its traffic (defaults: Abilene, volume scale 200, 64 instances per site):
%s
the runs:
  --online KEY=VALUE     an online policy parameter, repeatable
  --policies LIST        of static, threshold, online (default all three)
  --forecasts LIST       of persistence, ewma, holt_winters, rnn, oracle (default all)
  --rnn FILE             the RNN's checkpoint (default: train one on the train rows)
  --rnn-epochs N         at most N epochs for that (default 12)
  --drl FILE             also the DRL policy of this checkpoint (nfv-train drl),
                         alone and guarded by online, with its own forecast
  --marl DIR             also the MARL placement agents of this directory
                         (nfv-train marl), last and best, and their base plan
  --no-bound             skip the offline optimum's lower bound
  --integral-bound S     also a tighter bound: the offline optimum with whole
                         instances (CBC, chain by chain, at most S seconds a
                         chain; its best bound where the time runs out)
)";

struct Row {
  std::string name;
  nfv::EpisodeSummary summary;
};

std::string percent(double part, double whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f%%", whole > 0 ? 100 * part / whole : 0.0);
  return text;
}

void print_rows(const std::vector<Row>& rows, double bound) {
  std::printf("%-22s %11s %10s %10s %8s %9s %12s %9s %8s %10s %10s\n", "run", "cost", "operating", "deploying", "WAN",
              "SLA", "violations", "(share)", "ratio", "dec p50", "dec p99");
  for (const Row& row : rows) {
    const auto& s = row.summary;
    const double violations = s.traffic.dropped + s.traffic.late;
    std::printf("%-22s %11.2f %10.2f %10.2f %8.2f %9.2f %12.4g %9s %8s %8.3fms %8.3fms\n", row.name.c_str(), s.cost.total(),
                s.cost.operating, s.cost.deployment, s.cost.wan, s.cost.sla_penalty, violations,
                percent(violations, s.traffic.arrived).c_str(),
                bound > 0 ? (std::to_string(s.cost.total() / bound).substr(0, 6)).c_str() : "-", s.decision_p50_ms,
                s.decision_p99_ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  nfv::ScenarioOptions scenario_options;
  scenario_options.sim.scale.volume_scale = 200;
  scenario_options.site_capacity = 64;
  scenario_options.needs_training = true;
  nfv::PolicyParams online_params;
  std::vector<std::string> policies{"static", "threshold", "online"};
  std::vector<std::string> forecasts{"persistence", "ewma", "holt_winters", "rnn", "oracle"};
  std::string rnn_checkpoint, drl_checkpoint, marl_directory;
  std::size_t rnn_epochs = 12;
  bool bound_wanted = true;
  double integral_seconds = 0;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string option = argv[i];
      if (option == "--help" || option == "-h") {
        std::printf(kUsage, nfv::kScenarioUsage);
        return 0;
      }
      if (option == "--no-bound") {
        bound_wanted = false;
        continue;
      }
      if (i + 1 >= argc) throw std::invalid_argument(option + ": expected a value");
      const std::string value = argv[++i];
      if (nfv::scenario_option(option, value, scenario_options)) continue;
      if (option == "--online") nfv::add_named_param(option, value, online_params);
      else if (option == "--policies") policies = nfv::option_list(value);
      else if (option == "--forecasts") forecasts = nfv::option_list(value);
      else if (option == "--rnn") rnn_checkpoint = value;
      else if (option == "--drl") drl_checkpoint = value;
      else if (option == "--marl") marl_directory = value;
      else if (option == "--rnn-epochs") rnn_epochs = nfv::option_count(option, value);
      else if (option == "--integral-bound") integral_seconds = nfv::option_number(option, value);
      else throw std::invalid_argument("unknown option '" + option + "' (--help)");
    }
    const nfv::Scenario scenario = nfv::load_scenario(scenario_options);
    const auto& model = scenario.model;
    const auto& arrivals = scenario.test;
    const nfv::Topology& topology = model->topology();
    const std::size_t week = nfv::default_warm_up_slots(arrivals->mapping.step_seconds);
    const auto history = scenario.train->slots() > 0 ? scenario.train : nullptr;
    std::printf("policy_costs\n%s", scenario.describe().c_str());
    const nfv::Plan start = nfv::place_chains(topology, 1, nfv::Placement::ingress);
    std::vector<Row> rows, forecast_rows;
    const auto run = [&](std::vector<Row>& into, const std::string& label, std::unique_ptr<nfv::Policy> policy,
                         const nfv::Plan& first, const nfv::ForecastSpec& forecast, std::size_t horizon = 1) {
      const auto begun = std::chrono::steady_clock::now();
      into.push_back({label, nfv::simulate(model, arrivals, std::move(policy), first, forecast, horizon, {}, history, week)});
      std::printf("  %-22s ran in %.1f s\n", label.c_str(),
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count());
      std::fflush(stdout);
    };

    // 1. The policies.
    for (const std::string& name : policies) {
      if (name == "static") {
        // Each chain's hops at its ingress, sized for its peak at 90% utilisation.
        nfv::Plan peak = start;
        for (nfv::PoolPlan& pool : peak.pools) {
          double most = 0;
          for (std::size_t t = 0; t < arrivals->slots(); ++t) most = std::max(most, arrivals->slot(t)[pool.chain]);
          const double rate = model->service_rate_pps(model->pool_index().hop_number(pool.chain, pool.hop));
          pool.instances = std::max(1, static_cast<int>(std::ceil(most / (0.9 * rate))));
        }
        for (std::size_t s = 0; s < topology.sites.size(); ++s) {
          double used = 0;
          for (const nfv::PoolPlan& pool : peak.pools) used += pool.site == s ? pool.instances : 0;
          if (topology.sites[s].instance_capacity > 0 && used > topology.sites[s].instance_capacity)
            std::printf("  (static: site %s would need %.0f instances for every peak, it hosts %u: static left out)\n",
                        topology.sites[s].name.c_str(), used, topology.sites[s].instance_capacity);
        }
        if (nfv::plan_problems(peak, topology).empty()) run(rows, "static (peak)", nfv::make_static_policy(peak), peak, {});
      } else if (name == "threshold" || name == "online") {
        run(rows, name, nfv::make_policy(name, name == "online" ? online_params : nfv::PolicyParams{}, {model, arrivals->mapping}), start, {});
      } else {
        throw std::invalid_argument("--policies: static, threshold or online, not '" + name + "'");
      }
    }

    // 2. The online policy fed by each forecast.
    for (const std::string& name : forecasts) {
      nfv::ForecastSpec spec{name, {}};
      std::string label = "online + " + name;
      if (name == "ewma") {
        if (scenario.trace.train.rows() < 2) throw std::invalid_argument("--forecasts ewma: no train rows to fit alpha on");
        std::string alphas;
        for (double a : nfv::fit_ewma(scenario.trace.train)) {
          if (!alphas.empty()) alphas += ',';
          alphas += std::to_string(a);
        }
        spec.params["alpha"] = alphas;
      } else if (name == "rnn") {
        std::string checkpoint = rnn_checkpoint;
        if (checkpoint.empty()) {
          nfv::set_torch_threads(1);
          nfv::RnnTrainSettings settings;
          settings.max_epochs = rnn_epochs;
          nfv::TrainReport report;
          std::printf("  training the RNN on the train rows (%zu, at most %zu epochs) ...\n", scenario.trace.train.rows(),
                      rnn_epochs);
          std::fflush(stdout);
          auto rnn = nfv::RnnPredictor::train(scenario.trace.train, nfv::RnnConfig{}, settings, &report);
          checkpoint = (std::filesystem::temp_directory_path() / "policy_costs_rnn.pt").string();
          rnn->save(checkpoint);
          std::printf("  RNN trained in %.1f s (best epoch %zu), validation MASE at h1 %.3f (EWMA base %.3f)\n",
                      report.seconds, report.best_epoch, report.validation.empty() ? NAN : report.validation[0],
                      report.base_validation.empty() ? NAN : report.base_validation[0]);
        }
        spec.params["checkpoint"] = checkpoint;
      }
      run(forecast_rows, label, nfv::make_policy("online", online_params, {model, arrivals->mapping}), start, spec);
    }

    // 3. The DRL policy, with the forecast and horizon it trained with.
    if (!drl_checkpoint.empty()) {
      nfv::GuardSettings none;
      none.policy = "none";
      auto alone = nfv::load_drl_policy(drl_checkpoint, {model, arrivals->mapping}, none);
      const nfv::DrlServing serving = alone->serving();
      const nfv::ForecastSpec spec = nfv::parse_forecast_spec(serving.forecast);
      run(rows, "drl", std::move(alone), start, spec, serving.horizon);
      nfv::GuardSettings guard;
      guard.params = online_params;
      run(rows, "drl + guard", nfv::load_drl_policy(drl_checkpoint, {model, arrivals->mapping}, guard), start, spec,
          serving.horizon);
      run(rows, "online + " + serving.forecast, nfv::make_policy("online", online_params, {model, arrivals->mapping}),
          start, spec, serving.horizon);
    }

    // 4. The MARL placement agents, with the forecast and horizon they trained with.
    if (!marl_directory.empty()) {
      auto last = nfv::load_marl_policy(marl_directory, {model, arrivals->mapping});
      const std::shared_ptr<const nfv::SiteLayout> layout = last->layout();
      const nfv::ForecastSpec spec = nfv::parse_forecast_spec(layout->settings().forecast);
      const std::size_t horizon = layout->settings().horizon;
      run(rows, "marl", std::move(last), start, spec, horizon);
      run(rows, "marl (best validation)", nfv::load_marl_policy(marl_directory, {model, arrivals->mapping}, true), start,
          spec, horizon);
      run(rows, "marl base plan", std::make_unique<nfv::MarlPolicy>(layout, nullptr), start, spec, horizon);
      std::printf("  marl: each slot every site sends its %zu features to its %s neighbours: %llu bytes per slot\n",
                  nfv::SiteLayout::kSiteFeatures, layout->settings().graph.c_str(),
                  static_cast<unsigned long long>(layout->message_bytes_per_slot()));
    }

    // The offline optimum chain by chain without site capacity: fewer
    // constraints, so a lower bound still, in small programs.
    const auto offline_bound = [&](bool integer) {
      nfv::OfflineSettings offline;
      offline.integer = integer;
      offline.by_chain = true;
      offline.time_limit_s = integral_seconds;
      offline.slot.candidates = nfv::CandidateSites::within_sla;
      const nfv::OfflineResult result = nfv::solve_offline(*model, *arrivals, start, offline);
      if (!result.bounded) throw std::runtime_error(std::string(integer ? "integral bound: CBC " : "lower bound: CLP ") + result.status);
      return result;
    };
    double bound = 0;
    if (bound_wanted) {
      const nfv::OfflineResult result = offline_bound(false);
      bound = result.bound;
      std::printf("lower bound: LP relaxation of the offline optimum, chain by chain without site capacity (CLP, %.1f s): %.2f\n",
                  result.seconds, bound);
    }
    double integral = 0;
    if (integral_seconds > 0) {
      const nfv::OfflineResult result = offline_bound(true);
      integral = result.bound;
      std::printf("integral lower bound: the offline optimum with whole instances, chain by chain without site capacity (CBC, %.1f s, %s): "
                  "%.2f (%.4f x the LP bound)\n",
                  result.seconds, result.optimal ? "every chain proven optimal" : "some chains stopped at the time limit", integral,
                  bound > 0 ? integral / bound : 0.0);
    }
    std::printf("\npolicies, %zu slots\n", arrivals->slots());
    print_rows(rows, bound);
    std::printf("\nthe value of prediction: online fed by each forecast, the same %zu slots\n", arrivals->slots());
    print_rows(forecast_rows, bound);
    const Row* persistence = nullptr;
    const Row* oracle = nullptr;
    for (const Row& r : forecast_rows) {
      if (r.name == "online + persistence") persistence = &r;
      if (r.name == "online + oracle") oracle = &r;
    }
    if (persistence && oracle) {
      const double gap = persistence->summary.cost.total() - oracle->summary.cost.total();
      std::printf("\n%-22s %12s %22s\n", "forecast", "cost", "persistence->oracle gap closed");
      for (const Row& r : forecast_rows)
        std::printf("%-22s %12.2f %21.1f%%\n", r.name.c_str(), r.summary.cost.total(),
                    gap != 0 ? 100 * (persistence->summary.cost.total() - r.summary.cost.total()) / gap : 0.0);
      if (gap <= 0) std::printf("(the oracle was not cheaper than persistence here: the gap is %.2f)\n", gap);
    }
    if (integral > 0) {
      std::printf("\ncost / the integral lower bound\n");
      for (const auto* group : {&rows, &forecast_rows})
        for (const Row& r : *group) std::printf("%-22s %8.4f\n", r.name.c_str(), r.summary.cost.total() / integral);
    }
    double worst_p99 = 0;
    for (const auto* list : {&rows, &forecast_rows})
      for (const Row& r : *list)
        if (r.name.rfind("online", 0) == 0) worst_p99 = std::max(worst_p99, r.summary.decision_p99_ms);
    std::printf("\nonline decisions: p99 %.1f ms at worst over its runs (%zu chains, %zu sites, %zu pools)\n", worst_p99,
                topology.chains.size(), topology.sites.size(), model->pool_index().pools());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "policy_costs: %s\n", e.what());
    return 1;
  }
}
