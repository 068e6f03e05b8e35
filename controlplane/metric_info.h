// One exported Prometheus metric: name, type and help text. Exporters list
// theirs (nfv-pod --list-metrics, nfv-scaler --list-metrics) so dashboards
// can be checked against what the code exports.
#pragma once

namespace nfv {

struct MetricInfo {
  const char* name;
  const char* type;
  const char* help;
};

}  // namespace nfv
