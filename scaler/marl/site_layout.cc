#include "site_layout.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "option_values.h"

namespace nfv {

namespace {

ActionScale drl_scale(const SiteLayoutSettings& s) {
  ActionScale scale;
  scale.headroom = s.headroom;
  scale.sites_per_hop = s.sites_per_hop;
  scale.learn_split = true;  // `take` moves the sites' shares, hence their instances
  return scale;
}

DecoderSettings decoder_settings(const SiteLayoutSettings& s, const std::vector<std::uint8_t>& pools) {
  DecoderSettings d;
  d.max_instances_per_pool = s.max_instances_per_pool;
  d.pools = pools;
  return d;
}

std::string join(const std::vector<double>& values) {
  std::ostringstream out;
  out.precision(17);
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
  return out.str();
}

std::vector<double> numbers(const std::string& key, const std::string& text) {
  std::vector<double> out;
  for (const std::string& item : option_list(text)) out.push_back(option_number(key, item));
  return out;
}

float instances_log(double instances) { return static_cast<float>(std::log1p(std::max(0.0, instances))); }

}  // namespace

void validate(const SiteLayoutSettings& s) {
  const auto finite = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x) && std::abs(x) <= 1; });
  };
  if (s.scale_levels.empty() || !finite(s.scale_levels))
    throw std::invalid_argument("scale_levels: expected one or more numbers in [-1, 1]");
  if (s.take_levels.empty() || !finite(s.take_levels))
    throw std::invalid_argument("take_levels: expected one or more numbers in [-1, 1]");
  if (s.horizon == 0) throw std::invalid_argument("horizon: expected at least 1");
  if (!(s.headroom > 0)) throw std::invalid_argument("headroom: expected a positive number");
  if (s.max_instances_per_pool == 0) throw std::invalid_argument("max_instances_per_pool: expected at least 1");
  if (s.graph.empty()) throw std::invalid_argument("graph: expected topology, ring, path, complete or an edge list");
}

std::string to_text(const SiteLayoutSettings& s) {
  std::ostringstream out;
  out.precision(17);
  out << "scale_levels=" << join(s.scale_levels) << "\n"
      << "take_levels=" << join(s.take_levels) << "\n"
      << "horizon=" << s.horizon << "\n"
      << "headroom=" << s.headroom << "\n"
      << "sites_per_hop=" << s.sites_per_hop << "\n"
      << "max_instances_per_pool=" << s.max_instances_per_pool << "\n"
      << "graph=" << s.graph << "\n"
      << "forecast=" << s.forecast << "\n";
  return out.str();
}

SiteLayoutSettings parse_site_layout(const std::string& text) {
  SiteLayoutSettings s;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("site layout: expected key=value, got '" + line + "'");
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "scale_levels") s.scale_levels = numbers(key, value);
    else if (key == "take_levels") s.take_levels = numbers(key, value);
    else if (key == "horizon") s.horizon = option_count(key, value);
    else if (key == "headroom") s.headroom = option_number(key, value);
    else if (key == "sites_per_hop") s.sites_per_hop = option_count(key, value);
    else if (key == "max_instances_per_pool") s.max_instances_per_pool = static_cast<std::uint32_t>(option_count(key, value));
    else if (key == "graph") s.graph = value;
    else if (key == "forecast") s.forecast = value;
    else throw std::invalid_argument("site layout: unknown key '" + key + "'");
  }
  validate(s);
  return s;
}

MixingMatrix site_graph(const std::string& spec, const Topology& topology) {
  if (spec == "topology") return MixingMatrix::from_topology(topology);
  return MixingMatrix::parse("graph", spec, topology.sites.size());
}

std::vector<std::vector<std::size_t>> neighbour_lists(const MixingMatrix& graph) {
  std::vector<std::vector<std::size_t>> out(graph.agents());
  for (const auto& [a, b] : graph.edges()) {
    out[a].push_back(b);
    out[b].push_back(a);
  }
  for (auto& list : out) std::sort(list.begin(), list.end());
  return out;
}

