// Gossip among the agents: one round replaces every agent's vector by the
// mixing-matrix-weighted sum of its own and its neighbours', x <- W x, on
// a stacked [N, ...] tensor; t rounds apply it t times. Each round is
// counted as the messages the agents would send: one per directed edge,
// each a float32 vector of the per-agent size. The links of a stacked run:
// every agent is held here, so actions need no exchange.
// Included only by the module's LibTorch sources and tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "agent_links.h"
#include "mixing_matrix.h"

namespace nfv {

class Gossip : public AgentLinks {
 public:
  Gossip(const MixingMatrix& matrix, torch::Device device);
  // `values` [N, ...] after `rounds` rounds (rounds 0: unchanged, nothing sent).
  torch::Tensor mix(const torch::Tensor& values, std::size_t rounds);
  torch::Tensor mix(const torch::Tensor& values, std::size_t rounds, GossipKind) override { return mix(values, rounds); }
  std::vector<std::int64_t> joint_actions(const std::vector<std::int64_t>& held, std::size_t) override { return held; }
  // The weights from now on (e.g. over_survivors after agents died).
  void set_matrix(const MixingMatrix& matrix) override;
  const GossipTraffic& traffic() const override { return traffic_; }
  // Going on from a saved run's count.
  void set_traffic(const GossipTraffic& traffic) override { traffic_ = traffic; }

 private:
  torch::Device device_;
  torch::Tensor weights_;  // [N, N] float32
  std::size_t messages_per_round_ = 0;
  GossipTraffic traffic_;
};

}  // namespace nfv
