// A pod run inside the test process (EAL's worker lcore forwards) while a
// driver thread feeds it and asks it for scale changes and counters: the
// harness of the live-scaling tests.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <rte_mempool.h>

#include "pod.h"

namespace nfv::test {

// Starts a pod on `config_yaml`, runs `drive(pod, frame_pool)` on a thread
// until it returns, stops and closes the pod, and checks that every mbuf of
// the pod's pool and of the frame pool was freed.
void run_in_process_pod(const std::string& config_yaml, const std::function<void(Pod&, rte_mempool*)>& drive);

// Chain 0 delivered every one of `sent` packets: none dropped, none moved
// off its instance (hop 0's pool).
void expect_all_delivered(const nfv::stats::PodStats& stats, uint64_t sent);

}  // namespace nfv::test
