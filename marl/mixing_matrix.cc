#include "mixing_matrix.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "option_values.h"
#include "topology.h"

namespace nfv {

namespace {

// Eigenvalues of a symmetric n x n matrix (row-major), by cyclic Jacobi
// rotations: exact to rounding for the few dozen agents a WAN has.
std::vector<double> symmetric_eigenvalues(std::vector<double> a, std::size_t n) {
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (off < 1e-30) break;
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (std::abs(apq) < 1e-300) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (std::size_t k = 0; k < n; ++k) {  // columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (std::size_t k = 0; k < n; ++k) {  // rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = a[i * n + i];
  return values;
}

bool connected(std::size_t agents, const std::vector<AgentEdge>& edges, const std::vector<bool>& alive) {
  std::vector<std::vector<std::size_t>> next(agents);
  for (const auto& [i, j] : edges) {
    next[i].push_back(j);
    next[j].push_back(i);
  }
  const auto first = std::find(alive.begin(), alive.end(), true);
  if (first == alive.end()) return false;
  std::vector<bool> seen(agents, false);
  std::vector<std::size_t> stack{static_cast<std::size_t>(first - alive.begin())};
  seen[stack.back()] = true;
  while (!stack.empty()) {
    const std::size_t at = stack.back();
    stack.pop_back();
    for (std::size_t to : next[at])
      if (!seen[to]) seen[to] = true, stack.push_back(to);
  }
  for (std::size_t i = 0; i < agents; ++i)
    if (alive[i] && !seen[i]) return false;
  return true;
}

}  // namespace

MixingMatrix::MixingMatrix(std::size_t agents, std::vector<AgentEdge> all_edges, std::vector<bool> alive)
    : agents_(agents), all_edges_(std::move(all_edges)), alive_(std::move(alive)), weights_(agents * agents, 0.0) {
  if (std::find(alive_.begin(), alive_.end(), true) == alive_.end())
    throw std::invalid_argument("communication graph: no agent alive");
  for (const auto& [i, j] : all_edges_)
    if (alive_[i] && alive_[j]) edges_.emplace_back(i, j);
  if (!connected(agents_, edges_, alive_))
    throw std::invalid_argument("communication graph: not connected" +
                                std::string(all_edges_.size() > edges_.size() ? " among the surviving agents" : "") +
                                " (gossip could not reach every agent)");
  std::vector<std::size_t> degree(agents_, 0);
  for (const auto& [i, j] : edges_) ++degree[i], ++degree[j];
  for (const auto& [i, j] : edges_) {
    const double w = 1.0 / (1.0 + static_cast<double>(std::max(degree[i], degree[j])));
    weights_[i * agents_ + j] = weights_[j * agents_ + i] = w;
  }
  for (std::size_t i = 0; i < agents_; ++i) {
    double rest = 1.0;
    for (std::size_t j = 0; j < agents_; ++j)
      if (j != i) rest -= weights_[i * agents_ + j];
    weights_[i * agents_ + i] = rest;
  }
}

MixingMatrix MixingMatrix::metropolis_hastings(std::size_t agents, const std::vector<AgentEdge>& edges) {
  if (agents == 0) throw std::invalid_argument("communication graph: no agents");
  std::vector<AgentEdge> unique;
  for (auto [i, j] : edges) {
    if (i >= agents || j >= agents)
      throw std::invalid_argument("communication graph: edge " + std::to_string(i) + "-" + std::to_string(j) +
                                  " names an agent beyond the " + std::to_string(agents) + " agents");
    if (i == j) throw std::invalid_argument("communication graph: edge " + std::to_string(i) + "-" + std::to_string(j) + " joins an agent to itself");
    if (i > j) std::swap(i, j);
    if (std::find(unique.begin(), unique.end(), AgentEdge{i, j}) == unique.end()) unique.emplace_back(i, j);
  }
  return MixingMatrix(agents, std::move(unique), std::vector<bool>(agents, true));
}

MixingMatrix MixingMatrix::from_topology(const Topology& topology) {
  std::vector<AgentEdge> edges;
  for (const Link& link : topology.links) edges.emplace_back(link.from, link.to);
  return metropolis_hastings(topology.sites.size(), edges);
}

MixingMatrix MixingMatrix::complete(std::size_t agents) {
  std::vector<AgentEdge> edges;
  for (std::size_t i = 0; i < agents; ++i)
    for (std::size_t j = i + 1; j < agents; ++j) edges.emplace_back(i, j);
  return metropolis_hastings(agents, edges);
}

MixingMatrix MixingMatrix::ring(std::size_t agents) {
  std::vector<AgentEdge> edges;
  for (std::size_t i = 0; agents > 1 && i < agents; ++i) edges.emplace_back(i, (i + 1) % agents);
  return metropolis_hastings(agents, edges);
}

MixingMatrix MixingMatrix::path(std::size_t agents) {
  std::vector<AgentEdge> edges;
  for (std::size_t i = 0; i + 1 < agents; ++i) edges.emplace_back(i, i + 1);
  return metropolis_hastings(agents, edges);
}

MixingMatrix MixingMatrix::parse(const std::string& option, const std::string& text, std::size_t agents) {
  try {
    if (text == "ring") return ring(agents);
    if (text == "complete") return complete(agents);
    if (text == "path") return path(agents);
    std::vector<AgentEdge> edges;
    for (const std::string& edge : option_list(text)) {
      const auto dash = edge.find('-');
      if (dash == std::string::npos)
        throw std::invalid_argument("expected ring, path, complete or edges like 0-1,1-2, got '" + edge + "'");
      edges.emplace_back(option_count(option, edge.substr(0, dash)), option_count(option, edge.substr(dash + 1)));
    }
    return metropolis_hastings(agents, edges);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(option + ": " + e.what());
  }
}

double MixingMatrix::second_eigenvalue_modulus() const {
  std::vector<std::size_t> live;
  for (std::size_t i = 0; i < agents_; ++i)
    if (alive_[i]) live.push_back(i);
  const std::size_t n = live.size();
  if (n < 2) return 0;
  std::vector<double> block(n * n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) block[a * n + b] = weight(live[a], live[b]);
  std::vector<double> values = symmetric_eigenvalues(std::move(block), n);
  std::sort(values.begin(), values.end());
  // The largest is the consensus eigenvalue 1 (connected: simple).
  return std::max(std::abs(values[n - 2]), std::abs(values[0]));
}

MixingMatrix MixingMatrix::over_survivors(const std::vector<bool>& alive) const {
  if (alive.size() != agents_)
    throw std::invalid_argument("alive: " + std::to_string(alive.size()) + " flags for " + std::to_string(agents_) + " agents");
  std::vector<bool> both(agents_);
  for (std::size_t i = 0; i < agents_; ++i) both[i] = alive[i] && alive_[i];
  return MixingMatrix(agents_, all_edges_, std::move(both));
}

}  // namespace nfv
