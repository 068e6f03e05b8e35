// The pods backend: plans go to the pods' control APIs (each pod gets the
// instance counts of the sites it hosts and every hop's split, since any pod
// may be upstream of a hop) in two phases, every pod checks, then every pod
// applies, so that a plan one pod refuses changes none. Each slot is
// measured from the difference of two telemetry snapshots taken on the slot
// clock (slot k ends at start + (k + 1) x slot_seconds, the clock the
// traffic replay keeps too): arrivals at the ingress pod, deliveries, late
// packets and the latency histogram at the egress pod (its difference gives
// the slot's own p99), drops by reason, per-pool served and refused
// packets, link bytes.
//
// A pod that does not answer (it died, hangs, or its connection broke) is
// down, not a reason to stop: every call is bounded by a share of the slot,
// its sites are reported down (Observation::site_down) so that the slot
// loop plans around them, plans go to the pods that answer, and each slot
// it is asked again; once it answers, it is up again and gets the plan in
// force (a restarted pod runs its config's).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "pods_backend.h"
#include "control_client.h"

namespace nfv {
namespace {

constexpr int kPodWaitSeconds = 30;
constexpr double kBaselineLeadSeconds = 0.25;
constexpr double kLateShare = 0.5;  // of a slot: later than this past a slot's end, rejoin the clock
// How far a pod's seconds (its TSC) and the scaler's (the system clock) may
// drift apart over a span, beyond what the calls' durations allow.
constexpr double kClockSlackSeconds = 0.01, kClockSlackShare = 0.002;
// The most one control call may take: a share of the slot, so that a pod
// that hangs costs the slot a fraction, never the slot clock.
constexpr double kCallShare = 0.25, kMinCallSeconds = 0.2, kMaxCallSeconds = 2;

class PodsBackend final : public Backend {
 public:
  explicit PodsBackend(const ScalerSetup& setup)
      : model_(setup.model), slot_seconds_(setup.config.slot_seconds()), start_unix_s_(setup.start_unix_s) {
    const Topology& topology = model_->topology();
    for (const auto& pod : setup.config.pods()) {
      PodConnection p;
      p.name = pod.name();
      p.address = pod.control();
      p.token = pod.token();
      p.tls = tls_files(pod.tls());
      p.tls_field = "pods[" + std::to_string(pods_.size()) + "].tls";
      p.timeout = std::chrono::milliseconds(static_cast<long>(
          1e3 * std::clamp(kCallShare * slot_seconds_, kMinCallSeconds, kMaxCallSeconds)));
      for (const std::string& site : pod.sites()) p.sites.push_back(*topology.find_site(site));
      pods_.push_back(std::move(p));
    }
  }

  std::string name() const override { return "pods"; }

