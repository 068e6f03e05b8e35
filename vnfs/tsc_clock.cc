#include "tsc_clock.h"

#include <rte_cycles.h>

namespace nfv {

uint64_t hardware_tsc() { return rte_rdtsc(); }

}  // namespace nfv
