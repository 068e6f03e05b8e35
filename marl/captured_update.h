// One training iteration as a CUDA graph: StaticUpdate's work captured once
// and replayed, so an iteration costs one graph launch instead of some
// hundreds of kernel launches and the host syncs of update(). Built only
// when the LibTorch found has CUDA (marl/meson.build defines
// NFV_CUDA_GRAPHS for whoever links it); this header has no CUDA types.
#pragma once

#include <memory>

#include "decentralized_actor_critic.h"

namespace nfv {

class StaticUpdate;

class CapturedUpdate {
 public:
  // Warms `update` up on a side stream (`warmup` runs: autograd's and
  // cuBLAS's first-use work must not be captured), captures one run, then
  // puts the learner's parameters and counts back as they were, so the
  // warm-up changes nothing. `update` must be on CUDA and outlive this.
  // Throws std::invalid_argument for a CPU learner.
  explicit CapturedUpdate(StaticUpdate& update, int warmup = 3);
  ~CapturedUpdate();
  CapturedUpdate(const CapturedUpdate&) = delete;
  CapturedUpdate& operator=(const CapturedUpdate&) = delete;

  // One iteration on the rollout loaded in `update` (StaticUpdate::load
  // puts a new one in the same buffers): the graph replayed on the current
  // stream, the learner's counts moved on. Returns without waiting.
  void replay();
  // replay() and its statistics (waits for the device).
  IterationStats update();

 private:
  struct Graph;
  StaticUpdate& update_;
  std::unique_ptr<Graph> graph_;
};

}  // namespace nfv