  // Joins the slot clock: at its start when that is ahead, else at the
  // next slot boundary (a scaler started late, or restarted).
  Observation start(const Plan& running) override {
    in_force_ = previous_ = running;
    note_split_hops(running);
    const double now = unix_now();
    // Pods may still be coming up: each gets until the clock's first slot,
    // and at least kPodWaitSeconds, to answer.
    const double deadline = (start_unix_s_ > 0 ? std::max(start_unix_s_, now) : now) + kPodWaitSeconds;
    const PoolIndex& pools = model_->pool_index();
    const Topology& topology = model_->topology();
    std::map<std::string, std::size_t> chain_of;
    for (std::size_t c = 0; c < topology.chains.size(); ++c) chain_of[topology.chains[c].name] = c;
    runnable_.assign(pools.pools(), 0);
    for (PodConnection& pod : pods_)
      for (;;) {
        try {
          // The pools a pod lists are the placements it can run.
          const stats::PodStats answered = telemetry(pod);
          for (const auto& hs : answered.hops()) {
            const auto chain = chain_of.find(hs.chain());
            const auto site = topology.find_site(hs.site());
            if (chain != chain_of.end() && site && hs.hop() >= 1 && hs.hop() <= topology.chains[chain->second].vnfs.size())
              runnable_[pools(chain->second, hs.hop() - 1, *site)] = 1;
          }
          break;
        } catch (const std::exception& e) {
          if (unix_now() >= deadline)
            throw std::runtime_error("pod " + pod.name + " did not answer within " + std::to_string(kPodWaitSeconds) +
                                     " s: " + e.what());
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      }
    const double ready = unix_now();
    if (start_unix_s_ <= 0) start_unix_s_ = ready;  // no clock given: it starts now
    slot_ = ready <= start_unix_s_ ? 0 : static_cast<std::size_t>(std::ceil((ready - start_unix_s_) / slot_seconds_));
    std::printf("slot clock: slot 0 at %.3f (unix s); the pods answered %.3f s %s it; joining at slot %zu\n", start_unix_s_,
                std::abs(ready - start_unix_s_), ready <= start_unix_s_ ? "before" : "after", slot_);
    std::fflush(stdout);
    // The counters the first slot is measured from. Before slot 0 no traffic
    // runs yet: they are read a little ahead, so that the reads do not take
    // a pod's core just as its traffic starts.
    sleep_until_unix(slot_start(slot_) - (slot_ == 0 ? kBaselineLeadSeconds : 0.0));
    for (PodConnection& pod : pods_) read(pod, slot_);
    sleep_until_unix(slot_start(slot_));
    Observation first;
    first.slot = slot_;
    first.plan = running;
    first.arrival_pps.assign(model_->chains(), 0.0);
    return first;
  }

  const SlotReport& run_slot(const Plan& plan, bool apply) override {
    previous_ = in_force_;
    if (apply) {
      send(plan);
      in_force_ = plan;
    }
    const std::size_t from = slot_;
    ++slot_;
    // Fallen behind the clock (a slow decision, a pod slow to answer): the
    // slot already ended long ago, so the scaler rejoins the clock at the
    // next boundary and measures the whole span as one; its rates are per
    // second of the span, never a span's packets over one slot's seconds.
    const double now = unix_now();
    if (now > slot_start(slot_) + kLateShare * slot_seconds_)
      slot_ = static_cast<std::size_t>(std::ceil((now - start_unix_s_) / slot_seconds_));
    sleep_until_unix(slot_start(slot_));
    report_ = measure(slot_ - from);
    report_.observation.slot = slot_;
    return report_;
  }

  bool done() const override { return false; }

  bool runs_pool(std::size_t chain, std::size_t hop, std::size_t site) const override {
    return runnable_.empty() || runnable_[model_->pool_index()(chain, hop, site)];
  }

 private:
  // A pod's control API, connected on first use and again after a failure
  // (a pod that was not up yet, or went away and came back).
  struct PodConnection {
    std::string name, address, token;
    TlsFiles tls;
    std::string tls_field;  // what errors about its files name
    std::chrono::milliseconds timeout{2000};
    std::unique_ptr<ControlClient> client;
    std::vector<std::size_t> sites;
    stats::PodStats last;  // the counters the next slot is measured from,
    double last_at = 0;    // and when they were read (unix s; not before the slot they start)
    double last_taken = 0;  // when the pod took them (the call's midpoint; before last_at when ahead of its slot)
    double last_call = 0;   // how long that read's call took (s)
    bool up = true;        // it answered its last call

    control::Response call(const control::Request& request) {
      try {
        if (!client) client = std::make_unique<ControlClient>(address, token, tls, tls_field, timeout);
        return client->call(request);
      } catch (...) {
        client.reset();
        throw;
      }
    }
  };

  stats::PodStats telemetry(PodConnection& pod) {
    control::Request request;
    request.mutable_telemetry();
    const control::Response response = pod.call(request);
    if (!response.ok()) throw std::runtime_error("pod " + pod.name + ": telemetry: " + response.error());
    return response.telemetry();
  }

  // Reads a pod's counters at the start of `slot` into pod.last and gives
  // the seconds since the previous read. A read ahead of the slot counts
  // from the slot's start: no traffic runs before it.
  //
  // The seconds are the pod's own (its uptime_s, taken with its counters):
  // the scaler knows when a pod took them only within its call, and a call
  // held up (the scaler stopped inside it, a pod slow to answer) moves the
  // span's ends by up to half the call. The pod's seconds must agree with
  // the scaler's within that; else (the first read, a pod without uptime,
  // one whose clock disagrees) the scaler's count.
  double read(PodConnection& pod, std::size_t slot) {
    const double asked = unix_now();
    stats::PodStats now = telemetry(pod);
    const double answered = unix_now();
    const double taken = (asked + answered) / 2;
    const double at = std::max(taken, slot_start(slot));
    const double pod_seconds = now.uptime_s() - pod.last.uptime_s();
    const double scaler_seconds = taken - pod.last_taken;
    const double allowed = (pod.last_call + (answered - asked)) / 2 + kClockSlackSeconds + kClockSlackShare * scaler_seconds;
    const bool agree = pod.last.uptime_s() > 0 && std::abs(pod_seconds - scaler_seconds) <= allowed;
    // From the last read's `at` to this one's: the pod's seconds between its
    // two takings, each end moved to its slot's start where it was ahead.
    const double seconds = agree ? pod_seconds + (at - taken) - (pod.last_at - pod.last_taken) : at - pod.last_at;
    pod.last = std::move(now);
    pod.last_at = at;
    pod.last_taken = taken;
    pod.last_call = answered - asked;
    return seconds;
  }

  std::string sites_of(const PodConnection& pod) const {
    std::string names;
    for (std::size_t s : pod.sites) names += (names.empty() ? "" : ", ") + model_->topology().sites[s].name;
    return names;
  }

  void mark_down(PodConnection& pod, const std::string& why) {
    if (!pod.up) return;
    pod.up = false;
    std::printf("pod %s is down (site %s): %s\n", pod.name.c_str(), sites_of(pod).c_str(), why.c_str());
    std::fflush(stdout);
  }

  // A pod that was down answers again: what it reads now is the base of the
  // next slot (a restarted pod counts from zero), and it gets the plan in
  // force. Still silent: it stays down until the next slot asks again.
  void rejoin(PodConnection& pod) {
    try {
      read(pod, slot_);
      const control::Response response = pod.call(plan_request(in_force_, pod));
      pod.up = true;
      std::printf("pod %s is up again (site %s)%s\n", pod.name.c_str(), sites_of(pod).c_str(),
                  response.ok() ? ": the plan in force is applied to it"
                                : (": it refused the plan in force: " + response.error()).c_str());
      std::fflush(stdout);
    } catch (const std::exception&) {
      // Not back yet.
    }
  }

  // Hops ever split over several sites: their pods have a placement at each,
  // so when a plan leaves one site (another went down) the split still goes
  // out, or the pods would keep sending flows to the site left.
  void note_split_hops(const Plan& plan) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> sites;
    for (const PoolPlan& p : plan.pools)
      if (++sites[{p.chain, p.hop}] > 1) split_hops_.insert({model_->topology().chains[p.chain].name, p.hop + 1});
  }

