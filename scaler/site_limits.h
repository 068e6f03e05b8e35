// Operator limits on the instances each site runs, applied to every plan
// before it goes out, whatever the policy decided.
#pragma once

#include <string>
#include <vector>

#include "plan.h"
#include "topology.h"

namespace nfv {

struct SiteLimits {
  std::vector<double> min, max;  // per site (empty: none); max 0 = the site's capacity
};

// Over a site's maximum its largest pool loses an instance at a time (never
// below one); under its minimum the largest gains. Returns what changed, in
// words, for the decision's reason (empty: nothing). Throws
// std::runtime_error when a site's pools cannot shrink to its maximum.
std::string enforce_site_limits(Plan& plan, const Topology& topology, const SiteLimits& limits);

}  // namespace nfv
