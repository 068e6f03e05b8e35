// Great-circle distances between sites and the propagation delay they imply.
#pragma once

namespace nfv {

// Light in fibre covers about 200 km per millisecond.
inline constexpr double kFibreKmPerMs = 200.0;
inline constexpr double kEarthRadiusKm = 6371.0;

// Haversine distance in km between two points given in degrees.
double great_circle_km(double lat1_deg, double lon1_deg, double lat2_deg, double lon2_deg);

// One-way propagation delay of a fibre path route_factor times longer than
// the great circle (real routes are typically 1.2-2x longer).
double propagation_delay_ms(double great_circle_km, double route_factor);

}  // namespace nfv
