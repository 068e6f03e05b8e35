#include "pod.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_malloc.h>
#include <rte_pcapng.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <spdlog/spdlog.h>

#include "chain_meta.h"
#include "header_mark.h"
#include "maglev.h"
#include "memif_unmap_guard.h"
#include "control_server.h"
#include "metrics_endpoint.h"
#include "prometheus_text.h"
#include "telemetry_commands.h"
#include "pod_stats.h"
#include "ports.h"

namespace nfv {
namespace {

constexpr unsigned kCaptureRingSize = 8192;
constexpr unsigned kCapturePoolSize = 16383;
constexpr uint32_t kCaptureSnapLength = 2048;
constexpr auto kControlPeriod = std::chrono::milliseconds(5);
constexpr double kTelemetryPublishS = 0.25;  // how fresh /nfv/ telemetry is

int launch_worker(void* arg) {
  static_cast<Worker*>(arg)->run();
  return 0;
}

}  // namespace

// Writes the copies that workers put on each capturing port's ring into that
// port's pcapng file; runs on the control thread, off the fast path.
class Pod::CaptureWriter {
 public:
  void add(int port, const std::string& path, PortRuntime& rt) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw std::runtime_error("capture_pcapng: cannot create '" + path + "'");
    rte_pcapng_t* file = rte_pcapng_fdopen(fd, nullptr, nullptr, "nfv-pod", nullptr);
    if (!file) throw std::runtime_error("capture_pcapng: cannot start pcapng in '" + path + "'");
    const std::string tag = std::to_string(port);
    rt.capture_ring = rte_ring_create(("cap_ring_" + tag).c_str(), kCaptureRingSize, static_cast<int>(rte_socket_id()), RING_F_SC_DEQ);
    rt.capture_pool = rte_pktmbuf_pool_create(("cap_pool_" + tag).c_str(), kCapturePoolSize, 256, 0,
                                              static_cast<uint16_t>(rte_pcapng_mbuf_size(kCaptureSnapLength)),
                                              static_cast<int>(rte_socket_id()));
    if (!rt.capture_ring || !rt.capture_pool)
      throw std::runtime_error("capture_pcapng: no memory for the capture of port " + tag + " (" + rte_strerror(rte_errno) + ")");
    files_.push_back({file, rt.capture_ring, rt.capture_pool});
  }

  void drain() {
    rte_mbuf* pkts[64];
    for (auto& f : files_) {
      unsigned n;
      while ((n = rte_ring_dequeue_burst(f.ring, reinterpret_cast<void**>(pkts), 64, nullptr)) > 0)
        rte_pcapng_write_packets(f.file, pkts, static_cast<uint16_t>(n));
    }
  }

  ~CaptureWriter() {
    drain();
    for (auto& f : files_) {
      rte_pcapng_close(f.file);
      rte_ring_free(f.ring);
      rte_mempool_free(f.pool);
    }
  }

 private:
  struct File {
    rte_pcapng_t* file;
    rte_ring* ring;
    rte_mempool* pool;
  };
  std::vector<File> files_;
};

// What serves the pod from outside; lives on the control thread.
struct Pod::Endpoints {
  boost::asio::io_context io;
  std::unique_ptr<ControlServer> control;
  std::unique_ptr<MetricsEndpoint> metrics;
  uint64_t last_telemetry_tsc = 0;
};

Pod::Pod(PodLayout layout) : runtime_(std::make_unique<PodRuntime>(std::move(layout))) {
  created_tsc_ = rte_rdtsc();
  for (const auto& link : runtime_->layout.links) link_params_.push_back(link.params);
  endpoints_ = std::make_unique<Endpoints>();
}

void Pod::start_endpoints() {
  const ControlSettings& c = runtime_->layout.control;
  // Harmless when EAL runs without its telemetry socket (--no-telemetry).
  register_telemetry_commands();
  if (!c.enabled) return;
  endpoints_->control = std::make_unique<ControlServer>(
      endpoints_->io, c.listen, c.port, c.max_frame_bytes, c.token,
      [this](const nfv::control::Request& r) { return handle_request(r); }, c.tls, "control.tls");
  spdlog::info("control API listening on {}:{}{}", c.listen, endpoints_->control->port(),
               endpoints_->control->tls() ? " (mutual TLS)" : "");
  if (c.metrics) {
    endpoints_->metrics = std::make_unique<MetricsEndpoint>(endpoints_->io, c.listen, c.metrics_port,
                                                            [this] { return prometheus_text(stats()); });
    spdlog::info("metrics on http://{}:{}/metrics", c.listen, endpoints_->metrics->port());
  }
}

