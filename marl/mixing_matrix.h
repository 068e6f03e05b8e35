// Who gossips with whom, and with what weights: the agents' communication
// graph (by default the WAN graph of the topology, one agent per site) and
// its Metropolis-Hastings mixing matrix W_ij = 1 / (1 + max(d_i, d_j)) on
// edges, W_ii = 1 - sum_j W_ij. W is symmetric and doubly stochastic, so
// x <- W x keeps the agents' average and drives every agent to it at the
// rate of W's second-largest eigenvalue modulus. No LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nfv {

struct Topology;

// What gossip sent so far, as if every message were one float32 vector.
struct GossipTraffic {
  std::uint64_t rounds = 0;
  std::uint64_t messages = 0;  // one per directed edge per round
  std::uint64_t bytes = 0;
};

// An undirected edge between two agents (indices), as given.
using AgentEdge = std::pair<std::size_t, std::size_t>;

class MixingMatrix {
 public:
  // Metropolis-Hastings weights over `edges` (duplicates merged). Throws
  // std::invalid_argument for no agents, an edge out of range or onto
  // itself, or a graph that is not connected (consensus could not reach
  // every agent).
  static MixingMatrix metropolis_hastings(std::size_t agents, const std::vector<AgentEdge>& edges);
  // One agent per site, the topology's WAN links as edges.
  static MixingMatrix from_topology(const Topology& topology);
  static MixingMatrix complete(std::size_t agents);
  static MixingMatrix ring(std::size_t agents);
  // 0-1-2-...: the sparsest connected graph, the slowest consensus.
  static MixingMatrix path(std::size_t agents);
  // "ring", "path", "complete", or an edge list "0-1,1-2,2-0", for `agents` agents.
  // Errors name `option`.
  static MixingMatrix parse(const std::string& option, const std::string& text, std::size_t agents);

  std::size_t agents() const { return agents_; }
  double weight(std::size_t i, std::size_t j) const { return weights_[i * agents_ + j]; }
  // Row-major agents x agents.
  const std::vector<double>& weights() const { return weights_; }
  // The graph's edges among the live agents, each once (i < j).
  const std::vector<AgentEdge>& edges() const { return edges_; }
  // Messages of one gossip round: every live edge carries one each way.
  std::size_t messages_per_round() const { return 2 * edges_.size(); }
  const std::vector<bool>& alive() const { return alive_; }

  // max |lambda| over W's eigenvalues other than the consensus one (1),
  // among the live agents: the factor by which one round shrinks the
  // worst-case distance to the average.
  double second_eigenvalue_modulus() const;

  // The weights after agents died (alive[i] false): Metropolis-Hastings over
  // the graph the survivors induce, degrees counted among survivors, so the
  // survivors' block stays doubly stochastic; a dead agent keeps its own
  // value (W_ii = 1) and exchanges nothing. Throws std::invalid_argument when
  // no agent survives or the survivors are no longer connected.
  MixingMatrix over_survivors(const std::vector<bool>& alive) const;

 private:
  MixingMatrix(std::size_t agents, std::vector<AgentEdge> all_edges, std::vector<bool> alive);
  std::size_t agents_ = 0;
  std::vector<AgentEdge> all_edges_;  // the full graph, dead agents' edges too
  std::vector<AgentEdge> edges_;      // among live agents
  std::vector<bool> alive_;
  std::vector<double> weights_;
};

}  // namespace nfv
