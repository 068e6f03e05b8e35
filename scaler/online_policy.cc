// The online policy's slot: regularized relaxation (chain by chain or Ipopt), online rounding
// with hysteresis, re-solving with tighter sites when rounding overflows one.
#include "online_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "online_rounding.h"
#include "regularized_solver.h"

namespace nfv {
namespace {

// Takes instances away from sites over capacity, those rounded up the most
// first, but never a hop's last instance (a plan must serve every hop);
// returns how many went.
double fit_sites(std::vector<std::int32_t>& instances, const std::vector<double>& fractional,
                 const std::vector<double>& capacity, std::size_t sites) {
  std::vector<std::int64_t> per_hop(instances.size() / sites, 0);
  for (std::size_t pool = 0; pool < instances.size(); ++pool) per_hop[pool / sites] += instances[pool];
  double removed = 0;
  for (std::size_t s = 0; s < sites; ++s) {
    if (!(capacity[s] > 0)) continue;
    double used = 0;
    for (std::size_t pool = s; pool < instances.size(); pool += sites) used += instances[pool];
    while (used > capacity[s]) {
      std::size_t best = instances.size();
      for (std::size_t pool = s; pool < instances.size(); pool += sites)
        if (instances[pool] > 0 && per_hop[pool / sites] > 1 &&
            (best == instances.size() || instances[pool] - fractional[pool] > instances[best] - fractional[best]))
          best = pool;
      if (best == instances.size()) break;  // only hops' last instances left: the site limits decide
      --instances[best];
      --per_hop[best / sites];
      --used;
      ++removed;
    }
  }
  return removed;
}

}  // namespace

OnlinePolicy::OnlinePolicy(std::shared_ptr<const SystemModel> model, OnlineSettings settings)
    : model_(std::move(model)), settings_(std::move(settings)) {
  one_hop_ = model_->chains() > 0;
  for (const Chain& chain : model_->topology().chains) one_hop_ = one_hop_ && chain.vnfs.size() == 1;
  if (settings_.solver == OnlineSolver::ipopt) one_hop_ = false;
  if (!(settings_.epsilon > 0)) throw std::invalid_argument("policy online: parameter 'epsilon': expected > 0");
  if (settings_.eta < 0) throw std::invalid_argument("policy online: parameter 'eta': expected > 0 (or 0 for ln(1 + K/eps))");
  if (!(settings_.keep >= 1)) throw std::invalid_argument("policy online: parameter 'keep': expected >= 1");
  // The bound's choice (docs/scaler.md): eta = ln(1 + K / eps), K the most
  // instances a pool can reach (the largest site capacity; 64 when unlimited).
  double most = 0;
  for (const Site& site : model_->topology().sites) most = std::max<double>(most, site.instance_capacity);
  if (!(most > 0)) most = 64;
  eta_ = settings_.eta > 0 ? settings_.eta : std::log(1 + most / settings_.epsilon);
  if (!(settings_.serve_weight > 0)) throw std::invalid_argument("policy online: parameter 'serve_weight': expected > 0");
  // The dearest instance-slot (running plus starting) of any site, times the
  // instances a flow unit needs at the slowest hop.
  double instance = 0, slowest = INFINITY;
  for (const Site& site : model_->topology().sites) instance = std::max(instance, site.operating_price + site.deployment_price);
  for (std::size_t hop = 0; hop < model_->pool_index().hops(); ++hop) slowest = std::min(slowest, model_->service_rate_pps(hop));
  drop_cost_per_unit_ = settings_.serve_weight * std::max(instance, 1e-9) * kFlowUnitPps /
                        (settings_.max_utilisation * (std::isfinite(slowest) ? slowest : kFlowUnitPps));
  reset();
}

OneHopProblem OnlinePolicy::one_hop_problem(const SlotProblem& problem, const std::vector<double>& arrival_pps) const {
  const SystemModel& m = *model_;
  const Topology& topology = m.topology();
  OneHopProblem out;
  out.drop_cost = problem.drop_cost();
  out.epsilon = settings_.epsilon;
  for (std::size_t s = 0; s < m.sites(); ++s) {
    out.instance_cost.push_back(problem.instance_cost(s));
    out.weight.push_back(topology.sites[s].deployment_price / eta_);
    out.site_capacity.push_back(problem.site_capacity(s));
  }
  for (std::size_t c = 0; c < m.chains(); ++c) {
    OneHopProblem::Chain chain;
    chain.arrival = std::max(0.0, arrival_pps[c]) / kFlowUnitPps;
    chain.capacity = settings_.max_utilisation * m.service_rate_pps(m.pool_index().hop_number(c, 0)) / kFlowUnitPps;
    chain.min_instances = settings_.min_instances_per_hop;
    for (std::size_t s : problem.candidate_sites(c, 0)) {
      double cost = std::numeric_limits<double>::infinity();  // no route within the SLA through it: it never serves
      for (const ChainRoute& route : problem.routes(c))
        if (route.sites[0] == s) cost = std::min(cost, route.cost);
      chain.pools.push_back({s, cost, fractional_[m.pool_index()(c, 0, s)]});
    }
    out.chains.push_back(std::move(chain));
  }
  return out;
}

void OnlinePolicy::reset() {
  started_ = false;
  site_prices_.clear();
  fast_skip_ = fast_backoff_ = 0;
  fractional_.assign(model_->pool_index().pools(), 0.0);
  rounded_.assign(model_->pool_index().pools(), 0);
  warm_start_ = WarmStart{};
  fixed_sites_.clear();
  recent_.clear();
  recent_at_ = 0;
  explanation_.clear();
}

Plan OnlinePolicy::decide(const Observation& observation, const Forecast& forecast) {
  const SystemModel& m = *model_;
  const PoolIndex& pools = m.pool_index();
  const Topology& topology = m.topology();
  if (!started_) {
    // The plan in force is where the system starts: its instances are already paid for.
    for (const PoolPlan& p : observation.plan.pools) {
      fractional_[pools(p.chain, p.hop, p.site)] = p.instances;
      rounded_[pools(p.chain, p.hop, p.site)] = p.instances;
    }
    started_ = true;
  }
  if (settings_.candidates == CandidateSites::fixed && fixed_sites_.empty()) {
    {
      // Placement stays where the plan in force has it: only sizes change.
      fixed_sites_.assign(m.chains(), {});
      for (std::size_t c = 0; c < m.chains(); ++c) fixed_sites_[c].resize(topology.chains[c].vnfs.size());
      for (const PoolPlan& p : observation.plan.pools) fixed_sites_[p.chain][p.hop].push_back(p.site);
    }
  }
  // Plan for the forecast, but never below the highest rate of the last
  // `window` measured slots: the same stabilization HPA applies to
  // scale-down, so slot-to-slot noise of a chain does not drop its packets.
  const std::size_t window = settings_.window_slots;
  if (window > 0 && recent_.size() != m.chains() * window) {
    recent_.assign(m.chains() * window, 0.0);
    recent_at_ = 0;
  }
  std::vector<double> arrival(m.chains(), 0.0);
  for (std::size_t c = 0; c < m.chains(); ++c) {
    const double measured = c < observation.arrival_pps.size() ? observation.arrival_pps[c] : 0.0;
    arrival[c] = forecast.chains == m.chains() && forecast.horizon > 0 ? forecast.mean(c, 0) : measured;
    if (window == 0) continue;
    recent_[c * window + recent_at_] = measured;
    for (std::size_t k = 0; k < window; ++k) arrival[c] = std::max(arrival[c], recent_[c * window + k]);
  }
  if (window > 0) recent_at_ = (recent_at_ + 1) % window;
  SlotProblemSettings problem_settings;
  problem_settings.candidates = settings_.candidates;
  problem_settings.fixed_sites = fixed_sites_;
  problem_settings.max_utilisation = settings_.max_utilisation;
  problem_settings.min_instances_per_hop = settings_.min_instances_per_hop;
  problem_settings.site_capacity = settings_.site_capacity;
  problem_settings.drop_cost_per_unit = drop_cost_per_unit_;
  if (problem_settings.site_capacity.empty())
    for (const Site& site : topology.sites) problem_settings.site_capacity.push_back(site.instance_capacity);

  const std::vector<double> capacity_of_site = problem_settings.site_capacity;  // 0 = unlimited
  std::vector<double> fractional(pools.pools(), 0.0);
  std::vector<char> candidate(pools.pools(), 0);
  RoundingResult rounding;
  RegularizedSolution solution;
  int resolves = 0;
  double shortfall = 0;
  // Site capacity couples every chain and makes the factorizations dense:
  // solve without those rows first, and add them only when a site is over.
  bool site_rows = false;
  std::string solver;
  double objective = 0;
  std::string fallback;  // why the slot went to Ipopt (then so do its tighter re-solves)
  if (one_hop_ && fast_skip_ > 0) {
    fallback = "chain by chain sits this slot out (its site prices did not settle lately), so ";
    --fast_skip_;
  }
  for (;; ++resolves) {
    solver = fallback;
    const SlotProblem problem(m, problem_settings);
    std::optional<OneHopSolution> fast;
    if (one_hop_ && fallback.empty()) {
      // Every chain has one hop: chain by chain, site capacity priced.
      fast = solve_one_hop(one_hop_problem(problem, arrival), site_prices_);
      site_prices_ = fast->site_price;
      if (!fast->settled || !fast->within_capacity) {
        // The site prices did not settle: this solve goes to Ipopt, whole.
        solver = fallback = "chain by chain did not settle in " + std::to_string(fast->sweeps) + " sweeps of site prices, so ";
        fast_skip_ = fast_backoff_ = std::min(16, std::max(1, 2 * fast_backoff_));
        site_prices_.clear();
        site_rows = true;
        fast.reset();
      }
    }
    if (fast) {
      std::fill(candidate.begin(), candidate.end(), 0);
      std::fill(fractional.begin(), fractional.end(), 0.0);
      for (std::size_t c = 0; c < m.chains(); ++c) {
        const auto& sites_of = problem.candidate_sites(c, 0);
        for (std::size_t k = 0; k < sites_of.size(); ++k) {
          candidate[pools(c, 0, sites_of[k])] = 1;
          fractional[pools(c, 0, sites_of[k])] = fast->instances[c][k];
        }
      }
      if (resolves == 0) fast_backoff_ = 0;
      solver = "solved chain by chain (one hop each; " + std::to_string(fast->sweeps) + " sweeps of site prices, " + std::to_string(fast->chain_solves) + " chain solves)";
      objective = fast->objective;
    } else {
      LinearProgram lp;
      const SlotColumns columns = problem.add_slot(lp, arrival, site_rows);
      std::vector<EntropyTerm> terms;
      for (std::size_t pool = 0; pool < columns.instances.size(); ++pool)
        if (columns.instances[pool] >= 0)
          terms.push_back({columns.instances[pool], topology.sites[pool % m.sites()].deployment_price / eta_, fractional_[pool]});
      solution = solve_regularized(lp, terms, settings_.epsilon, &warm_start_);
      if (!solution.solved) throw std::runtime_error("policy online: Ipopt: " + solution.status);
      solver += "Ipopt " + solution.status + " in " + std::to_string(solution.iterations) + " iterations";
      objective = solution.objective;
      for (std::size_t pool = 0; pool < columns.instances.size(); ++pool) {
        candidate[pool] = columns.instances[pool] >= 0;
        fractional[pool] = candidate[pool] ? solution.x[columns.instances[pool]] : 0.0;
      }
    }
    std::vector<double> per_site(m.sites(), 0.0);
    for (std::size_t pool = 0; pool < fractional.size(); ++pool) per_site[pool % m.sites()] += fractional[pool];
    if (!site_rows && !fast) {
      bool over = false;
      for (std::size_t s = 0; s < m.sites(); ++s)
        over = over || (problem_settings.site_capacity[s] > 0 && per_site[s] > problem_settings.site_capacity[s] + 1e-6);
      if (over) {
        site_rows = true;
        --resolves;  // the same problem, now with its site rows: not a re-solve for rounding
        continue;
      }
    }
    if (resolves == 0) slot_objective_ = objective;
    rounding = round_online(topology, pools, fractional, rounded_, candidate, capacity_of_site, settings_.keep,
                            settings_.min_instances_per_hop);
    if (rounding.fits()) break;
    if (resolves >= settings_.max_capacity_resolves) {
      // The sites are too full to round up everywhere: fit them, and say by how much the plan is short.
      shortfall = fit_sites(rounding.instances, fractional, capacity_of_site, m.sites());
      break;
    }
    // Rounding up overflowed a site: solve again with that site tighter.
    site_rows = true;
    for (std::size_t s = 0; s < m.sites(); ++s)
      if (rounding.overflow[s] > 0)
        problem_settings.site_capacity[s] = std::max(0.0, problem_settings.site_capacity[s] - rounding.overflow[s]);
  }
  fractional_ = fractional;
  rounded_ = rounding.instances;

  // Each hop's traffic is shared in proportion to its instances: every
  // instance then carries the hop's rate / its whole instances, within the
  // planned utilisation because rounding never lowers the hop's capacity.
  Plan plan;
  double total_fractional = 0;
  std::int64_t total_instances = 0;
  for (std::size_t c = 0; c < m.chains(); ++c)
    for (std::size_t h = 0; h < topology.chains[c].vnfs.size(); ++h) {
      std::int64_t hop_instances = 0;
      for (std::size_t s = 0; s < m.sites(); ++s) {
        hop_instances += rounded_[pools(c, h, s)];
        total_fractional += fractional_[pools(c, h, s)];
      }
      total_instances += hop_instances;
      for (std::size_t s = 0; s < m.sites(); ++s) {
        const std::int32_t n = rounded_[pools(c, h, s)];
        if (n == 0) continue;
        plan.pools.push_back(PoolPlan{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(h),
                                      static_cast<std::uint32_t>(s), n, static_cast<double>(n) / hop_instances});
      }
    }
  char text[400];
  std::snprintf(text, sizeof text, "%s (%zu re-solves for site capacity); fractional %.2f -> %lld instances%s",
                solver.c_str(), static_cast<std::size_t>(resolves), total_fractional,
                static_cast<long long>(total_instances),
                shortfall > 0 ? (", sites full: " + std::to_string(static_cast<long long>(shortfall)) +
                                 " instances short of rounding up")
                                    .c_str()
                              : "");
  explanation_ = text;
  return plan;
}

std::string OnlinePolicy::state() const {
  if (!started_) return {};
  std::ostringstream out;
  out.precision(17);
  out << "online " << fractional_.size();
  for (std::size_t pool = 0; pool < fractional_.size(); ++pool) out << ' ' << fractional_[pool] << ' ' << rounded_[pool];
  out << ' ' << recent_.size() << ' ' << recent_at_;
  for (double rate : recent_) out << ' ' << rate;
  return out.str();
}

void OnlinePolicy::restore(const std::string& state) {
  reset();
  if (state.empty()) return;
  std::istringstream in(state);
  std::string tag;
  std::size_t pools = 0;
  if (!(in >> tag >> pools) || tag != "online" || pools != fractional_.size())
    throw std::invalid_argument("policy online: state of another policy or topology");
  for (std::size_t pool = 0; pool < pools; ++pool)
    if (!(in >> fractional_[pool] >> rounded_[pool])) throw std::invalid_argument("policy online: truncated state");
  std::size_t recent = 0;
  if (!(in >> recent >> recent_at_)) throw std::invalid_argument("policy online: truncated state");
  recent_.assign(recent, 0.0);
  for (double& rate : recent_)
    if (!(in >> rate)) throw std::invalid_argument("policy online: truncated state");
  started_ = true;
}

namespace {

const PolicyRegistration kOnline{
    "online",
    "regularization plus online rounding (chain by chain or Ipopt): epsilon (0.1), eta (0 = ln(1 + K/epsilon)), utilisation (0.9), "
    "min_per_hop (1), keep (1), candidates=path|sla|plan (path), serve_weight (10), window (5 slots), "
    "solver=auto|ipopt (auto: chain by chain when every chain has one hop)",
    with_placement({"epsilon", "eta", "utilisation", "min_per_hop", "keep", "candidates", "serve_weight", "window", "solver"}),
    [](const ParamReader& params, const PolicyContext& context) -> std::unique_ptr<Policy> {
      const OnlineSettings defaults;
      OnlineSettings settings;
      settings.epsilon = params.number("epsilon", defaults.epsilon);
      settings.eta = params.number("eta", defaults.eta);
      settings.max_utilisation = params.number("utilisation", defaults.max_utilisation);
      settings.min_instances_per_hop = params.number("min_per_hop", defaults.min_instances_per_hop);
      settings.keep = params.number("keep", defaults.keep);
      settings.serve_weight = params.number("serve_weight", defaults.serve_weight);
      settings.window_slots = params.count("window", static_cast<std::uint32_t>(defaults.window_slots));
      const std::string solver = params.text("solver", "auto");
      if (solver == "ipopt") settings.solver = OnlineSolver::ipopt;
      else if (solver != "auto")
        throw std::invalid_argument(params.what() + ": parameter 'solver': expected auto or ipopt, got '" + solver + "'");
      const std::string candidates = params.text("candidates", "path");
      if (candidates == "path") settings.candidates = CandidateSites::along_path;
      else if (candidates == "sla") settings.candidates = CandidateSites::within_sla;
      else if (candidates == "plan") settings.candidates = CandidateSites::fixed;
      else
        throw std::invalid_argument(params.what() + ": parameter 'candidates': expected path, sla or plan, got '" +
                                    candidates + "'");
      return std::make_unique<OnlinePolicy>(context.model, settings);
    }};

}  // namespace

}  // namespace nfv
