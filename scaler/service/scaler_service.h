// nfv-scaler (docs/scaler.md): the slot loop (slot_loop.h) against the
// simulator or real pods, with the forecast of the config, the decision
// journal, the control API and metrics. On any failure (the policy throws,
// the plan is invalid, a pod refuses it) the last good plan stays in force,
// never zero instances. The policy can be switched while it runs (control
// API set_policy, or SIGHUP re-reading the config's policy): the new one
// decides from the next slot on.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "control.pb.h"
#include "journal.h"
#include "metric_info.h"
#include "scaler_setup.h"
#include "slot_loop.h"

namespace nfv {

// Every metric ScalerService::metrics() exports (nfv-scaler --list-metrics).
std::vector<MetricInfo> scaler_metrics();

class ScalerService {
 public:
  // Resumes from the journal when it has entries (the policy, its state and
  // the plan in force; the simulator re-runs the journaled slots).
  explicit ScalerService(ScalerSetup setup);
  ~ScalerService();

  // Runs slots until the backend is done, `slots` (config) are decided, or
  // `stop` is set. `on_slot` sees each journal entry (the live line).
  void run(const std::atomic<bool>& stop, const std::function<void(const scaler::JournalEntry&)>& on_slot = {});

  // Thread-safe: the control API calls it from its io thread and, for
  // set_policy, from a thread of its own.
  control::Response handle(const control::Request& request);
  std::string metrics() const;
  // Checks the choice now (throws std::invalid_argument naming the problem);
  // it takes effect at the next slot.
  void request_policy(const scaler::PolicyChoice& choice);

  std::uint64_t next_slot() const;
  const ScalerSetup& setup() const { return setup_; }
  std::size_t resumed_entries() const { return resumed_; }

 private:
  Plan to_plan(const google::protobuf::RepeatedPtrField<planfile::PoolEntry>& entries) const;
  void to_entries(const Plan& plan, google::protobuf::RepeatedPtrField<planfile::PoolEntry>* entries) const;
  scaler::JournalEntry journal_entry(const SlotRecord& record) const;

  ScalerSetup setup_;
  std::unique_ptr<SlotLoop> loop_;
  std::unique_ptr<Journal> journal_;
  std::size_t resumed_ = 0;

  mutable std::mutex mutex_;  // guards what the control thread reads or sets below
  scaler::PolicyChoice choice_;
  std::optional<scaler::PolicyChoice> pending_;
  std::uint64_t policy_requests_ = 0;  // so far: tells a request made during a build from the one built
  std::uint64_t slot_ = 0;
  std::uint64_t decisions_ = 0, kept_last_plan_ = 0, apply_failures_ = 0;
  std::uint64_t guard_fallbacks_ = 0;  // slots a learning policy's guard took over, over every policy run
  double last_decision_ms_ = 0;
  std::string last_reason_, last_error_;
  std::vector<double> instances_per_site_;
  std::vector<std::uint8_t> site_up_;  // per site, as the last slot ended
  CostBreakdown cost_so_far_;
  double dropped_total_ = 0, delivered_total_ = 0, late_total_ = 0;
};

}  // namespace nfv
