// Reading a running pod from a test, so tests wait on what the pod did rather
// than on the clock: the ports it logged, and its live counters over its
// control API (reads need no token).
#pragma once

#include <string>

#include "pod_runner.h"

namespace nfv::test {

// The port the pod logged after `what` (e.g. "control API listening on",
// "metrics on http://"), once it also logged "forwarding on"; -1 after 10 s.
int logged_port(const PodRun& pod, const std::string& what);

// The pod's counters so far (its telemetry) over its control API at
// 127.0.0.1:`control_port`; fails the test (and returns an empty message)
// when the pod does not answer. chain_stats() and drops() read them.
nfv::stats::PodStats live_stats(int control_port);

}  // namespace nfv::test