  control::Request plan_request(const Plan& plan, const PodConnection& pod) const {
    const Topology& topology = model_->topology();
    control::Request request;
    auto* apply = request.mutable_apply_plan();
    std::map<std::pair<std::uint32_t, std::uint32_t>, control::HopSplit*> splits;
    for (const PoolPlan& p : plan.pools) {
      const std::string& chain = topology.chains[p.chain].name;
      auto& split = splits[{p.chain, p.hop}];
      if (split == nullptr) {
        split = apply->add_splits();
        split->set_chain(chain);
        split->set_hop(p.hop + 1);
      }
      auto* share = split->add_shares();
      share->set_site(topology.sites[p.site].name);
      share->set_share(p.split);
      if (std::find(pod.sites.begin(), pod.sites.end(), p.site) == pod.sites.end()) continue;
      auto* hop = apply->add_hops();
      hop->set_chain(chain);
      hop->set_hop(p.hop + 1);
      hop->set_site(topology.sites[p.site].name);
      hop->set_instances(static_cast<std::uint32_t>(p.instances));
    }
    // A hop whose split names only one site needs none: the pods' placements
    // give single-site hops their site already (unless the hop was split before).
    for (int i = apply->splits_size() - 1; i >= 0; --i)
      if (apply->splits(i).shares_size() == 1 && !split_hops_.count({apply->splits(i).chain(), apply->splits(i).hop()}))
        apply->mutable_splits()->DeleteSubrange(i, 1);
    return request;
  }

