#include "captured_update.h"

#include <stdexcept>

#include <ATen/cuda/CUDAGraph.h>
#include <c10/core/StreamGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>

#include "static_update.h"

namespace nfv {

struct CapturedUpdate::Graph {
  at::cuda::CUDAGraph graph;
  GossipTraffic traffic_per_run;  // what one run() adds, counted on the host
};

namespace {

GossipTraffic difference(const GossipTraffic& after, const GossipTraffic& before) {
  return {after.rounds - before.rounds, after.messages - before.messages, after.bytes - before.bytes};
}

}  // namespace

CapturedUpdate::CapturedUpdate(StaticUpdate& update, int warmup) : update_(update), graph_(std::make_unique<Graph>()) {
  if (!update.device().is_cuda()) throw std::invalid_argument("marl: device: a CUDA graph needs the learner on cuda, it is on cpu");
  const LearnerTensors& n = update.tensors();
  const UpdateBookkeeping before = update.bookkeeping();
  torch::Tensor critic, actor;
  {
    torch::NoGradGuard no_grad;
    critic = n.critic.parameters();
    actor = n.actor.parameters();
  }
  torch::cuda::synchronize();
  // Capture needs a stream other than the default one; warming up on it too
  // lets the caching allocator and cuBLAS settle there first. The generic
  // guard and torch::cuda::synchronize go through LibTorch's libraries:
  // c10/cuda's inline ones would call the CUDA runtime from here, which
  // would then have to be linked too.
  const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  {
    const c10::StreamGuard on_side(side);
    update.run();
    graph_->traffic_per_run = difference(update.bookkeeping().traffic, before.traffic);
    for (int i = 1; i < warmup; ++i) update.run();
    torch::cuda::synchronize();
    graph_->graph.capture_begin();
    update.work();
    graph_->graph.capture_end();
    torch::cuda::synchronize();
  }
  // The warm-up was real training: undo it, so that replay k is update k.
  {
    torch::NoGradGuard no_grad;
    n.critic.set_parameters(critic);
    n.actor.set_parameters(actor);
  }
  torch::cuda::synchronize();
  update.set_bookkeeping(before);
}

CapturedUpdate::~CapturedUpdate() = default;

void CapturedUpdate::replay() {
  graph_->graph.replay();
  UpdateBookkeeping counts = update_.bookkeeping();
  ++counts.iterations;
  counts.traffic.rounds += graph_->traffic_per_run.rounds;
  counts.traffic.messages += graph_->traffic_per_run.messages;
  counts.traffic.bytes += graph_->traffic_per_run.bytes;
  update_.set_bookkeeping(counts);
}

IterationStats CapturedUpdate::update() {
  replay();
  return update_.stats();
}

}  // namespace nfv