uint16_t Pod::control_port() const { return endpoints_->control ? endpoints_->control->port() : 0; }
uint16_t Pod::metrics_port() const { return endpoints_->metrics ? endpoints_->metrics->port() : 0; }

// Serves requests as they come (or just sleeps) for one control period,
// then refreshes what rte_telemetry reads.
void Pod::wait_for_work(std::chrono::milliseconds period) {
  if (endpoints_->control || endpoints_->metrics) {
    endpoints_->io.restart();
    endpoints_->io.run_for(period);
  } else {
    std::this_thread::sleep_for(period);
  }
  const uint64_t now = rte_rdtsc();
  if (static_cast<double>(now - endpoints_->last_telemetry_tsc) / static_cast<double>(runtime_->clock.hz()) >= kTelemetryPublishS) {
    endpoints_->last_telemetry_tsc = now;
    publish_telemetry(std::make_shared<const nfv::stats::PodStats>(stats()));
  }
}

Pod::~Pod() {
  if (!closed_) close();
}

void Pod::start() {
  PodRuntime& pod = *runtime_;
  const PodLayout& layout = pod.layout;
  register_chain_meta_field();
  // Without it the VNFs check every frame's headers themselves (a few cycles more per hop).
  if (register_header_mark() == 0) spdlog::warn("cannot register the header mark mbuf flag; VNFs re-check headers");

  unsigned lcore;
  RTE_LCORE_FOREACH_WORKER(lcore) worker_lcores_.push_back(lcore);
  // Without worker lcores the main lcore forwards and control runs in a thread.
  if (worker_lcores_.empty()) worker_lcores_.push_back(rte_get_main_lcore());
  pod.worker_count = static_cast<int>(worker_lcores_.size());

  pool_ = rte_pktmbuf_pool_create(("pool_" + layout.name).substr(0, RTE_MEMPOOL_NAMESIZE - 1).c_str(), layout.mempool_mbufs,
                                  layout.mempool_cache, 0, RTE_MBUF_DEFAULT_BUF_SIZE, static_cast<int>(rte_socket_id()));
  if (!pool_)
    throw std::runtime_error(std::string("cannot create the mbuf pool (") + rte_strerror(rte_errno) +
                             "): reserve more hugepages or lower mempool.mbufs");

  for (const auto& port : layout.ports) {
    PortRuntime rt;
    rt.port_id = create_port_device(port);
    rt.poll_rx = !port.tx_only;
    pod.ports.push_back(rt);
  }
  capture_ = std::make_unique<CaptureWriter>();
  for (std::size_t p = 0; p < layout.ports.size(); ++p) {
    const PortInfo& port = layout.ports[p];
    start_port(pod.ports[p].port_id, port, static_cast<uint16_t>(pod.worker_count), pool_, layout.link_wait_ms);
    rte_eth_macaddr_get(pod.ports[p].port_id, &pod.ports[p].mac);
    if (!port.capture_pcapng.empty()) capture_->add(static_cast<int>(p), port.capture_pcapng, pod.ports[p]);
    spdlog::info("port {} ({}{}{}) up as ethdev {} at site {}", port.name, port.vdev_name.empty() ? "pci " : port.vdev_name,
                 port.devargs.empty() ? "" : " ", port.devargs, pod.ports[p].port_id, layout.sites[port.site].name);
  }

  // One instance pool per hop placement this pod runs; workers see them via
  // snapshots. Pools of a hop's placements are consecutive.
  pod.pools.resize(pod.index.pools());
  for (std::size_t c = 0; c < layout.chains.size(); ++c)
    for (std::size_t h = 0; h < layout.chains[c].hops.size(); ++h) {
      const HopInfo& hop = layout.chains[c].hops[h];
      split_shares_.push_back(hop.split);
      hop_stateful_.push_back(VnfRegistry::instance().stateful(hop.vnf));
      for (std::size_t k = 0; k < hop.sites.size(); ++k) {
        if (!layout.sites[hop.sites[k]].hosted) continue;
        const std::string name = layout.chains[c].name + "/" + std::to_string(h + 1) + "/" + hop.vnf + "@" + layout.sites[hop.sites[k]].name;
        try {
          pod.pools[pod.index(static_cast<int>(c), static_cast<int>(h), static_cast<int>(k))] =
              std::make_unique<InstancePool>(name, hop, hop.sites[k], hop.site_instances[k], pod.worker_count, pod.clock.hz());
        } catch (const VnfConfigError& e) {
          throw std::runtime_error("invalid config: chains[" + std::to_string(c) + "].hops[" + std::to_string(h) +
                                   "].params." + e.field() + ": " + e.what());
        }
      }
    }
  const std::size_t rcu_size = rte_rcu_qsbr_get_memsize(static_cast<uint32_t>(worker_lcores_.size()));
  pod.rcu = static_cast<rte_rcu_qsbr*>(rte_zmalloc("pod_rcu", rcu_size, RTE_CACHE_LINE_SIZE));
  if (!pod.rcu || rte_rcu_qsbr_init(pod.rcu, static_cast<uint32_t>(worker_lcores_.size())) != 0)
    throw std::runtime_error("cannot set up RCU for the workers");
  publish_snapshot();
  start_endpoints();

  std::vector<std::vector<int>> rx_by_worker(worker_lcores_.size());
  int next = 0;
  for (std::size_t p = 0; p < layout.ports.size(); ++p)
    if (pod.ports[p].poll_rx) rx_by_worker[next++ % worker_lcores_.size()].push_back(static_cast<int>(p));
  pod.start_tsc = rte_rdtsc();
  for (std::size_t w = 0; w < worker_lcores_.size(); ++w) {
    auto worker = std::make_unique<Worker>(static_cast<int>(w), pod, rx_by_worker[w]);
    worker->prepare();
    workers_.push_back(std::move(worker));
  }

  std::vector<uint16_t> ids;
  for (const auto& rt : pod.ports) ids.push_back(rt.port_id);
  const auto down = wait_for_links(ids, layout.ports, layout.link_wait_ms);
  for (const auto& name : down) spdlog::warn("port {} link still down after {} ms; forwarding anyway", name, layout.link_wait_ms);
  link_watch_ = std::make_unique<LinkWatch>(pod);
  guard_memif_unmaps(pod.rcu);
}

