// What the agents held in one process exchange with the other agents: the
// gossip rounds over their rows (x <- W x) and, when other agents act in
// other processes, their sampled actions for the joint action. The stacked
// run holds every agent (Gossip: a matrix product, actions as they are);
// one process per agent holds one (PeerLinks: its neighbours over c10d
// Gloo, the actions through the rendezvous store).
// Included only by the module's LibTorch sources and tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "mixing_matrix.h"

namespace nfv {

// What a gossip carries: the critics' parameters (the same quantity from
// one iteration to the next) or the iteration's TD errors (new each time).
enum class GossipKind { critic_parameters, td_errors };

class AgentLinks {
 public:
  virtual ~AgentLinks() = default;
  // The held agents' rows [L, ...] after `rounds` gossip rounds.
  virtual torch::Tensor mix(const torch::Tensor& rows, std::size_t rounds, GossipKind kind) = 0;
  // The held agents' actions [copies x L] -> everyone's [copies x agents].
  virtual std::vector<std::int64_t> joint_actions(const std::vector<std::int64_t>& held, std::size_t copies) = 0;
  // The weights from now on (e.g. over the survivors after agents died).
  virtual void set_matrix(const MixingMatrix& matrix) = 0;
  // Gossip sent by the held agents so far; going on from a saved count.
  virtual const GossipTraffic& traffic() const = 0;
  virtual void set_traffic(const GossipTraffic& traffic) = 0;
};

}  // namespace nfv
