// Runs a piece of port control on DPDK's interrupt thread. The memif
// driver handles its peers' messages there (a hang-up disconnects the port
// and frees its rings); stopping, starting or closing the same port from
// another thread at that moment races with it (a double free, seen as a pod
// crashing at shutdown as its peers went too). An EAL alarm runs its
// callback on that thread, so work sent this way runs between the driver's
// handlers, never beside one.
#pragma once

#include <functional>

namespace nfv {

// Runs `work` on the interrupt thread and returns once it has run; on that
// thread, or where no EAL alarm can be set, it runs here. Never call it from
// a worker (the thread's memif unmaps wait for the workers: a deadlock) or
// after park_interrupt_thread (it would wait for good).
void run_on_interrupt_thread(const std::function<void()>& work);

// Leaves the interrupt thread waiting, for good, in a callback of ours:
// rte_eal_cleanup unmaps the memory that the handles of the memif driver's
// listener sockets live in (the driver never unregisters them), and a
// wake-up of that thread meanwhile walks them (a crash at exit). Call it
// after the last port is closed, just before rte_eal_cleanup.
void park_interrupt_thread();

}  // namespace nfv
