// The scaler's policies on nfv-sim over the Abilene April block (864 slots,
// 12 sites, the 132 OD pairs as one-hop chains): cost and SLA violations of
// static (sized for each chain's peak), threshold (HPA) and online, each
// against the lower bound of the offline optimum (its LP relaxation, chain
// by chain, with CLP), and the decision time per slot. Targets (issue 5):
// online <= 1.5 x the lower bound and >= 15% cheaper than threshold at no
// more SLA violations; decision p99 <= 100 ms.
//
//   policy_costs [--slots N] [--volume-scale X] [--site-capacity N] [--online KEY=VALUE ...]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "episode.h"
#include "offline_optimum.h"
#include "policy.h"
#include "rate_trace.h"
#include "simulator.h"

namespace {

std::string shared(const std::string& relative) {
  const char* root = std::getenv("NFV_SHARED_DATA");
  return std::string(root ? root : "../shared/data") + "/" + relative;
}

struct Row {
  std::string name;
  nfv::EpisodeSummary summary;
};

}  // namespace

int main(int argc, char** argv) {
  std::size_t slots = 0;  // 0 = the whole block
  double volume_scale = 200;
  std::uint32_t site_capacity = 64;
  nfv::PolicyParams online_params;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--online") {
      const std::string pair = argv[i + 1];
      const auto eq = pair.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "policy_costs: --online KEY=VALUE\n");
        return 1;
      }
      online_params[pair.substr(0, eq)] = pair.substr(eq + 1);
    } else if (option == "--slots") slots = std::stoul(argv[i + 1]);
    else if (option == "--volume-scale") volume_scale = std::stod(argv[i + 1]);
    else if (option == "--site-capacity") site_capacity = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
    else {
      std::fprintf(stderr, "policy_costs: unknown option %s\n", option.c_str());
      return 1;
    }
  }
  const nfv::RateTraceFile file = nfv::load_abilene_traffic(shared("traffic/abilene/abilene_tm_5min_mbps.csv"));
  nfv::RateTrace april = file.blocks.back();
  if (slots > 0 && slots < april.rows()) april = april.slice(0, slots);
  nfv::Topology topology = nfv::load_topology_yaml("topologies/data/abilene.yaml");
  for (nfv::Site& site : topology.sites) site.instance_capacity = site_capacity;
  topology.chains = nfv::chains_for_od_pairs(april, topology, {"counter"}, 60);
  nfv::SimSettings settings;
  settings.scale.trace_step_seconds = april.step_seconds;
  settings.scale.volume_scale = volume_scale;
  auto model = std::make_shared<const nfv::SystemModel>(topology, settings);
  auto arrivals = std::make_shared<const nfv::ArrivalSchedule>(nfv::arrivals_for_chains(april, topology, settings.scale));
  const nfv::Plan start = nfv::place_chains(topology, 1, nfv::Placement::ingress);
  std::printf("policy_costs: %s, %zu chains, %zu slots (%s), %u instances per site\n", topology.name.c_str(),
              topology.chains.size(), arrivals->slots(), april.label.c_str(), site_capacity);
  std::printf("mapping: %s\n", arrivals->description.c_str());

  // Static: each chain's hop at its ingress, sized for its peak at 90% utilisation.
  nfv::Plan peak = start;
  for (nfv::PoolPlan& pool : peak.pools) {
    double most = 0;
    for (std::size_t t = 0; t < arrivals->slots(); ++t) most = std::max(most, arrivals->slot(t)[pool.chain]);
    pool.instances = std::max(1, static_cast<int>(std::ceil(most / (0.9 * model->service_rate_pps(pool.chain)))));
  }
  std::vector<Row> rows;
  const auto run = [&](const std::string& label, std::unique_ptr<nfv::Policy> policy, const nfv::Plan& first) {
    const auto begun = std::chrono::steady_clock::now();
    rows.push_back({label, nfv::simulate(model, arrivals, std::move(policy), first, nfv::ForecastSpec{}, 1)});
    std::printf("  %-10s ran in %.1f s\n", label.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count());
    std::fflush(stdout);
  };
  run("static", nfv::make_static_policy(peak), peak);
  run("threshold", nfv::make_policy("threshold", {}, model), start);
  run("online", nfv::make_policy("online", online_params, model), start);
  std::printf("  online parameters:");
  for (const auto& [key, value] : online_params) std::printf(" %s=%s", key.c_str(), value.c_str());
  std::printf("%s\n", online_params.empty() ? " defaults" : "");

  nfv::OfflineSettings offline;
  offline.integer = false;
  offline.by_chain = true;
  offline.slot.candidates = nfv::CandidateSites::within_sla;
  const nfv::OfflineResult bound = nfv::solve_offline(*model, *arrivals, start, offline);
  if (!bound.solved) {
    std::printf("lower bound: CLP %s\n", bound.status.c_str());
    return 1;
  }
  std::printf("lower bound: LP relaxation of the offline optimum, chain by chain without site capacity (CLP, %.1f s): %.2f\n\n",
              bound.seconds, bound.cost);
  std::printf("%-10s %11s %10s %10s %8s %9s %12s %9s %8s %10s %10s\n", "policy", "cost", "operating", "deploying",
              "WAN", "SLA", "violations", "(share)", "ratio", "dec p50", "dec p99");
  for (const Row& row : rows) {
    const auto& s = row.summary;
    const double violations = s.traffic.dropped + s.traffic.late;
    std::printf("%-10s %11.2f %10.2f %10.2f %8.2f %9.2f %12.4g %8.4f%% %8.3f %8.3fms %8.3fms\n", row.name.c_str(),
                s.cost.total(), s.cost.operating, s.cost.deployment, s.cost.wan, s.cost.sla_penalty, violations,
                100 * violations / s.traffic.arrived, s.cost.total() / bound.cost, s.decision_p50_ms, s.decision_p99_ms);
  }
  const auto& threshold = rows[1].summary;
  const auto& online = rows[2].summary;
  std::printf("\nonline / lower bound = %.3f (target <= 1.5); online vs threshold: %.1f%% cheaper (target >= 15%%), "
              "violations %.4g vs %.4g (target: no more); online decision p99 %.1f ms (target <= 100)\n",
              online.cost.total() / bound.cost, 100 * (1 - online.cost.total() / threshold.cost.total()),
              online.traffic.dropped + online.traffic.late, threshold.traffic.dropped + threshold.traffic.late,
              online.decision_p99_ms);
  return 0;
}
