// Plans written in YAML (proto/plan.proto): a fixed plan for the static
// policy, e.g. the plan real pods were configured with, so that nfv-sim can
// be compared with them slot by slot.
#pragma once

#include <string>

#include "plan.h"
#include "topology.h"

namespace nfv {

// Reads the file; chain and site names are `topology`'s, hops 1-based.
// Throws "file:line: field: expected ..." naming an unknown chain or site, a
// hop out of range, negative instances, or a plan the validator rejects.
Plan load_plan_file(const std::string& path, const Topology& topology);
// Same, from text named `file_name` in errors.
Plan parse_plan_file(const std::string& text, const std::string& file_name, const Topology& topology);

}  // namespace nfv
