// One slot of the fluid model (docs/simulator.md, "Model"). Allocation-free
// after the first slot: every buffer is sized at construction or keeps its
// capacity.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "simulator.h"

namespace nfv {
namespace {

// M/M/1 waiting grows without bound at full load; a pool that keeps a
// backlog is timed by its fluid queue instead, and one without is capped at
// this load.
constexpr double kMaxQueueingLoad = 0.99;
// The percentile reported per chain and slot: p99.
constexpr double kTail = 0.01;

}  // namespace

FluidSimulator::FluidSimulator(std::shared_ptr<const SystemModel> model)
    : model_(std::move(model)), validator_(model_->topology()) {
  const SystemModel& m = *model_;
  const std::size_t pools = m.pool_index().pools();
  backlog_.assign(pools, 0.0);
  running_.assign(pools, 0);
  instances_.assign(pools, 0);
  split_.assign(pools, 0.0);
  from_site_.assign(m.sites(), 0.0);
  to_site_.assign(m.sites(), 0.0);
  std::size_t max_hops = 0;
  for (const Chain& chain : m.topology().chains) max_hops = std::max(max_hops, chain.vnfs.size());
  hop_sites_.resize(max_hops * m.sites());
  hop_site_count_.assign(max_hops, 0);
  Observation& obs = outcome_.observation;
  obs.arrival_pps.assign(m.chains(), 0.0);
  obs.chains.assign(m.chains(), ChainTraffic{});
  obs.pools.reserve(pools);
  obs.links.assign(m.topology().links.size(), LinkLoad{});
  outcome_.usage.instances_per_site.assign(m.sites(), 0.0);
  outcome_.usage.started_per_site.assign(m.sites(), 0.0);
  outcome_.usage.bytes_per_link.assign(m.topology().links.size(), 0.0);
  outcome_.chain_cost.assign(m.chains(), CostBreakdown{});
  outcome_.site_cost.assign(m.sites(), CostBreakdown{});
  site_dropped_.assign(m.sites(), 0.0);
  site_late_.assign(m.sites(), 0.0);
  chain_served_.assign(m.sites(), 0.0);
}

void FluidSimulator::reset(const Plan& running, std::size_t first_slot, std::span<const double> rates_before) {
  validator_.require_valid(running, "initial plan");
  slot_ = first_slot;
  std::fill(backlog_.begin(), backlog_.end(), 0.0);
  std::fill(running_.begin(), running_.end(), 0);
  for (const PoolPlan& pool : running.pools) running_[model_->pool_index()(pool.chain, pool.hop, pool.site)] = pool.instances;
  Observation& obs = outcome_.observation;
  obs.slot = first_slot;
  obs.measured = false;
  std::fill(obs.arrival_pps.begin(), obs.arrival_pps.end(), 0.0);
  std::fill(obs.chains.begin(), obs.chains.end(), ChainTraffic{});
  obs.pools.clear();
  std::fill(obs.links.begin(), obs.links.end(), LinkLoad{});
  obs.plan = running;
  if (!rates_before.empty()) {
    if (rates_before.size() != model_->chains())
      throw std::invalid_argument("reset: " + std::to_string(rates_before.size()) + " rates for " +
                                  std::to_string(model_->chains()) + " chains");
    std::copy(rates_before.begin(), rates_before.end(), obs.arrival_pps.begin());
    obs.measured = true;
  }
  outcome_.total = ChainTraffic{};
  outcome_.cost = CostBreakdown{};
}

const SlotOutcome& FluidSimulator::step(const Plan& plan, std::span<const double> arrival_pps) {
  const SystemModel& m = *model_;
  validator_.require_valid(plan, "slot " + std::to_string(slot_));
  if (arrival_pps.size() != m.chains())
    throw std::invalid_argument("slot " + std::to_string(slot_) + ": " + std::to_string(arrival_pps.size()) +
                                " arrival rates for " + std::to_string(m.chains()) + " chains");
  SlotUsage& usage = outcome_.usage;
  std::fill(usage.instances_per_site.begin(), usage.instances_per_site.end(), 0.0);
  std::fill(usage.started_per_site.begin(), usage.started_per_site.end(), 0.0);
  std::fill(usage.bytes_per_link.begin(), usage.bytes_per_link.end(), 0.0);  // packets until the end of the slot
  std::fill(instances_.begin(), instances_.end(), 0);
  std::fill(split_.begin(), split_.end(), 0.0);
  std::fill(outcome_.chain_cost.begin(), outcome_.chain_cost.end(), CostBreakdown{});
  std::fill(outcome_.site_cost.begin(), outcome_.site_cost.end(), CostBreakdown{});
  std::fill(site_dropped_.begin(), site_dropped_.end(), 0.0);
  std::fill(site_late_.begin(), site_late_.end(), 0.0);
  const CostModel& prices = m.cost_model();
  for (const PoolPlan& pool : plan.pools) {
    const std::size_t at = m.pool_index()(pool.chain, pool.hop, pool.site);
    instances_[at] = pool.instances;
    split_[at] = pool.split;
    usage.instances_per_site[pool.site] += pool.instances;
    // Deployment is paid for instances beyond what ran in the previous slot.
    const int started = std::max(0, pool.instances - running_[at]);
    usage.started_per_site[pool.site] += started;
    CostBreakdown& chain_cost = outcome_.chain_cost[pool.chain];
    chain_cost.operating += prices.operating(pool.site, pool.instances);
    chain_cost.deployment += prices.deployment(pool.site, started);
    CostBreakdown& site_cost = outcome_.site_cost[pool.site];
    site_cost.operating += prices.operating(pool.site, pool.instances);
    site_cost.deployment += prices.deployment(pool.site, started);
  }

  Observation& obs = outcome_.observation;
  obs.pools.clear();
  outcome_.total = ChainTraffic{};
  for (std::size_t c = 0; c < m.chains(); ++c) {
    obs.arrival_pps[c] = arrival_pps[c];
    run_chain(c, arrival_pps[c]);
    outcome_.total += obs.chains[c];
    outcome_.chain_cost[c].sla_penalty = prices.sla_penalty(obs.chains[c].dropped + obs.chains[c].late);
  }
  for (std::size_t s = 0; s < m.sites(); ++s)
    outcome_.site_cost[s].sla_penalty = prices.sla_penalty(site_dropped_[s] + site_late_[s]);
  usage.dropped_packets = outcome_.total.dropped;
  usage.late_packets = outcome_.total.late;

  const double bytes_per_packet = m.settings().scale.mean_packet_bytes;
  for (std::size_t l = 0; l < usage.bytes_per_link.size(); ++l) {
    usage.bytes_per_link[l] *= bytes_per_packet;
    const double mbps = usage.bytes_per_link[l] * 8 / 1e6 / m.slot_seconds();
    const double bandwidth = m.topology().links[l].bandwidth_mbps;
    obs.links[l] = LinkLoad{mbps, bandwidth > 0 ? mbps / bandwidth : 0.0};
  }
  outcome_.cost = m.cost_model().slot_cost(usage);
  obs.plan.pools.assign(plan.pools.begin(), plan.pools.end());
  running_.swap(instances_);
  obs.slot = ++slot_;
  obs.measured = true;
  return outcome_;
}

void FluidSimulator::run_chain(std::size_t c, double arrival_pps) {
  const SystemModel& m = *model_;
  const Chain& chain = m.topology().chains[c];
  const std::size_t sites = m.sites();
  const double slot_s = m.slot_seconds();
  const double queue_per_instance = m.settings().queue_packets_per_instance;

  ChainTraffic traffic;
  traffic.arrived = arrival_pps * slot_s;
  std::fill(from_site_.begin(), from_site_.end(), 0.0);
  from_site_[chain.ingress] = traffic.arrived;
  double hop_input = traffic.arrived;
  double backlog_before = 0;
  std::fill(chain_served_.begin(), chain_served_.end(), 0.0);

  for (std::size_t h = 0; h < chain.vnfs.size(); ++h) {
    const std::size_t first_pool = m.pool_index()(c, h, 0);
    const double service_pps = m.service_rate_pps(m.pool_index().hop_number(c, h));
    // The last site with a share takes what the others left, so the shares
    // add up to the hop's input exactly and conservation is not eroded.
    std::size_t last_share = sites;
    for (std::size_t s = 0; s < sites; ++s)
      if (split_[first_pool + s] > 0) last_share = s;
    double handed_out = 0;
    double hop_output = 0;
    std::size_t served_sites = 0;
    for (std::size_t s = 0; s < sites; ++s) {
      const std::size_t pool = first_pool + s;
      const std::int32_t instances = instances_[pool];
      const double backlog = backlog_[pool];
      double arriving = 0;
      if (split_[pool] > 0) arriving = s == last_share ? hop_input - handed_out : hop_input * split_[pool];
      handed_out += arriving;
      to_site_[s] = 0;
      if (arriving == 0 && backlog == 0 && instances == 0) continue;

      // WAN: the hop's input reaches s from wherever the previous hop left it.
      if (arriving > 0 && hop_input > 0)
        for (std::size_t from = 0; from < sites; ++from)
          if (from_site_[from] > 0 && from != s) carry(c, from, s, from_site_[from] * (arriving / hop_input));

      const double capacity_pps = instances * service_pps;
      const double offered = backlog + arriving;
      const double served = std::min(offered, capacity_pps * slot_s);
      const double waiting = offered - served;
      const double queued = std::min(waiting, instances * queue_per_instance);
      traffic.dropped += waiting - queued;
      site_dropped_[s] += waiting - queued;
      chain_served_[s] += served;
      backlog_before += backlog;
      traffic.backlog += queued;
      backlog_[pool] = queued;
      to_site_[s] = served;
      hop_output += served;

      PoolWait wait;
      PoolLoad load{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(s),
                    instances, offered / slot_s, served / slot_s, queued, 0.0, 0.0};
      if (capacity_pps > 0) {
        load.utilisation = offered / (capacity_pps * slot_s);
        wait = pool_wait(backlog, arriving, served, queued, capacity_pps, service_pps, instances * queue_per_instance);
        load.queueing_ms = wait.mean_ms();
      } else {
        load.utilisation = offered > 0 ? std::numeric_limits<double>::infinity() : 0.0;
      }
      outcome_.observation.pools.push_back(load);
      if (served > 0) hop_sites_[h * sites + served_sites++] = HopSite{s, served, wait};
    }
    for (std::size_t i = 0; i < served_sites; ++i) hop_sites_[h * sites + i].weight /= hop_output;
    hop_site_count_[h] = served_sites;
    from_site_.swap(to_site_);
    hop_input = hop_output;
  }
  for (std::size_t from = 0; from < sites; ++from)
    if (from_site_[from] > 0 && from != chain.egress) carry(c, from, chain.egress, from_site_[from]);

  traffic.delivered = hop_input;
  traffic.backlog_change = traffic.backlog - backlog_before;
  if (traffic.delivered > 0) {
    collect_routes(c);
    double mean = 0, lo = INFINITY, hi = 0;
    for (const RouteLatency& r : routes_) {
      const PoolWait& w = r.wait;
      mean += r.share * (r.fixed_ms + w.mean_ms());
      lo = std::min(lo, r.fixed_ms + std::min(w.start_ms, w.end_ms));
      hi = std::max(hi, r.fixed_ms + std::max(w.start_ms, w.end_ms) + w.sojourn_ms * std::log(1 / kTail));
    }
    traffic.mean_latency_ms = mean;
    traffic.late = traffic.delivered * std::min(1.0, share_over(chain.sla_latency_ms));
    const PoolWait& only = routes_.front().wait;
    if (routes_.size() == 1 && only.start_share == 0 && only.ramp_share == 0) {
      // One route, one wait (the usual case): the exponential's quantile.
      traffic.p99_latency_ms = routes_.front().fixed_ms + only.end_ms + only.sojourn_ms * std::log(1 / kTail);
    } else if (std::isfinite(hi)) {
      // The latency that kTail of the delivered traffic exceeds, by bisection to a microsecond.
      while (hi - lo > 1e-3) {
        const double mid = (lo + hi) / 2;
        (share_over(mid) > kTail ? lo : hi) = mid;
      }
      traffic.p99_latency_ms = hi;
    } else {
      traffic.p99_latency_ms = INFINITY;
    }
    double served_anywhere = 0;
    for (double served : chain_served_) served_anywhere += served;
    if (traffic.late > 0 && served_anywhere > 0)
      for (std::size_t s = 0; s < sites; ++s) site_late_[s] += traffic.late * chain_served_[s] / served_anywhere;
  }
  outcome_.observation.chains[c] = traffic;
}

void FluidSimulator::collect_routes(std::size_t c) {
  const SystemModel& m = *model_;
  const Chain& chain = m.topology().chains[c];
  const std::size_t hops = chain.vnfs.size();
  const std::size_t sites = m.sites();
  routes_.clear();
  // Depth-first over the sites each hop served at: a packet served at hop h
  // came through hop h-1's sites in proportion to what they served, so a
  // route's share is the product of its sites' weights. A sum of uniform
  // waits is taken as uniform over the summed range, a sum of exponential
  // sojourns as exponential with the summed mean (exact for one hop).
  auto walk = [&](auto&& self, std::size_t h, std::size_t at, RouteLatency route) -> void {
    if (h == hops) {
      route.fixed_ms += m.route_delay_ms(at, chain.egress);
      routes_.push_back(route);
      return;
    }
    for (std::size_t i = 0; i < hop_site_count_[h]; ++i) {
      const HopSite& next = hop_sites_[h * sites + i];
      RouteLatency longer = route;
      longer.share *= next.weight;
      longer.fixed_ms += m.route_delay_ms(at, next.site);
      PoolWait& w = longer.wait;
      const double longest = std::max(next.wait.start_ms, next.wait.end_ms);
      if (longest > longer.longest_wait_ms) {
        longer.longest_wait_ms = longest;
        w.start_share = next.wait.start_share;
        w.ramp_share = next.wait.ramp_share;
      }
      w.start_ms += next.wait.start_ms;
      w.end_ms += next.wait.end_ms;
      w.sojourn_ms += next.wait.sojourn_ms;
      self(self, h + 1, next.site, longer);
    }
  };
  walk(walk, 0, chain.ingress, RouteLatency{1.0, 0, PoolWait{}, 0});
}

namespace {

// P(W + E > y): W uniform on [a, b] (a point when b - a is tiny), E
// exponential with mean m (none when m = 0).
double tail(double y, double a, double b, double m) {
  if (y <= a) return 1;
  if (m <= 0) return b - a > 1e-12 ? std::clamp((b - y) / (b - a), 0.0, 1.0) : 0.0;
  if (y - b > 40 * m) return 0;  // below e^-40: nothing a packet count shows
  if (b - a < 1e-12) return std::exp(-(y - a) / m);
  if (y < b) return ((b - y) + m * (1 - std::exp(-(y - a) / m))) / (b - a);
  return m * (std::exp(-(y - b) / m) - std::exp(-(y - a) / m)) / (b - a);
}

}  // namespace

double FluidSimulator::share_over(double ms) const {
  double share = 0;
  for (const RouteLatency& r : routes_) {
    const PoolWait& w = r.wait;
    const double y = ms - r.fixed_ms;  // what the waits must exceed
    const double end_share = std::max(0.0, 1 - w.start_share - w.ramp_share);
    share += r.share * (w.start_share * tail(y, w.start_ms, w.start_ms, w.sojourn_ms) +
                        w.ramp_share * tail(y, std::min(w.start_ms, w.end_ms), std::max(w.start_ms, w.end_ms), w.sojourn_ms) +
                        end_share * tail(y, w.end_ms, w.end_ms, w.sojourn_ms));
  }
  return share;
}

double FluidSimulator::PoolWait::mean_ms() const {
  const double end_share = std::max(0.0, 1 - start_share - ramp_share);
  return start_share * start_ms + ramp_share * (start_ms + end_ms) / 2 + end_share * end_ms + sojourn_ms;
}

// Over one slot of T seconds the backlog goes from `backlog` towards
// `queued` at the net rate |arrivals - service| and stays there once it
// arrives (full, or empty). The served packets are the backlog queued at the
// start, then arrivals in the order they came; the dropped ones arrived
// when the queue was full and the last `queued` arrivals wait for the next
// slot.
FluidSimulator::PoolWait FluidSimulator::pool_wait(double backlog, double arriving, double served, double queued,
                                                   double capacity_pps, double service_pps, double queue_limit) const {
  PoolWait w;
  const double slot_s = model_->slot_seconds();
  if (backlog <= 0 && queued <= 0) {
    const double rho = std::min(served / slot_s / capacity_pps, kMaxQueueingLoad);
    w.sojourn_ms = 1e3 / (service_pps * (1 - rho));
    return w;
  }
  const double service_ms = 1e3 / service_pps;
  w.start_ms = 1e3 * backlog / capacity_pps + service_ms;
  w.end_ms = 1e3 * queued / capacity_pps + service_ms;
  const double arrival_pps = arriving / slot_s;
  const double net_pps = std::abs(arrival_pps - capacity_pps);
  const double ramp_s = net_pps > 0 ? std::min(slot_s, std::abs(queued - backlog) / net_pps) : 0.0;
  // Arrivals accepted while the backlog moved, and after (at the service
  // rate once a rising queue is full); the last `queued` are not served yet.
  double ramp = arrival_pps * ramp_s;
  double after = (arrival_pps > capacity_pps && queued >= queue_limit ? capacity_pps : arrival_pps) * (slot_s - ramp_s);
  double left = queued;
  const double from_after = std::min(after, left);
  after -= from_after;
  left -= from_after;
  ramp = std::max(0.0, ramp - left);
  const double from_backlog = std::min(backlog, served);
  const double total = from_backlog + ramp + after;
  if (total <= 0) {
    w.start_share = 1;
    return w;
  }
  w.start_share = from_backlog / total;
  w.ramp_share = ramp / total;
  return w;
}

void FluidSimulator::carry(std::size_t chain, std::size_t from, std::size_t to, double packets) {
  const CostModel& prices = model_->cost_model();
  const double bytes = packets * model_->settings().scale.mean_packet_bytes;
  for (std::size_t link : model_->route_links(from, to)) {
    outcome_.usage.bytes_per_link[link] += packets;
    outcome_.chain_cost[chain].wan += prices.wan(link, bytes);
    outcome_.site_cost[from].wan += prices.wan(link, bytes);
  }
}

}  // namespace nfv