SiteLayout::SiteLayout(std::shared_ptr<const SystemModel> model, const TraceMapping& mapping, SiteLayoutSettings settings,
                       std::vector<std::vector<std::size_t>> neighbours, const std::vector<std::uint8_t>& pools)
    : model_(std::move(model)),
      settings_((validate(settings), std::move(settings))),
      sites_(model_->sites()),
      neighbours_(std::move(neighbours)),
      featurizer_(model_, mapping, settings_.horizon),
      layout_(model_, featurizer_, drl_scale(settings_), pools),
      decoder_(model_, decoder_settings(settings_, pools)) {
  if (neighbours_.size() != sites_)
    throw std::invalid_argument("site layout: neighbour lists for " + std::to_string(neighbours_.size()) +
                                " sites, the system has " + std::to_string(sites_));
  double best = INFINITY;
  const std::size_t takes = settings_.take_levels.size();
  for (std::size_t a = 0; a < actions(); ++a) {
    const double distance = std::abs(settings_.scale_levels[a / takes]) + std::abs(settings_.take_levels[a % takes]);
    if (distance < best) {
      best = distance;
      base_action_ = static_cast<std::int64_t>(a);
    }
  }
  const std::size_t site_count = model_->pool_index().sites();
  for (std::size_t p : layout_.pool()) pool_site_.push_back(p % site_count);
  double operating = 0, deployment = 0;
  for (const Site& site : model_->topology().sites) {
    operating += site.operating_price;
    deployment += site.deployment_price;
  }
  operating = operating > 0 ? operating / static_cast<double>(sites_) : 1;
  deployment = deployment > 0 ? deployment / static_cast<double>(sites_) : 1;
  for (const Site& site : model_->topology().sites) {
    operating_.push_back(site.operating_price / operating);
    deployment_.push_back(site.deployment_price / deployment);
  }
}

double SiteLayout::scale_of(std::int64_t action) const {
  return settings_.scale_levels.at(static_cast<std::size_t>(action) / settings_.take_levels.size());
}

double SiteLayout::take_of(std::int64_t action) const {
  return settings_.take_levels.at(static_cast<std::size_t>(action) % settings_.take_levels.size());
}

std::uint64_t SiteLayout::message_bytes_per_slot() const {
  std::uint64_t directed = 0;
  for (const auto& list : neighbours_) directed += list.size();
  return directed * kSiteFeatures * sizeof(float);
}

