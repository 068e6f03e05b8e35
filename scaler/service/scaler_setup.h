// nfv-scaler's configuration (proto/scaler.proto) read and turned into what
// the slot loop needs: the system model (topology, calibration, chains, the
// cost model's prices), the simulator backend's arrivals, the forecast,
// the slot clock and per-site limits.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrival_schedule.h"
#include "forecaster.h"
#include "scaler.pb.h"
#include "site_limits.h"
#include "system_model.h"
#include "tls_config.h"
#include "yaml_message.h"

namespace nfv {

struct ScalerSetup {
  scaler::ScalerConfig config;
  YamlSource source;
  std::shared_ptr<const SystemModel> model;
  std::shared_ptr<const ArrivalSchedule> arrivals;  // the trace's rows run
  std::shared_ptr<const ArrivalSchedule> history;   // the trace's rows just before them, for the forecaster's warm-up
  std::vector<std::string> notes;                   // calibration overrides, the mapping: for the header
  SiteLimits limits;                                // per site; max 0 = the site's capacity
  TraceMapping mapping;                             // slots and packets/s onto the trace (or the wall clock)
  ForecastSpec forecast;                            // config.forecast as a forecaster's spec
  double start_unix_s = 0;                          // the slot clock's slot 0; 0 = when the scaler starts
};

// Reads and checks the file; errors "file:line: field: expected ...".
ScalerSetup load_scaler_setup(const std::string& path);
ScalerSetup parse_scaler_setup(const std::string& text, const std::string& file_name);
// Slot k runs from `start_unix_s` + k x slot_seconds (the config's start_unix_s, replaced).
void set_slot_clock(ScalerSetup& setup, double start_unix_s);

}  // namespace nfv
