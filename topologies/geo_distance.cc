#include "geo_distance.h"

#include <cmath>
#include <numbers>

namespace nfv {

double great_circle_km(double lat1_deg, double lon1_deg, double lat2_deg, double lon2_deg) {
  const double to_rad = std::numbers::pi / 180.0;
  const double dlat = (lat2_deg - lat1_deg) * to_rad;
  const double dlon = (lon2_deg - lon1_deg) * to_rad;
  const double a = std::sin(dlat / 2) * std::sin(dlat / 2) +
                   std::cos(lat1_deg * to_rad) * std::cos(lat2_deg * to_rad) *
                       std::sin(dlon / 2) * std::sin(dlon / 2);
  return 2.0 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(a)));
}

double propagation_delay_ms(double great_circle_km, double route_factor) {
  return great_circle_km * route_factor / kFibreKmPerMs;
}

}  // namespace nfv
