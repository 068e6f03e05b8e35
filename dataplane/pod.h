// An nfv-pod: one DPDK primary process hosting one or more sites. Owns the
// mempool, the ports, the workers and the control loop around them.
//
//   Pod pod(layout);      // control thread, after rte_eal_init
//   pod.start();          // mempool, ports, VNF instances, wait for links
//   pod.run(options, stop_flag);  // forward until stopped, then drain
//   auto stats = pod.close();     // stop and close ports, check the mempool
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "control.pb.h"
#include "link_watch.h"
#include "pod_layout.h"
#include "pod_runtime.h"
#include "pod_stats.pb.h"
#include "worker.h"

struct rte_mempool;

namespace nfv {

struct PodRunOptions {
  double run_for_s = 0;            // 0: until stopped
  uint32_t stop_when_idle_ms = 0;  // 0: never; else stop once nothing moved for this long
  double stats_interval_s = 10;    // progress line period; 0: none
};

class Pod {
 public:
  explicit Pod(PodLayout layout);
  ~Pod();

  void start();
  void run(const PodRunOptions& options, const std::atomic<bool>& stop_requested);
  nfv::stats::PodStats close();
  // Control thread (or after run() returned).
  nfv::stats::PodStats stats() const;

  // Requests from other threads, carried out by the control loop (so pools
  // and snapshots are only ever changed on the control thread). The future
  // holds "" on success, else the reason.
  std::future<std::string> scale(const std::string& chain, int hop, int instances);
  std::future<nfv::stats::PodStats> stats_async();
  std::future<nfv::control::Response> request_async(const nfv::control::Request& request);

  // The control API's requests, answered on the control thread.
  nfv::control::Response handle_request(const nfv::control::Request& request);
  // Ports the control API and the metrics endpoint listen on (0 when off).
  uint16_t control_port() const;
  uint16_t metrics_port() const;

  PodRuntime& runtime() { return *runtime_; }
  Worker& worker(int i) { return *workers_[i]; }

 private:
  class CaptureWriter;
  struct Endpoints;  // control API, metrics, rte_telemetry (Boost.Asio stays out of this header)
  void control_loop(const PodRunOptions& options, const std::atomic<bool>& stop_requested);
  void post(std::function<void()> command);
  void run_commands();
  std::string scale_now(const std::string& chain, int hop, int instances);
  nfv::control::Status status() const;
  std::string apply_plan(const nfv::control::ApplyPlanRequest& plan);
  std::string set_link(const nfv::control::SetLinkRequest& request);
  std::string drain(const nfv::control::DrainRequest& request);
  int find_hop(const std::string& chain, uint32_t hop, std::string* error) const;
  // The pool of a hop at a site (empty site: the hop's first placement).
  InstancePool* find_pool(const std::string& chain, uint32_t hop, const std::string& site, std::string* error) const;
  void start_endpoints();
  void wait_for_work(std::chrono::milliseconds period);
  void publish_snapshot();
  void free_drained_instances();
  uint64_t packets_seen() const;
  uint64_t packets_in_flight() const;
  void print_progress(double elapsed_s) const;

  std::unique_ptr<PodRuntime> runtime_;
  rte_mempool* pool_ = nullptr;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<unsigned> worker_lcores_;
  std::unique_ptr<CaptureWriter> capture_;
  std::unique_ptr<LinkWatch> link_watch_;  // null until start() has the links
  uint64_t created_tsc_ = 0;
  uint64_t forwarding_start_tsc_ = 0;
  uint64_t forwarding_end_tsc_ = 0;
  bool closed_ = false;
  int64_t in_use_after_close_ = -1;
  uint64_t snapshot_version_ = 0;
  uint64_t removed_with_instances_ = 0;  // mbufs found in the queue of a freed instance
  std::vector<WanLinkParams> link_params_;  // in force; changed by set_link
  std::vector<std::vector<double>> split_shares_;  // by flat hop: share per placement, changed by plans
  std::vector<bool> hop_stateful_;                 // by flat hop: its VNF keeps flow state
  std::unique_ptr<Endpoints> endpoints_;
  std::mutex commands_mutex_;            // control path only, never taken by workers
  std::vector<std::function<void()>> commands_;
};

}  // namespace nfv
