// One agent's gossip with its graph neighbours over c10d's Gloo process
// group: each round it sends its vector to every live neighbour and
// receives theirs (point to point, one message per directed edge, as
// Gossip counts them), then takes its row of W x. The process group is
// made again over the members whenever they change (a Gloo group cannot
// lose a member). A neighbour that does not answer within the timeout is
// reported lost and its share of the round goes to this agent's own value
// (its row of W stays stochastic); the caller marks it dead, and from the
// next iteration the weights are recomputed over the survivors.
//
// Optionally the messages are int8 (one float32 scale each, max |x| / 127)
// with error feedback: what rounding left out of a message is added to the
// next one of the same kind, so that over time the neighbours receive the
// sum of what was meant. The critics' residual carries over iterations
// (the same parameters, moving slowly); the TD errors' over the rounds of
// one iteration only (new samples each time). An agent mixes its own value
// exactly and its neighbours' as received.
// Included only by the module's c10d sources (needs the gloo headers).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "agent_links.h"
#include "mixing_matrix.h"

namespace nfv {

class PeerGossip {
 public:
  // `listen_host`: the address other agents reach this one's Gloo device at
  // (empty: this machine's host name).
  PeerGossip(c10::intrusive_ptr<c10d::Store> store, std::size_t self, std::string listen_host, std::chrono::milliseconds timeout,
             bool int8_messages = false);
  ~PeerGossip();

  // Gossip from now on among `weights.alive()` with `weights`; `name` is
  // the same in every member and new for every regrouping. False when the
  // group could not be made (a member did not come): no gossip until the next.
  bool regroup(const std::string& name, const MixingMatrix& weights);
  // This agent's row [1, ...] after `rounds` rounds.
  torch::Tensor mix(const torch::Tensor& own, std::size_t rounds, GossipKind kind);
  // Neighbours that did not answer since the last call.
  std::vector<std::size_t> take_lost();

  const GossipTraffic& traffic() const { return traffic_; }
  void set_traffic(const GossipTraffic& traffic) { traffic_ = traffic; }

  struct Group;  // a process group and who is in it (peer_gossip.cc)

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  std::size_t self_;
  std::string listen_host_;
  std::chrono::milliseconds timeout_;
  bool int8_;
  torch::Tensor residual_[2];  // error feedback per GossipKind
  std::unique_ptr<Group> group_;
  std::vector<std::size_t> lost_;
  GossipTraffic traffic_;
};

}  // namespace nfv
