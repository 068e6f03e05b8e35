#include "in_process_pod.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "config_loader.h"
#include "packet_builder.h"

namespace nfv::test {

void run_in_process_pod(const std::string& config_yaml, const std::function<void(Pod&, rte_mempool*)>& drive) {
  LoadedConfig loaded = parse_pod_config(config_yaml, "in_process.yaml");
  Pod pod(build_pod_layout(loaded.config));
  pod.start();
  rte_mempool* frames = test_pool("in_process_gen", 16383);
  std::atomic<bool> stop{false};
  std::thread driver([&] {
    drive(pod, frames);
    stop = true;
  });
  pod.run(PodRunOptions{0, 0, 0}, stop);
  driver.join();
  const auto final_stats = pod.close();
  EXPECT_EQ(final_stats.mempool_in_use_after_close(), 0);
  EXPECT_EQ(rte_mempool_in_use_count(frames), 0u) << "generated frames not all freed";
  rte_mempool_free(frames);
}

void expect_all_delivered(const nfv::stats::PodStats& stats, uint64_t sent) {
  EXPECT_EQ(stats.hops(0).flows_moved(), 0u);
  EXPECT_EQ(stats.hops(0).queue_full(), 0u);
  EXPECT_EQ(stats.chains(0).in_packets(), sent);
  EXPECT_EQ(stats.chains(0).out_packets(), sent) << "packets lost during scaling";
  EXPECT_EQ(stats.drops_size(), 0);
}

}  // namespace nfv::test