  // All or nothing over the pods that answer: every pod checks the plan
  // (dry run), then every pod applies it. A pod refusing it in the second
  // phase makes the pods that already applied go back to the plan in force,
  // and the plan counts as refused. A pod that does not answer is down: the
  // others go on without it.
  void send(const Plan& plan) {
    note_split_hops(plan);
    for (PodConnection& pod : pods_) {
      if (!pod.up) continue;
      control::Request request = plan_request(plan, pod);
      request.mutable_apply_plan()->set_dry_run(true);
      control::Response response;
      try {
        response = pod.call(request);
      } catch (const std::exception& e) {
        mark_down(pod, e.what());
        continue;
      }
      if (!response.ok()) throw std::runtime_error("pod " + pod.name + " refused the plan: " + response.error());
    }
    std::vector<PodConnection*> applied;
    for (PodConnection& pod : pods_) {
      if (!pod.up) continue;
      control::Response response;
      try {
        response = pod.call(plan_request(plan, pod));
      } catch (const std::exception& e) {
        mark_down(pod, e.what());
        continue;
      }
      if (response.ok()) {
        applied.push_back(&pod);
        continue;
      }
      std::string rollback;
      for (PodConnection* back : applied) {
        try {
          const control::Response undone = back->call(plan_request(in_force_, *back));
          if (!undone.ok()) rollback += "; pod " + back->name + " did not go back: " + undone.error();
        } catch (const std::exception& again) {
          mark_down(*back, again.what());
          rollback += "; pod " + back->name + " did not go back: " + again.what();
        }
      }
      throw std::runtime_error("pod " + pod.name + ": apply_plan: " + response.error() +
                               " (after every pod checked it; the pods that had applied it went back)" + rollback);
    }
  }

