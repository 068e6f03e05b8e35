// A binary tree of non-negative priorities whose inner nodes hold the sums
// of their children: set one leaf and find the leaf at a prefix sum, both
// in O(log n). Prioritized experience replay samples transitions with it
// (Schaul et al., 2016).
#pragma once

#include <cstddef>
#include <vector>

namespace nfv {

class SumTree {
 public:
  explicit SumTree(std::size_t leaves);
  std::size_t leaves() const { return leaves_; }
  // Throws std::invalid_argument for a negative or non-finite priority.
  void set(std::size_t leaf, double priority);
  double get(std::size_t leaf) const { return tree_[base_ + leaf]; }
  double total() const { return tree_[1]; }
  double max() const;  // of the leaves set so far (0 when none)
  // The leaf where the running sum of priorities first exceeds `prefix`
  // (clamped to [0, total)); never a leaf of priority 0 while total() > 0.
  std::size_t find(double prefix) const;

 private:
  std::size_t leaves_, base_;
  std::vector<double> tree_;  // 1-based heap: node i has children 2i, 2i+1; leaves at base_..
};

}  // namespace nfv
