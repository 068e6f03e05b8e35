// The one mapping from a trace onto the emulation: time (trace step -> slot
// -> wall seconds) and volume (Mbit/s or req/s -> packets/s x scale).
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "rate_trace.h"

namespace nfv {

std::size_t EmulationScale::slot_of_wall_seconds(double wall_seconds) const {
  if (wall_seconds < 0) throw std::invalid_argument("slot_of_wall_seconds: negative time");
  return static_cast<std::size_t>(std::floor(wall_seconds / slot_wall_seconds));
}

double EmulationScale::real_packets_per_s_per_unit(RateUnit unit) const {
  switch (unit) {
    case RateUnit::mbit_per_s: return 1e6 / 8.0 / mean_packet_bytes;
    case RateUnit::requests_per_s: return bytes_per_request / mean_packet_bytes;
    case RateUnit::packets_per_s: return 1.0;
  }
  return 0;
}

double EmulationScale::emulated_packets_per_s(double rate, RateUnit unit) const {
  return rate * real_packets_per_s_per_unit(unit) * volume_scale;
}

std::string EmulationScale::describe(RateUnit unit) const {
  char text[256];
  const double real = real_packets_per_s_per_unit(unit);
  int used = std::snprintf(text, sizeof text, "1 trace step (%g s) = 1 slot = %.1f s wall; 1 %s = %.2f pkt/s",
                           trace_step_seconds, slot_wall_seconds, unit_name(unit).c_str(), real);
  if (unit == RateUnit::mbit_per_s)
    used += std::snprintf(text + used, sizeof text - used, " at %g B", mean_packet_bytes);
  else if (unit == RateUnit::requests_per_s)
    used += std::snprintf(text + used, sizeof text - used, " at %g B per request in %g B packets", bytes_per_request,
                          mean_packet_bytes);
  std::snprintf(text + used, sizeof text - used, " x scale %g = %.4g pkt/s emulated", volume_scale,
                emulated_packets_per_s(1.0, unit));
  return text;
}

}  // namespace nfv
