// Sums the workers' counters and the instance pools into the PodStats
// message (proto/pod_stats.proto). Rendering is in proto/pod_stats_format.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pod_runtime.h"
#include "pod_stats.pb.h"
#include "pod_stats_format.h"
#include "worker.h"

namespace nfv {

// `link_params` are the links' parameters in force (set_link may have
// changed them since the config was read).
nfv::stats::PodStats collect_pod_stats(const PodRuntime& pod, const std::vector<std::unique_ptr<Worker>>& workers,
                                       const std::vector<unsigned>& worker_lcores,
                                       const std::vector<WanLinkParams>& link_params);

// Busy fractions of instances (over forwarding_s) and the per-site sums;
// call once forwarding_s is set.
void add_site_stats(nfv::stats::PodStats& stats, const PodLayout& layout, double tsc_hz);

}  // namespace nfv
