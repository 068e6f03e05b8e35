// Building one slot's linear program: columns for instances, route flows and
// drops; rows for arrivals, instance capacity, the per-hop minimum and site
// capacity. Routes are enumerated once, when the problem is made.
#include "slot_problem.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace nfv {

SlotProblem::SlotProblem(const SystemModel& model, SlotProblemSettings settings, std::vector<std::size_t> chains)
    : model_(&model), settings_(std::move(settings)), chains_(std::move(chains)) {
  const Topology& topology = model.topology();
  const std::size_t sites = model.sites();
  if (chains_.empty()) {
    chains_.resize(model.chains());
    std::iota(chains_.begin(), chains_.end(), 0);
  }
  if (!(settings_.max_utilisation > 0 && settings_.max_utilisation <= 1))
    throw std::invalid_argument("max_utilisation: expected a share in (0, 1]");
  capacity_.resize(sites);
  for (std::size_t s = 0; s < sites; ++s)
    capacity_[s] = settings_.site_capacity.empty() ? topology.sites[s].instance_capacity : settings_.site_capacity.at(s);
  candidates_.resize(model.chains());
  for (std::size_t c = 0; c < model.chains(); ++c) {
    const Chain& chain = topology.chains[c];
    std::vector<std::size_t> allowed(sites);
    std::iota(allowed.begin(), allowed.end(), 0);
    if (settings_.candidates == CandidateSites::along_path)
      if (const auto path = topology.shortest_path(chain.ingress, chain.egress)) allowed = path->sites;
    std::vector<std::size_t> within;
    for (std::size_t s : allowed)
      if (model.within_sla(c, s)) within.push_back(s);
    if (within.empty()) within.push_back(chain.ingress);
    candidates_[c].assign(chain.vnfs.size(), within);
    if (settings_.candidates == CandidateSites::fixed) {
      if (settings_.fixed_sites.size() != model.chains() || settings_.fixed_sites[c].size() != chain.vnfs.size())
        throw std::invalid_argument("fixed candidate sites: expected a site list per chain and hop");
      for (std::size_t h = 0; h < chain.vnfs.size(); ++h)
        if (!settings_.fixed_sites[c][h].empty()) candidates_[c][h] = settings_.fixed_sites[c][h];
    }
  }
  const double slot_bytes_per_unit =
      kFlowUnitPps * model.slot_seconds() * model.cost_model().mean_packet_bytes();
  flow_cost_.assign(sites * sites, 0.0);
  for (std::size_t from = 0; from < sites; ++from)
    for (std::size_t to = 0; to < sites; ++to)
      for (std::size_t link : model.route_links(from, to))
        flow_cost_[from * sites + to] += model.cost_model().wan(link, slot_bytes_per_unit);
  drop_cost_ = settings_.drop_cost_per_unit > 0 ? settings_.drop_cost_per_unit
                                                : model.cost_model().sla_penalty(kFlowUnitPps * model.slot_seconds());
  routes_.resize(model.chains());
  for (std::size_t c : chains_) enumerate_routes(c);
}

void SlotProblem::enumerate_routes(std::size_t c) {
  const Chain& chain = model_->topology().chains[c];
  const auto& candidates = candidates_[c];  // per hop
  const std::size_t hops = chain.vnfs.size();
  std::vector<ChainRoute> all;
  std::vector<std::size_t> pick(hops, 0);  // candidate index per hop: an odometer over all routes
  for (bool more = hops > 0; more;) {
    ChainRoute route;
    std::size_t at = chain.ingress;
    for (std::size_t h = 0; h < hops; ++h) {
      const std::size_t site = candidates[h][pick[h]];
      route.sites.push_back(site);
      route.cost += flow_cost(at, site);
      route.delay_ms += model_->route_delay_ms(at, site);
      at = site;
    }
    route.cost += flow_cost(at, chain.egress);
    route.delay_ms += model_->route_delay_ms(at, chain.egress);
    if (std::isfinite(route.delay_ms)) all.push_back(std::move(route));
    if (all.size() > kMaxRoutesPerChain)
      throw std::invalid_argument("chain '" + chain.name + "': more than " + std::to_string(kMaxRoutesPerChain) +
                                  " routes through its candidate sites; use candidates along the path");
    more = false;
    for (std::size_t h = 0; h < hops && !more; ++h) {
      if (++pick[h] < candidates[h].size()) more = true;
      else pick[h] = 0;
    }
  }
  for (const ChainRoute& route : all)
    if (route.delay_ms <= chain.sla_latency_ms) routes_[c].push_back(route);
  if (routes_[c].empty()) routes_[c] = std::move(all);
}

