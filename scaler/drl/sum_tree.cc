#include "sum_tree.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace nfv {

SumTree::SumTree(std::size_t leaves) : leaves_(leaves), base_(1) {
  if (leaves == 0) throw std::invalid_argument("SumTree: no leaves");
  while (base_ < leaves) base_ *= 2;
  tree_.assign(2 * base_, 0.0);
}

void SumTree::set(std::size_t leaf, double priority) {
  if (leaf >= leaves_) throw std::invalid_argument("SumTree: leaf " + std::to_string(leaf) + " of " + std::to_string(leaves_));
  if (!(priority >= 0) || !std::isfinite(priority))
    throw std::invalid_argument("SumTree: priority " + std::to_string(priority) + " is not a finite number >= 0");
  std::size_t node = base_ + leaf;
  tree_[node] = priority;
  // Recomputing the sums (not adding a delta) keeps rounding errors from piling up.
  for (node /= 2; node >= 1; node /= 2) tree_[node] = tree_[2 * node] + tree_[2 * node + 1];
}

double SumTree::max() const {
  return *std::max_element(tree_.begin() + static_cast<std::ptrdiff_t>(base_),
                           tree_.begin() + static_cast<std::ptrdiff_t>(base_ + leaves_));
}

std::size_t SumTree::find(double prefix) const {
  prefix = std::clamp(prefix, 0.0, std::nextafter(total(), 0.0));
  std::size_t node = 1;
  while (node < base_) {
    const double left = tree_[2 * node];
    // A right child of sum 0 is never taken: rounding could otherwise land on an empty leaf.
    if (prefix < left || tree_[2 * node + 1] <= 0) {
      node = 2 * node;
    } else {
      prefix -= left;
      node = 2 * node + 1;
    }
  }
  std::size_t leaf = node - base_;
  // Rounding in the sums can still end on an empty leaf: step back to the nearest filled one.
  while (leaf > 0 && tree_[base_ + leaf] <= 0) --leaf;
  return std::min(leaf, leaves_ - 1);
}

}  // namespace nfv
