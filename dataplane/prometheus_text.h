// The pod's counters in the Prometheus text exposition format (0.0.4),
// rendered from the same PodStats the control API and rte_telemetry serve.
#pragma once

#include <string>
#include <vector>

#include "metric_info.h"
#include "pod_stats.pb.h"

namespace nfv {

std::string prometheus_text(const nfv::stats::PodStats& stats);

// Every metric prometheus_text() may export (nfv-pod --list-metrics;
// dashboards are checked against it).
std::vector<MetricInfo> pod_metrics();

}  // namespace nfv