double SlotProblem::instance_cost(std::size_t site) const { return model_->cost_model().operating(site, 1.0); }

SlotColumns SlotProblem::add_slot(LinearProgram& lp, std::span<const double> arrival_pps, bool with_site_rows) const {
  const SystemModel& m = *model_;
  const Topology& topology = m.topology();
  const PoolIndex& pools = m.pool_index();
  const std::size_t sites = m.sites();
  SlotColumns out;
  out.instances.assign(pools.pools(), -1);
  out.dropped.assign(m.chains(), -1);
  out.site_rows.assign(sites, -1);
  std::vector<int> load_row(pools.pools(), -1);
  std::vector<std::vector<int>> site_instances(sites);

  for (std::size_t c : chains_) {
    const Chain& chain = topology.chains[c];
    const double arrival = std::max(0.0, arrival_pps[c]) / kFlowUnitPps;
    for (std::size_t h = 0; h < chain.vnfs.size(); ++h) {
      const double capacity_units = settings_.max_utilisation * m.service_rate_pps(pools.hop_number(c, h)) / kFlowUnitPps;
      // (Only needed when the traffic alone would not ask for that many.)
      const bool needs_minimum = settings_.min_instances_per_hop > 0 &&
                                 arrival < settings_.min_instances_per_hop * capacity_units * (1 + 1e-9);
      const int minimum = needs_minimum ? lp.add_row(settings_.min_instances_per_hop, kInfinity) : -1;
      for (std::size_t s : candidates_[c][h]) {
        double upper = capacity_[s] > 0 ? capacity_[s] : kInfinity;
        if (!settings_.max_instances_per_pool_at_site.empty() && settings_.max_instances_per_pool_at_site[s] > 0)
          upper = std::min(upper, settings_.max_instances_per_pool_at_site[s]);
        const std::size_t pool = pools(c, h, s);
        const int x = lp.add_column(0, upper, instance_cost(s));
        out.instances[pool] = x;
        site_instances[s].push_back(x);
        if (minimum >= 0) lp.add(minimum, x, 1.0);
        // route flows through the pool - capacity x <= 0
        load_row[pool] = lp.add_row(-kInfinity, 0);
        lp.add(load_row[pool], x, -capacity_units);
      }
    }
    // What enters at the ingress is carried by a route or dropped.
    const int arrivals = lp.add_row(arrival, arrival);
    const int dropped = lp.add_column(0, arrival, drop_cost_);
    out.dropped[c] = dropped;
    lp.add(arrivals, dropped, 1.0);
    for (const ChainRoute& route : routes_[c]) {
      const int flow = lp.add_column(0, kInfinity, route.cost);
      lp.add(arrivals, flow, 1.0);
      for (std::size_t h = 0; h < route.sites.size(); ++h) lp.add(load_row[pools(c, h, route.sites[h])], flow, 1.0);
    }
  }
  if (with_site_rows)
    for (std::size_t s = 0; s < sites; ++s) {
      if (!(capacity_[s] > 0) || site_instances[s].empty()) continue;
      out.site_rows[s] = lp.add_row(-kInfinity, capacity_[s]);
      for (int x : site_instances[s]) lp.add(out.site_rows[s], x, 1.0);
    }
  return out;
}

}  // namespace nfv
