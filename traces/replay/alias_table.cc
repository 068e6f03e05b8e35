#include "alias_table.h"

#include <cmath>
#include <numeric>

namespace nfv {

AliasTable::AliasTable(const std::vector<double>& weights) : size_(weights.size()) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (weights.empty() || !(total > 0)) throw std::invalid_argument("alias table: weights must have a positive sum");
  // Vose's construction: scaled probabilities, small ones paired with large.
  std::vector<double> scaled(size_);
  std::vector<uint32_t> small, large;
  for (std::size_t i = 0; i < size_; ++i) {
    if (weights[i] < 0) throw std::invalid_argument("alias table: negative weight");
    scaled[i] = weights[i] * static_cast<double>(size_) / total;
    (scaled[i] < 1 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  threshold_.assign(size_, UINT32_MAX);
  alias_.resize(size_);
  for (std::size_t i = 0; i < size_; ++i) alias_[i] = static_cast<uint32_t>(i);
  while (!small.empty() && !large.empty()) {
    const uint32_t s = small.back(), l = large.back();
    small.pop_back();
    threshold_[s] = static_cast<uint32_t>(std::min(scaled[s] * 4294967296.0, 4294967295.0));
    alias_[s] = l;
    scaled[l] -= 1 - scaled[s];
    if (scaled[l] < 1) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Leftovers are 1 up to rounding: always keep their own column.
}

std::vector<double> zipf_weights(uint32_t flows, double exponent) {
  std::vector<double> weights(flows);
  for (uint32_t k = 0; k < flows; ++k) weights[k] = 1.0 / std::pow(static_cast<double>(k + 1), exponent);
  return weights;
}

}  // namespace nfv
