// Operator limits on the instances each site runs, applied to every plan
// before it goes out, whatever the policy decided.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "plan.h"
#include "topology.h"

namespace nfv {

struct SiteLimits {
  std::vector<double> min, max;  // per site (empty: none); max 0 = the site's capacity
  // Per site: 1 when it is down (its pod does not answer): no capacity at
  // all, whatever min and max say. Empty: every site is up.
  std::vector<std::uint8_t> down;
  // Whether a pool of (chain, 0-based hop, site) can run at all (the pods'
  // placements); empty: any. A hop leaving a down site goes only where it can.
  std::function<bool(std::size_t chain, std::size_t hop, std::size_t site)> runs_pool;
};

// Pools at a down site move to the sites that remain: to the hop's pools at
// sites up (split and instances by their shares), or, when the hop has none,
// to the site up with the least added delay that keeps the chain within its
// SLA and can run it. A hop with no such site stays where it was (nothing
// can serve it).
// Down sites' minimums are dropped. Then, over a site's maximum its largest
// pool loses an instance at a time (never below one); under its minimum the
// largest gains. Returns what changed, in
// words, for the decision's reason (empty: nothing). Throws
// std::runtime_error when a site's pools cannot shrink to its maximum.
std::string enforce_site_limits(Plan& plan, const Topology& topology, const SiteLimits& limits);

}  // namespace nfv
