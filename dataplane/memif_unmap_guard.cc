#include "memif_unmap_guard.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include <rte_lcore.h>
#include <rte_rcu_qsbr.h>

namespace nfv {
namespace {

std::mutex guard_mutex;            // held while an unmap waits, so the RCU outlives the wait
rte_rcu_qsbr* guarded_rcu = nullptr;

bool called_from_memif_driver(const void* return_address) {
  Dl_info info{};
  return dladdr(return_address, &info) != 0 && info.dli_fname && std::strstr(info.dli_fname, "rte_net_memif");
}

}  // namespace

void guard_memif_unmaps(rte_rcu_qsbr* workers) {
  std::lock_guard<std::mutex> lock(guard_mutex);
  guarded_rcu = workers;
}

}  // namespace nfv

// Exported from the executable (meson: --export-dynamic-symbol=munmap), so
// the memif driver's calls land here; everything else goes straight on.
extern "C" int munmap(void* addr, size_t length) {
  // Only the interrupt and control threads wait: a worker lcore waiting for
  // itself would never return (and the driver never unmaps from one).
  const unsigned lcore = rte_lcore_id();
  if ((lcore == LCORE_ID_ANY || lcore == rte_get_main_lcore()) && nfv::called_from_memif_driver(__builtin_return_address(0))) {
    std::lock_guard<std::mutex> lock(nfv::guard_mutex);
    if (nfv::guarded_rcu) rte_rcu_qsbr_synchronize(nfv::guarded_rcu, RTE_QSBR_THRID_INVALID);
  }
  return static_cast<int>(syscall(SYS_munmap, addr, length));
}
