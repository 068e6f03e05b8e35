// The pod's answers to control API requests. Control thread only: changes go
// to the instance pools and link settings, then out to the workers as a new
// routing snapshot.
#include <rte_cycles.h>
#include <spdlog/spdlog.h>

#include "control_server.h"
#include "pod.h"

namespace nfv {

// The chain's index for a valid (chain, hop), else kNoIndex with the reason.
int Pod::find_hop(const std::string& chain_name, uint32_t hop, std::string* error) const {
  const PodLayout& layout = runtime_->layout;
  for (std::size_t c = 0; c < layout.chains.size(); ++c) {
    if (layout.chains[c].name != chain_name) continue;
    const uint32_t hops = static_cast<uint32_t>(layout.chains[c].hops.size());
    if (hop >= 1 && hop <= hops) return static_cast<int>(c);
    *error = "chain " + chain_name + " has hops 1.." + std::to_string(hops) + ", not " + std::to_string(hop);
    return kNoIndex;
  }
  *error = "no chain named '" + chain_name + "'";
  return kNoIndex;
}

InstancePool* Pod::find_pool(const std::string& chain_name, uint32_t hop, const std::string& site, std::string* error) const {
  const PodRuntime& pod = *runtime_;
  const int c = find_hop(chain_name, hop, error);
  if (c == kNoIndex) return nullptr;
  const HopInfo& info = pod.layout.chains[c].hops[hop - 1];
  std::size_t k = 0;
  if (!site.empty()) {
    while (k < info.sites.size() && pod.layout.sites[info.sites[k]].name != site) ++k;
    if (k == info.sites.size()) {
      std::string placed;
      for (int s : info.sites) placed += (placed.empty() ? "" : ", ") + pod.layout.sites[s].name;
      *error = chain_name + " hop " + std::to_string(hop) + " runs at " + placed + ", not " + site;
      return nullptr;
    }
  }
  InstancePool* pool = pod.pool(c, static_cast<int>(hop) - 1, static_cast<int>(k));
  if (!pool)
    *error = "hop " + std::to_string(hop) + " of " + chain_name + " at " + pod.layout.sites[info.sites[k]].name + " runs in another pod";
  return pool;
}

nfv::control::Status Pod::status() const {
  const PodRuntime& pod = *runtime_;
  const PodLayout& layout = pod.layout;
  nfv::control::Status out;
  out.set_pod(layout.name);
  out.set_uptime_s(static_cast<double>(rte_rdtsc() - created_tsc_) / static_cast<double>(pod.clock.hz()));
  out.set_snapshot_version(snapshot_version_);
  for (const auto& site : layout.sites) {
    auto* s = out.add_sites();
    s->set_name(site.name);
    s->set_lat(site.lat);
    s->set_lon(site.lon);
    s->set_hosted(site.hosted);
  }
  for (std::size_t l = 0; l < layout.links.size(); ++l) {
    const LinkInfo& link = layout.links[l];
    if (!layout.sites[link.from].hosted) continue;
    auto* k = out.add_links();
    k->set_from(layout.sites[link.from].name);
    k->set_to(layout.sites[link.to].name);
    k->set_delay_ms(link_params_[l].delay_ms);
    k->set_jitter_ms(link_params_[l].jitter_ms);
    k->set_loss(link_params_[l].loss);
    k->set_bandwidth_mbps(link_params_[l].bandwidth_mbps);
    k->set_inter_pod(link.port != kNoIndex);
  }
  for (std::size_t c = 0; c < layout.chains.size(); ++c) {
    const ChainInfo& chain = layout.chains[c];
    auto* cs = out.add_chains();
    cs->set_name(chain.name);
    cs->set_id(chain.spi);
    cs->set_ingress_site(layout.sites[chain.ingress_site].name);
    cs->set_egress_site(layout.sites[chain.egress_site].name);
    for (std::size_t h = 0; h < chain.hops.size(); ++h) {
      auto* hs = cs->add_hops();
      hs->set_hop(static_cast<uint32_t>(h + 1));
      hs->set_vnf(chain.hops[h].vnf);
      hs->set_site(layout.sites[chain.hops[h].site].name);
      hs->set_max_instances(chain.hops[h].max_instances);
      hs->set_service_rate_pps(chain.hops[h].service_rate_pps);
      for (std::size_t k = 0; k < chain.hops[h].sites.size(); ++k) {
        auto* ps = hs->add_placements();
        ps->set_site(layout.sites[chain.hops[h].sites[k]].name);
        ps->set_share(split_shares_[pod.index.hop_number(static_cast<int>(c), static_cast<int>(h))][k]);
        if (const InstancePool* pool = pod.pool(static_cast<int>(c), static_cast<int>(h), static_cast<int>(k))) {
          ps->set_here(true);
          ps->set_active_instances(static_cast<uint32_t>(pool->active()));
          ps->set_draining_instances(static_cast<uint32_t>(pool->draining()));
          hs->set_active_instances(hs->active_instances() + ps->active_instances());
          hs->set_draining_instances(hs->draining_instances() + ps->draining_instances());
        }
      }
    }
  }
  return out;
}

// All or nothing: every entry is checked before any pool or split changes,
// and a placement that gets a share must have an instance once applied.
std::string Pod::apply_plan(const nfv::control::ApplyPlanRequest& plan) {
  const PodRuntime& pod = *runtime_;
  const PodLayout& layout = pod.layout;
  std::vector<std::pair<InstancePool*, int>> changes;
  for (int i = 0; i < plan.hops_size(); ++i) {
    const auto& entry = plan.hops(i);
    const std::string where = "hops[" + std::to_string(i) + "]: ";
    std::string error;
    InstancePool* pool = find_pool(entry.chain(), entry.hop(), entry.site(), &error);
    if (!pool) return where + error;
    if (entry.instances() > pool->hop().max_instances)
      return where + "instances must be in [0, " + std::to_string(pool->hop().max_instances) + "], got " +
             std::to_string(entry.instances());
    changes.emplace_back(pool, static_cast<int>(entry.instances()));
  }
  auto shares = split_shares_;
  for (int i = 0; i < plan.splits_size(); ++i) {
    const auto& split = plan.splits(i);
    const std::string where = "splits[" + std::to_string(i) + "]: ";
    std::string error;
    const int chain = find_hop(split.chain(), split.hop(), &error);
    if (chain == kNoIndex) return where + error;
    const HopInfo& hop = layout.chains[chain].hops[split.hop() - 1];
    std::vector<double> next(hop.sites.size(), 0.0);
    double total = 0;
    for (const auto& share : split.shares()) {
      const auto at = std::find_if(hop.sites.begin(), hop.sites.end(), [&](int s) { return layout.sites[s].name == share.site(); });
      if (at == hop.sites.end()) return where + split.chain() + " hop " + std::to_string(split.hop()) + " has no placement at " + share.site();
      if (!(share.share() >= 0)) return where + "shares must be >= 0";
      next[at - hop.sites.begin()] = share.share();
      total += share.share();
    }
    if (total <= 0) return where + "at least one share must be > 0";
    for (auto& v : next) v /= total;
    shares[pod.index.hop_number(chain, static_cast<int>(split.hop()) - 1)] = next;
  }
  // Every placement this pod runs that gets flows needs an instance after the plan.
  for (std::size_t number = 0; number < shares.size(); ++number)
    for (std::size_t k = 0; k < shares[number].size(); ++k) {
      InstancePool* pool = pod.pools[pod.index.first_pool(static_cast<int>(number)) + k].get();
      if (!pool || shares[number][k] <= 0) continue;
      int instances = pool->active();
      for (const auto& [changed, n] : changes)
        if (changed == pool) instances = n;
      if (instances == 0) return pool->name() + " gets a share of the flows but would have no instance";
    }
  if (plan.dry_run()) return "";
  const uint64_t now = rte_rdtsc();
  for (auto& [pool, instances] : changes) {
    std::string error;
    if (!pool->scale_to(instances, now, &error)) return error;  // ranges were checked: only a failing VNF init lands here
  }
  split_shares_ = shares;
  publish_snapshot();
  for (auto& [pool, instances] : changes) spdlog::info("plan: {} -> {} active, {} draining", pool->name(), pool->active(), pool->draining());
  return "";
}

std::string Pod::set_link(const nfv::control::SetLinkRequest& request) {
  const PodLayout& layout = runtime_->layout;
  const int from = layout.site_index(request.from()), to = layout.site_index(request.to());
  if (from == kNoIndex || to == kNoIndex) return "unknown site in " + request.from() + "->" + request.to();
  const int link = layout.link_between(from, to);
  if (link == kNoIndex || !layout.sites[from].hosted) return "no link " + request.from() + "->" + request.to() + " starts at this pod";
  WanLinkParams params = link_params_[link];
  if (request.has_delay_ms()) params.delay_ms = request.delay_ms();
  if (request.has_jitter_ms()) params.jitter_ms = request.jitter_ms();
  if (request.has_loss()) params.loss = request.loss();
  if (request.has_bandwidth_mbps()) params.bandwidth_mbps = request.bandwidth_mbps();
  if (params.delay_ms < 0 || params.jitter_ms < 0 || params.bandwidth_mbps < 0) return "delay, jitter and bandwidth must be >= 0";
  if (params.loss < 0 || params.loss > 1) return "loss must be a probability in [0, 1]";
  link_params_[link] = params;
  publish_snapshot();
  spdlog::info("link {}: delay {} ms, jitter {} ms, loss {}, bandwidth {} Mbit/s", layout.links[link].name, params.delay_ms,
               params.jitter_ms, params.loss, params.bandwidth_mbps);
  return "";
}

std::string Pod::drain(const nfv::control::DrainRequest& request) {
  const PodRuntime& pod = *runtime_;
  std::string error;
  const int chain = find_hop(request.chain(), request.hop(), &error);
  if (chain == kNoIndex) return error;
  const int hop = static_cast<int>(request.hop()) - 1;
  for (std::size_t k = 0; k < pod.layout.chains[chain].hops[hop].sites.size(); ++k) {
    InstancePool* pool = pod.pool(chain, hop, static_cast<int>(k));
    if (!pool) continue;
    for (int s = 0; s < kMaxInstancesPerPool; ++s)
      if (pool->state(s) == InstanceState::kActive && pool->slot(s).id == request.instance_id()) {
        if (!pool->drain_instance(request.instance_id(), rte_rdtsc(), &error)) return error;
        publish_snapshot();
        return "";
      }
  }
  return "no active instance " + std::to_string(request.instance_id()) + " in " + request.chain() + " hop " + std::to_string(request.hop());
}

// Hands a request to the VNF of each matching instance of a hop, draining
// ones included (they still serve their flows); control thread: instances
// are created and destroyed only here. A request to the whole hop that
// changes state stands: the pool hands it to the instances it starts later,
// so a scaled-out lb knows which backends are down. The control server has
// checked the token of those that change state (is_mutating).
static std::string vnf_request(PodRuntime& pod, int chain, const nfv::control::Request& request, nfv::control::VnfReply* out) {
  const auto& r = request.vnf();
  const int hop = static_cast<int>(r.hop()) - 1;
  const auto& sites = pod.layout.chains[chain].hops[hop].sites;
  for (std::size_t k = 0; k < sites.size(); ++k) {
    InstancePool* pool = pod.pool(chain, hop, static_cast<int>(k));
    if (!pool) continue;
    for (int s = 0; s < kMaxInstancesPerPool; ++s) {
      if (pool->state(s) == InstanceState::kFree || (r.instance_id() && pool->slot(s).id != r.instance_id())) continue;
      std::string reply;
      // What the VNF remembered of its flows may no longer hold (chain_fast_path.h):
      // the workers drop their records before the change and again after it,
      // so none made in between survives.
      const bool changes = !is_read_only_vnf_request(r.request());
      if (changes) pod.vnf_changes.fetch_add(1, std::memory_order_seq_cst);
      const bool done = pool->slot(s).vnf->control(r.request(), reply);
      if (changes) pod.vnf_changes.fetch_add(1, std::memory_order_seq_cst);
      if (!done) return "instance " + std::to_string(pool->slot(s).id) + ": " + reply;
      auto* i = out->add_instances();
      i->set_instance_id(pool->slot(s).id);
      i->set_site(pod.layout.sites[sites[k]].name);
      i->set_reply(reply);
    }
    // Accepted by the pool's instances (an error returned above).
    if (!r.instance_id() && !is_read_only_vnf_request(r.request())) pool->add_standing_request(r.request());
  }
  if (out->instances_size() == 0) return "no instance of " + r.chain() + " hop " + std::to_string(r.hop()) + " in this pod";
  return "";
}

nfv::control::Response Pod::handle_request(const nfv::control::Request& request) {
  nfv::control::Response response;
  std::string error;
  switch (request.kind_case()) {
    case nfv::control::Request::kStatus:
      *response.mutable_status() = status();
      break;
    case nfv::control::Request::kTelemetry:
      *response.mutable_telemetry() = stats();
      break;
    case nfv::control::Request::kHealth: {
      auto* health = response.mutable_health();
      health->set_forwarding(runtime_->state.load() == RunState::kForwarding && runtime_->workers_running.load() > 0);
      health->set_uptime_s(static_cast<double>(rte_rdtsc() - created_tsc_) / static_cast<double>(runtime_->clock.hz()));
      health->set_workers(static_cast<uint32_t>(workers_.size()));
      health->set_snapshot_version(snapshot_version_);
      break;
    }
    case nfv::control::Request::kApplyPlan:
      error = apply_plan(request.apply_plan());
      break;
    case nfv::control::Request::kSetLink:
      error = set_link(request.set_link());
      break;
    case nfv::control::Request::kDrain:
      error = drain(request.drain());
      break;
    case nfv::control::Request::kVnf: {
      const int chain = find_hop(request.vnf().chain(), request.vnf().hop(), &error);
      if (chain != kNoIndex) error = vnf_request(*runtime_, chain, request, response.mutable_vnf());
      break;
    }
    case nfv::control::Request::kSetPolicy:
    case nfv::control::Request::kScalerStatus:
      error = "policies belong to the scaler service (nfv-scaler), not to a pod";
      break;
    case nfv::control::Request::KIND_NOT_SET:
      error = "the request names no operation";
      break;
  }
  response.set_ok(error.empty());
  response.set_error(error);
  // snapshot_version shares the payload oneof: a change with its own reply
  // (a VNF request's per-instance answers) keeps that reply.
  if (error.empty() && is_mutating(request) && response.payload_case() == nfv::control::Response::PAYLOAD_NOT_SET)
    response.set_snapshot_version(snapshot_version_);
  return response;
}

}  // namespace nfv