static PoolView build_site_split(const std::vector<double>& shares, bool stateful) {
  PoolView split;
  split.stateful = stateful;
  std::vector<MaglevBackend> backends;
  std::vector<uint16_t> placement_of;
  for (std::size_t k = 0; k < shares.size(); ++k) {
    split.state[k] = shares[k] > 0 ? InstanceState::kActive : InstanceState::kDraining;
    split.slots_in_use = static_cast<uint16_t>(k + 1);
    if (shares[k] <= 0) continue;
    // Stable keys (the placement's position) keep flows in place when only
    // the weights change.
    backends.push_back({k + 1, static_cast<uint32_t>(std::max(1.0, std::round(shares[k] * 10000)))});
    placement_of.push_back(static_cast<uint16_t>(k));
  }
  split.active = static_cast<uint16_t>(placement_of.size());
  if (backends.empty()) return split;  // plans and configs always give some placement a share
  split.maglev = build_maglev_table(backends);
  for (auto& entry : split.maglev) entry = placement_of[entry];
  return split;
}

void Pod::publish_snapshot() {
  PodRuntime& pod = *runtime_;
  auto* next = new RoutingSnapshot;
  next->version = ++snapshot_version_;
  next->pools.resize(pod.pools.size());
  for (std::size_t p = 0; p < pod.pools.size(); ++p)
    if (pod.pools[p]) next->pools[p] = pod.pools[p]->view();
  for (std::size_t h = 0; h < split_shares_.size(); ++h) next->splits.push_back(build_site_split(split_shares_[h], hop_stateful_[h]));
  for (const auto& params : link_params_)
    next->links.push_back(LinkSettings::from(params, pod.clock.hz(), 1.0 / pod.worker_count));
  const RoutingSnapshot* old = pod.snapshot.exchange(next, std::memory_order_acq_rel);
  // Every worker has passed a quiescent point after the swap: none still
  // reads the old snapshot (nor a slot it marked live and we now free).
  rte_rcu_qsbr_synchronize(pod.rcu, RTE_QSBR_THRID_INVALID);
  delete old;
}

