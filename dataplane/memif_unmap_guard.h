// DPDK's memif driver unmaps a connection's shared memory from its interrupt
// thread as soon as the peer hangs up, while a worker may still be inside
// rx/tx on those rings: a killed peer could crash a surviving pod (or
// nfv-replay). Both interpose munmap for calls from the memif driver and let
// them proceed only once every polling thread has passed a quiescent point
// (the driver clears its "connected" flag first, so no new burst starts on
// the old rings).
#pragma once

struct rte_rcu_qsbr;

namespace nfv {

// The workers' RCU that memif unmaps wait for; nullptr: wait for nothing
// (before the workers exist and after the pod has closed).
void guard_memif_unmaps(rte_rcu_qsbr* workers);

// Marks the calling thread as a worker while it lives: an unmap there goes
// straight on (a worker waiting for its own quiescent point never returns).
// Per thread, not per lcore: with `-l 0` the worker is the main lcore.
class MemifGuardWorkerThread {
 public:
  MemifGuardWorkerThread();
  ~MemifGuardWorkerThread();
  MemifGuardWorkerThread(const MemifGuardWorkerThread&) = delete;
  MemifGuardWorkerThread& operator=(const MemifGuardWorkerThread&) = delete;
};

}  // namespace nfv
