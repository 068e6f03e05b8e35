#include "header_mark.h"

#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>

namespace nfv {

uint64_t g_header_mark = 0;

uint64_t register_header_mark() {
  // Registration needs the EAL's shared memory: before rte_eal_init there
  // is none, and no mark (nothing is marked, so nothing is trusted).
  static bool attempted = false;
  if (attempted || rte_lcore_count() == 0) return g_header_mark;
  // One attempt only: a mark that appeared after the pod's workers found
  // none would be trusted by new VNFs but never cleared by the workers.
  attempted = true;
  static const rte_mbuf_dynflag descriptor = {"geo_nfv_plain_ipv4_checked", 0};
  const int bit = rte_mbuf_dynflag_register(&descriptor);
  if (bit >= 0) g_header_mark = 1ull << bit;
  return g_header_mark;
}

}  // namespace nfv