  // The span since the last reading (`slots` slots, usually one).
  SlotReport measure(std::size_t slots) {
    const Topology& topology = model_->topology();
    const PoolIndex& pools = model_->pool_index();
    const std::size_t chains = model_->chains();
    SlotReport report;
    Observation& o = report.observation;
    o.arrival_pps.assign(chains, 0.0);
    o.chains.assign(chains, ChainTraffic{});
    o.links.assign(topology.links.size(), LinkLoad{});
    o.plan = in_force_;
    o.measured = true;
    std::vector<std::map<std::uint64_t, double>> slot_latency(chains);  // per chain: bucket value (ns) -> samples this slot
    SlotUsage usage;
    usage.instances_per_site.assign(model_->sites(), 0.0);
    usage.started_per_site.assign(model_->sites(), 0.0);
    usage.bytes_per_link.assign(topology.links.size(), 0.0);
    std::vector<PoolLoad> loads(pools.pools());
    std::vector<char> seen(pools.pools(), 0);
    std::map<std::string, std::size_t> chain_of;
    for (std::size_t c = 0; c < chains; ++c) chain_of[topology.chains[c].name] = c;
    const auto delta = [](std::uint64_t now, std::uint64_t before) {
      return now >= before ? static_cast<double>(now - before) : 0.0;
    };
    std::vector<double> link_mbps(topology.links.size(), 0.0);
    // What one pod counted since `before`, over `seconds`.
    const auto add_pod = [&](const PodConnection& pod, const stats::PodStats& before, double seconds) {
      const stats::PodStats& now = pod.last;
      std::map<std::string, const stats::ChainStats*> before_chain;
      for (const auto& cs : before.chains()) before_chain[cs.name()] = &cs;
      for (const auto& cs : now.chains()) {
        const auto it = chain_of.find(cs.name());
        if (it == chain_of.end()) continue;
        const std::size_t c = it->second;
        const stats::ChainStats* was = before_chain.count(cs.name()) ? before_chain[cs.name()] : nullptr;
        const double in = delta(cs.in_packets(), was ? was->in_packets() : 0);
        const double out = delta(cs.out_packets(), was ? was->out_packets() : 0);
        ChainTraffic& t = o.chains[c];
        if (std::find(pod.sites.begin(), pod.sites.end(), topology.chains[c].ingress) != pod.sites.end()) {
          t.arrived += in;
          o.arrival_pps[c] += in / seconds;
        }
        if (std::find(pod.sites.begin(), pod.sites.end(), topology.chains[c].egress) != pod.sites.end()) {
          t.delivered += out;
          t.late += delta(cs.late_packets(), was ? was->late_packets() : 0);
          add_latency(cs.latency(), was ? &was->latency() : nullptr, slot_latency[c]);
        }
        for (const auto& d : cs.drops()) {
          std::uint64_t dropped_before = 0;
          if (was)
            for (const auto& w : was->drops())
              if (w.reason() == d.reason()) dropped_before = w.packets();
          t.dropped += delta(d.packets(), dropped_before);
        }
      }
      std::map<std::string, const stats::HopStats*> before_hop;
      for (const auto& hs : before.hops()) before_hop[hs.chain() + "/" + std::to_string(hs.hop()) + "@" + hs.site()] = &hs;
      for (const auto& hs : now.hops()) {
        const auto chain = chain_of.find(hs.chain());
        const auto site = topology.find_site(hs.site());
        if (chain == chain_of.end() || !site || hs.hop() < 1 || hs.hop() > topology.chains[chain->second].vnfs.size()) continue;
        const std::size_t pool = pools(chain->second, hs.hop() - 1, *site);
        const auto was = before_hop.find(hs.chain() + "/" + std::to_string(hs.hop()) + "@" + hs.site());
        const double served = delta(hs.in_packets(), was != before_hop.end() ? was->second->in_packets() : 0);
        const double refused = delta(hs.queue_full(), was != before_hop.end() ? was->second->queue_full() : 0);
        PoolLoad& load = loads[pool];
        load.chain = static_cast<std::uint32_t>(chain->second);
        load.hop = hs.hop() - 1;
        load.site = static_cast<std::uint32_t>(*site);
        load.instances = static_cast<std::int32_t>(hs.active_instances());
        load.served_pps = served / seconds;
        load.offered_pps = (served + refused) / seconds;
        double backlog = 0;
        for (const auto& is : hs.instances()) backlog += static_cast<double>(is.queue_depth());
        load.backlog_packets = backlog;
        const double capacity = load.instances * model_->service_rate_pps(pools.hop_number(load.chain, load.hop));
        load.utilisation = capacity > 0 ? load.offered_pps / capacity : (load.offered_pps > 0 ? INFINITY : 0);
        seen[pool] = 1;
      }
      std::map<std::string, std::uint64_t> before_link;
      for (const auto& ls : before.links()) before_link[ls.name()] = ls.offered_bytes();
      for (const auto& ls : now.links()) {
        const auto from = topology.find_site(ls.from_site()), to = topology.find_site(ls.to_site());
        if (!from || !to) continue;
        if (const Link* link = topology.link_between(*from, *to)) {
          const std::size_t l = static_cast<std::size_t>(link - topology.links.data());
          const double bytes = delta(ls.offered_bytes(), before_link.count(ls.name()) ? before_link[ls.name()] : 0);
          usage.bytes_per_link[l] += bytes;
          link_mbps[l] += bytes * 8 / 1e6 / seconds;
        }
      }
    };
    std::vector<std::uint8_t> site_down(model_->sites(), 0);
    for (PodConnection& pod : pods_) {
      // A pod down measures nothing this slot, whether or not it answers again now.
      if (!pod.up) rejoin(pod);
      else {
        // A copy: a telemetry read that throws leaves pod.last as it was.
        const stats::PodStats before = pod.last;
        try {
          // Rates are per second of what the pod's counters covered.
          const double seconds = std::max(read(pod, slot_), 1e-3);
          add_pod(pod, before, seconds);
        } catch (const std::exception& e) {
          mark_down(pod, e.what());
        }
      }
      if (!pod.up)
        for (std::size_t s : pod.sites) site_down[s] = 1;
    }
    if (std::find(site_down.begin(), site_down.end(), 1) != site_down.end()) o.site_down = std::move(site_down);
    for (std::size_t c = 0; c < chains; ++c) {
      usage.dropped_packets += o.chains[c].dropped;
      usage.late_packets += o.chains[c].late;
      o.chains[c].mean_latency_ms = mean_ms(slot_latency[c]);
      o.chains[c].p99_latency_ms = percentile_ms(slot_latency[c], 0.99);
    }
    for (std::size_t pool = 0; pool < pools.pools(); ++pool)
      if (seen[pool] && (loads[pool].instances > 0 || loads[pool].offered_pps > 0)) o.pools.push_back(loads[pool]);
    for (std::size_t l = 0; l < topology.links.size(); ++l) {
      o.links[l].mbps = link_mbps[l];
      o.links[l].utilisation = topology.links[l].bandwidth_mbps > 0 ? o.links[l].mbps / topology.links[l].bandwidth_mbps : 0;
    }
    // Instances and starts by the plans in force (the pods' counts follow them).
    std::vector<std::int32_t> before(pools.pools(), 0);
    for (const PoolPlan& p : previous_.pools) before[pools(p.chain, p.hop, p.site)] = p.instances;
    for (const PoolPlan& p : in_force_.pools) {
      usage.instances_per_site[p.site] += static_cast<double>(p.instances * slots);  // instance-slots
      usage.started_per_site[p.site] += std::max(0, p.instances - before[pools(p.chain, p.hop, p.site)]);
    }
    report.slots = slots;
    report.cost = model_->cost_model().slot_cost(usage);
    report.usage = std::move(usage);
    return report;
  }