void SiteLayout::state(const Observation& observation, const Forecast& forecast, std::span<float> out) const {
  if (out.size() != state_size())
    throw std::invalid_argument("site layout: a state buffer of " + std::to_string(out.size()) + " floats, expected " +
                                std::to_string(state_size()));
  const SystemModel& m = *model_;
  std::fill(out.begin(), out.end(), 0.0F);
  // The global features, the featurizer's (its pool rows are not needed).
  std::vector<float> rows(featurizer_.pools() * featurizer_.pool_features()), global(global_features());
  featurizer_.featurize(observation, forecast, rows, global);
  std::copy(global.begin(), global.end(), out.begin() + static_cast<std::ptrdiff_t>(sites_ * kSiteFeatures));

  // The base plan's instances per site.
  const std::size_t all = m.pool_index().pools();
  std::vector<float> zero(layout_.actions(), 0.0F), instances(all), logits(all);
  layout_.to_decoder(zero, observation, forecast, instances, logits);
  std::vector<double> base(sites_, 0.0), running(sites_, 0.0), offered(sites_, 0.0), capacity(sites_, 0.0),
      unserved(sites_, 0.0), backlog(sites_, 0.0), room(sites_, 0.0), ingress(sites_, 0.0);
  for (std::size_t k = 0; k < layout_.pools(); ++k) base[pool_site_[k]] += instances[layout_.pool()[k]];
  for (const PoolPlan& p : observation.plan.pools) running[p.site] += p.instances;
  const PoolIndex& index = m.pool_index();
  const double queue = m.settings().queue_packets_per_instance;
  for (const PoolLoad& load : observation.pools) {
    const double service = m.service_rate_pps(index.hop_number(load.chain, load.hop));
    offered[load.site] += load.offered_pps;
    capacity[load.site] += load.instances * service;
    unserved[load.site] += std::max(0.0, load.offered_pps - load.served_pps);
    backlog[load.site] += load.backlog_packets;
    room[load.site] += queue * std::max(1, load.instances);
  }
  for (std::size_t c = 0; c < m.chains(); ++c) {
    const std::size_t site = m.topology().chains[c].ingress;
    ingress[site] += DrlLayout::planned_rate(c, observation, forecast) / m.service_rate_pps(index.hop_number(c, 0));
  }
  constexpr double kMaxUtilisation = 4;
  for (std::size_t s = 0; s < sites_; ++s) {
    float* f = &out[s * kSiteFeatures];
    const double site_capacity = m.topology().sites[s].instance_capacity;
    f[0] = instances_log(base[s]);
    f[1] = instances_log(running[s]);
    f[2] = static_cast<float>(capacity[s] > 0 ? std::min(offered[s] / capacity[s], kMaxUtilisation)
                                              : (offered[s] > 0 ? kMaxUtilisation : 0.0));
    f[3] = static_cast<float>(offered[s] > 0 ? std::min(1.0, unserved[s] / offered[s]) : 0.0);
    f[4] = static_cast<float>(room[s] > 0 ? std::min(1.0, backlog[s] / room[s]) : 0.0);
    f[5] = static_cast<float>(site_capacity > 0 ? std::clamp(1 - running[s] / site_capacity, 0.0, 1.0) : 1.0);
    f[6] = static_cast<float>(operating_[s]);
    f[7] = static_cast<float>(deployment_[s]);
    f[8] = instances_log(ingress[s]);
  }
}

void SiteLayout::observe(std::span<const float> states, std::span<float> observations) const {
  const std::size_t S = state_size(), O = observation_size(), F = kSiteFeatures, G = global_features();
  if (states.size() % S != 0 || observations.size() != states.size() / S * sites_ * O)
    throw std::invalid_argument("site layout: states or observations of the wrong size");
  for (std::size_t r = 0; r < states.size() / S; ++r) {
    const float* state = &states[r * S];
    for (std::size_t i = 0; i < sites_; ++i) {
      float* o = &observations[(r * sites_ + i) * O];
      std::copy_n(state + i * F, F, o);
      std::fill_n(o + F, F, 0.0F);
      for (std::size_t j : neighbours_[i])
        for (std::size_t f = 0; f < F; ++f) o[F + f] += state[j * F + f];
      if (!neighbours_[i].empty())
        for (std::size_t f = 0; f < F; ++f) o[F + f] /= static_cast<float>(neighbours_[i].size());
      std::copy_n(state + sites_ * F, G, o + 2 * F);
    }
  }
}

Plan SiteLayout::decode(std::span<const std::int64_t> actions, const Observation& observation, const Forecast& forecast,
                        const Plan* running) const {
  if (actions.size() != sites_)
    throw std::invalid_argument("site layout: " + std::to_string(actions.size()) + " actions for " + std::to_string(sites_) +
                                " sites");
  std::vector<float> drl(layout_.actions());
  for (std::size_t k = 0; k < layout_.pools(); ++k) {
    const std::int64_t a = std::clamp<std::int64_t>(actions[pool_site_[k]], 0, static_cast<std::int64_t>(this->actions()) - 1);
    drl[DrlLayout::kActionsPerPool * k] = static_cast<float>(scale_of(a));
    drl[DrlLayout::kActionsPerPool * k + 1] = static_cast<float>(take_of(a));
  }
  const std::size_t all = model_->pool_index().pools();
  std::vector<float> instances(all), logits(all);
  layout_.to_decoder(drl, observation, forecast, instances, logits);
  // The split follows the instances, which the shares placed.
  return decoder_.decode(instances, {}, running);
}

}  // namespace nfv
