#include "memif_unmap_guard.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include <rte_rcu_qsbr.h>
#include <spdlog/spdlog.h>

namespace nfv {
namespace {

std::mutex guard_mutex;            // held while an unmap waits, so the RCU outlives the wait
rte_rcu_qsbr* guarded_rcu = nullptr;
thread_local bool on_worker_thread = false;
std::atomic<bool> engaged_once{false};

bool called_from_memif_driver(const void* return_address) {
  Dl_info info{};
  return dladdr(return_address, &info) != 0 && info.dli_fname && std::strstr(info.dli_fname, "rte_net_memif");
}

}  // namespace

void guard_memif_unmaps(rte_rcu_qsbr* workers) {
  std::lock_guard<std::mutex> lock(guard_mutex);
  guarded_rcu = workers;
}

MemifGuardWorkerThread::MemifGuardWorkerThread() { on_worker_thread = true; }
MemifGuardWorkerThread::~MemifGuardWorkerThread() { on_worker_thread = false; }

namespace {

// The interrupt or control thread's turn: wait until every worker has left
// the rings being unmapped.
void wait_for_workers() {
  std::lock_guard<std::mutex> lock(guard_mutex);
  if (!guarded_rcu) return;
  if (!engaged_once.exchange(true))
    spdlog::info("memif: a peer hung up; its shared memory is unmapped once every worker has left its rings");
  rte_rcu_qsbr_synchronize(guarded_rcu, RTE_QSBR_THRID_INVALID);
}

}  // namespace

}  // namespace nfv

// Exported from the executable (meson: --export-dynamic-symbol=munmap), so
// the memif driver's calls land here; everything else goes straight on.
extern "C" int munmap(void* addr, size_t length) {
  // A worker thread never waits: it would wait for itself (and the driver
  // never unmaps from one).
  if (!nfv::on_worker_thread && nfv::called_from_memif_driver(__builtin_return_address(0))) nfv::wait_for_workers();
  return static_cast<int>(syscall(SYS_munmap, addr, length));
}