std::string Pod::scale_now(const std::string& chain_name, int hop, int instances) {
  PodRuntime& pod = *runtime_;
  const int chain = [&] {
    for (std::size_t c = 0; c < pod.layout.chains.size(); ++c)
      if (pod.layout.chains[c].name == chain_name) return static_cast<int>(c);
    return kNoIndex;
  }();
  if (chain == kNoIndex) return "no chain named '" + chain_name + "'";
  const int hops = static_cast<int>(pod.layout.chains[chain].hops.size());
  if (hop < 1 || hop > hops) return "chain " + chain_name + " has hops 1.." + std::to_string(hops) + ", not " + std::to_string(hop);
  InstancePool* pool = pod.pool(chain, hop - 1, 0);
  if (!pool) return "hop " + std::to_string(hop) + " of " + chain_name + " runs at a site of another pod";
  std::string error;
  try {
    if (!pool->scale_to(instances, rte_rdtsc(), &error)) return error;
  } catch (const std::exception& e) {
    return e.what();
  }
  publish_snapshot();
  spdlog::info("{}: {} active, {} draining", pool->name(), pool->active(), pool->draining());
  return "";
}

void Pod::free_drained_instances() {
  PodRuntime& pod = *runtime_;
  for (std::size_t hop = 0; hop < pod.pools.size(); ++hop) {
    InstancePool* pool = pod.pools[hop].get();
    if (!pool || pool->draining() == 0) continue;
    std::vector<uint32_t> flows(kMaxInstancesPerPool, 0);
    for (const auto& w : workers_)
      if (const FlowAffinity* pins = w->affinity(static_cast<int>(hop)))
        for (int s = 0; s < kMaxInstancesPerPool; ++s) flows[s] += pins->flows_on(s);
    const auto done = pool->drained(flows, rte_rdtsc());
    if (done.empty()) continue;
    pool->mark_free(done);
    publish_snapshot();
    const auto leftovers = pool->destroy_freed(done);
    removed_with_instances_ += leftovers.size();
    for (rte_mbuf* m : leftovers) rte_pktmbuf_free(m);
    spdlog::info("{}: freed {} drained instance(s); {} active", pool->name(), done.size(), pool->active());
  }
}

void Pod::post(std::function<void()> command) {
  std::lock_guard<std::mutex> lock(commands_mutex_);
  commands_.push_back(std::move(command));
}

void Pod::run_commands() {
  std::vector<std::function<void()>> pending;
  {
    std::lock_guard<std::mutex> lock(commands_mutex_);
    pending.swap(commands_);
  }
  for (auto& command : pending) command();
}

std::future<std::string> Pod::scale(const std::string& chain, int hop, int instances) {
  auto promise = std::make_shared<std::promise<std::string>>();
  post([this, promise, chain, hop, instances] { promise->set_value(scale_now(chain, hop, instances)); });
  return promise->get_future();
}

std::future<nfv::control::Response> Pod::request_async(const nfv::control::Request& request) {
  auto promise = std::make_shared<std::promise<nfv::control::Response>>();
  post([this, promise, request] { promise->set_value(handle_request(request)); });
  return promise->get_future();
}

std::future<nfv::stats::PodStats> Pod::stats_async() {
  auto promise = std::make_shared<std::promise<nfv::stats::PodStats>>();
  post([this, promise] { promise->set_value(stats()); });
  return promise->get_future();
}

uint64_t Pod::packets_seen() const {
  uint64_t total = 0;
  for (const auto& w : workers_) total += __atomic_load_n(&w->counters().busy_packets, __ATOMIC_RELAXED);
  return total;
}

uint64_t Pod::packets_in_flight() const {
  uint64_t total = 0;
  for (const auto& w : workers_) total += __atomic_load_n(&w->counters().in_flight, __ATOMIC_RELAXED);
  return total;
}

void Pod::print_progress(double elapsed_s) const {
  uint64_t rx = 0, tx = 0;
  for (const auto& w : workers_)
    for (const auto& p : w->counters().ports) {
      rx += __atomic_load_n(&p.rx_packets, __ATOMIC_RELAXED);
      tx += __atomic_load_n(&p.tx_packets, __ATOMIC_RELAXED);
    }
  spdlog::info("{:.0f} s: rx {} tx {} in flight {}", elapsed_s, rx, tx, packets_in_flight());
}