  static double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  double slot_start(std::size_t slot) const { return start_unix_s_ + static_cast<double>(slot) * slot_seconds_; }
  static void sleep_until_unix(double unix_s) {
    const double wait = unix_s - unix_now();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }

  // Adds this slot's samples (now minus before) of a latency histogram.
  static void add_latency(const stats::LatencyStats& now, const stats::LatencyStats* before,
                          std::map<std::uint64_t, double>& out) {
    std::map<std::uint32_t, std::uint64_t> earlier;
    if (before)
      for (const auto& b : before->buckets()) earlier[b.index()] = b.count();
    for (const auto& b : now.buckets()) {
      const std::uint64_t was = earlier.count(b.index()) ? earlier[b.index()] : 0;
      if (b.count() > was) out[b.middle_ns()] += static_cast<double>(b.count() - was);
    }
  }
  static double percentile_ms(const std::map<std::uint64_t, double>& samples, double q) {
    double total = 0;
    for (const auto& [ns, n] : samples) total += n;
    if (total <= 0) return 0;
    const double rank = std::floor(q * (total - 1)) + 1;  // as LatencyHistogram::percentile
    double seen = 0;
    for (const auto& [ns, n] : samples)
      if ((seen += n) >= rank) return static_cast<double>(ns) / 1e6;
    return static_cast<double>(samples.rbegin()->first) / 1e6;
  }
  static double mean_ms(const std::map<std::uint64_t, double>& samples) {
    double total = 0, sum = 0;
    for (const auto& [ns, n] : samples) {
      total += n;
      sum += n * static_cast<double>(ns);
    }
    return total > 0 ? sum / total / 1e6 : 0.0;
  }

  std::shared_ptr<const SystemModel> model_;
  double slot_seconds_;
  double start_unix_s_;
  std::size_t slot_ = 0;
  SlotReport report_;
  std::vector<PodConnection> pods_;
  Plan in_force_, previous_;
  std::set<std::pair<std::string, std::uint32_t>> split_hops_;
  std::vector<std::uint8_t> runnable_;  // per pool (PoolIndex): some pod has its placement  // (chain, 1-based hop): see note_split_hops
};

}  // namespace

std::unique_ptr<Backend> make_pods_backend(const ScalerSetup& setup) { return std::make_unique<PodsBackend>(setup); }

}  // namespace nfv
