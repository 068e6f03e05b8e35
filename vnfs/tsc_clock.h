// A VNF's time source, in TSC cycles at rte_get_tsc_hz(): the CPU's counter
// on the data path, a clock the test advances by hand in tests. A plain
// function pointer, read once per burst, keeps the data path's read cheap.
#pragma once

#include <cstdint>

namespace nfv {

using TscClock = uint64_t (*)();

// rte_rdtsc(): what every instance reads unless its settings name another clock.
uint64_t hardware_tsc();

}  // namespace nfv