void Pod::control_loop(const PodRunOptions& options, const std::atomic<bool>& stop_requested) {
  PodRuntime& pod = *runtime_;
  const double hz = static_cast<double>(pod.clock.hz());
  uint64_t last_seen = packets_seen();
  uint64_t last_change = rte_rdtsc();
  uint64_t last_progress = last_change;
  while (pod.state.load() == RunState::kForwarding) {
    wait_for_work(kControlPeriod);
    run_commands();
    free_drained_instances();
    capture_->drain();
    link_watch_->poll(std::chrono::steady_clock::now());
    const uint64_t now = rte_rdtsc();
    const double elapsed = static_cast<double>(now - forwarding_start_tsc_) / hz;
    const uint64_t seen = packets_seen();
    if (seen != last_seen || packets_in_flight() != 0) {
      last_seen = seen;
      last_change = now;
    }
    std::string reason;
    if (stop_requested.load()) reason = "signal";
    else if (options.run_for_s > 0 && elapsed >= options.run_for_s) reason = "run time reached";
    else if (options.stop_when_idle_ms && static_cast<double>(now - last_change) / hz * 1e3 >= options.stop_when_idle_ms)
      reason = "idle";
    if (!reason.empty()) {
      spdlog::info("stopping ({}): draining WAN links", reason);
      pod.state.store(RunState::kDraining);
    }
    if (options.stats_interval_s > 0 && static_cast<double>(now - last_progress) / hz >= options.stats_interval_s) {
      last_progress = now;
      print_progress(elapsed);
    }
  }
  // Keep writing captures (and answering) while the workers drain.
  while (pod.workers_running.load() > 0) {
    run_commands();
    capture_->drain();
    wait_for_work(kControlPeriod);
  }
  capture_->drain();
}

void Pod::run(const PodRunOptions& options, const std::atomic<bool>& stop_requested) {
  PodRuntime& pod = *runtime_;
  forwarding_start_tsc_ = rte_rdtsc();
  spdlog::info("forwarding on {} worker lcore(s)", workers_.size());
  const bool main_forwards = worker_lcores_.size() == 1 && worker_lcores_[0] == rte_get_main_lcore();
  // Counted before launch, so the control loop never sees zero too early.
  pod.workers_running.store(0);
  if (main_forwards) {
    std::thread control([&] { control_loop(options, stop_requested); });
    workers_[0]->run();
    control.join();
  } else {
    for (std::size_t w = 0; w < workers_.size(); ++w)
      rte_eal_remote_launch(launch_worker, workers_[w].get(), worker_lcores_[w]);
    // Wait (sleeping) until every worker has started, then run the control loop.
    while (pod.workers_running.load() < static_cast<int>(workers_.size()) && pod.state.load() == RunState::kForwarding)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    control_loop(options, stop_requested);
    rte_eal_mp_wait_lcore();  // workers have finished draining by now
  }
  forwarding_end_tsc_ = rte_rdtsc();
}

nfv::stats::PodStats Pod::stats() const {
  auto stats = collect_pod_stats(*runtime_, workers_, worker_lcores_, link_params_);
  const double hz = static_cast<double>(runtime_->clock.hz());
  const uint64_t now = rte_rdtsc();
  stats.set_uptime_s(static_cast<double>(now - created_tsc_) / hz);
  if (forwarding_start_tsc_)
    stats.set_forwarding_s(static_cast<double>((forwarding_end_tsc_ ? forwarding_end_tsc_ : now) - forwarding_start_tsc_) / hz);
  if (pool_) stats.set_mempool_size(pool_->size);
  if (pool_ && !closed_) stats.set_mempool_in_use(rte_mempool_in_use_count(pool_));
  add_site_stats(stats, runtime_->layout, static_cast<double>(runtime_->clock.hz()));
  stats.set_mempool_in_use_after_close(in_use_after_close_);
  return stats;
}

nfv::stats::PodStats Pod::close() {
  if (closed_) return stats();
  PodRuntime& pod = *runtime_;
  run_commands();  // answer what was asked while the workers drained
  auto final_stats = stats();  // while the ports still answer for their own counters
  guard_memif_unmaps(nullptr);  // the workers are done; the RCU goes below
  for (std::size_t p = 0; p < pod.ports.size(); ++p) close_port(pod.ports[p].port_id, pod.layout.ports[p]);
  capture_.reset();
  workers_.clear();
  pod.pools.clear();  // frees instance queues and whatever they still hold
  delete pod.snapshot.exchange(nullptr);
  rte_free(pod.rcu);
  pod.rcu = nullptr;
  if (pool_) in_use_after_close_ = rte_mempool_in_use_count(pool_);
  final_stats.set_mempool_in_use_after_close(in_use_after_close_);
  if (pool_) rte_mempool_free(pool_);
  pool_ = nullptr;
  closed_ = true;
  return final_stats;
}

}  // namespace nfv
