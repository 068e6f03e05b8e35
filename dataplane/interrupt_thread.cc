#include "interrupt_thread.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_interrupts.h>
#include <spdlog/spdlog.h>

namespace nfv {
namespace {

struct Call {
  std::function<void()> work;
  std::atomic<bool> done{false};
};

void run_call(void* arg) {
  auto* call = static_cast<Call*>(arg);
  call->work();
  call->done.store(true, std::memory_order_release);
}

void park(void* arg) {
  static_cast<std::atomic<bool>*>(arg)->store(true, std::memory_order_release);
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // until the process exits
}

// Polls `flag` until it is set, noting every 5 s that it still waits for `what`.
void wait_for_flag(const std::atomic<bool>& flag, const char* what) {
  // The interrupt thread always gets to it: its handlers never block for long
  // (a memif unmap waits only for the workers' next quiescent point).
  auto next_note = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!flag.load(std::memory_order_acquire)) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (std::chrono::steady_clock::now() >= next_note) {
      spdlog::warn("{}: still waiting for DPDK's interrupt thread", what);
      next_note += std::chrono::seconds(5);
    }
  }
}

}  // namespace

void run_on_interrupt_thread(const std::function<void()>& work) {
  if (rte_thread_is_intr()) {
    work();
    return;
  }
  Call call;  // lives until the callback is done: the wait below has no way out
  call.work = work;
  if (rte_eal_alarm_set(1, run_call, &call) != 0) {
    // The alarm may be queued even so (its timer failed): take it back, or
    // wait for it if it runs already, before `call` goes out of scope.
    rte_eal_alarm_cancel(run_call, &call);
    if (call.done.load(std::memory_order_acquire)) return;
    spdlog::warn("port control: no EAL alarm, run on the calling thread");
    work();
    return;
  }
  wait_for_flag(call.done, "port control");
}

void park_interrupt_thread() {
  if (rte_thread_is_intr()) return;
  // Not through an alarm: rte_eal_cleanup waits for the alarm's callback to
  // end. A source of our own, an eventfd made readable, is one nobody else
  // unregisters; its handle, fd and flag are kept for good.
  static std::atomic<bool> parked{false};
  if (parked.load()) return;
  rte_intr_handle* handle = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
  const int fd = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);  // readable from the start
  if (!handle || fd < 0 || rte_intr_type_set(handle, RTE_INTR_HANDLE_EXT) != 0 || rte_intr_fd_set(handle, fd) != 0 ||
      rte_intr_callback_register(handle, park, &parked) != 0) {
    spdlog::warn("interrupt thread: not parked before the EAL's cleanup (no interrupt source of our own)");
    if (fd >= 0) close(fd);
    rte_intr_instance_free(handle);
    return;
  }
  wait_for_flag(parked, "parking");
}

}  // namespace nfv
