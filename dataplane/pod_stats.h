// Sums the workers' counters into the PodStats message (proto/pod_stats.proto)
// and renders it for humans.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pod_runtime.h"
#include "pod_stats.pb.h"
#include "worker.h"

namespace nfv {

nfv::stats::PodStats collect_pod_stats(const PodRuntime& pod, const std::vector<std::unique_ptr<Worker>>& workers,
                                       const std::vector<unsigned>& worker_lcores);

std::string format_pod_stats(const nfv::stats::PodStats& stats);
std::string pod_stats_json(const nfv::stats::PodStats& stats);

}  // namespace nfv
