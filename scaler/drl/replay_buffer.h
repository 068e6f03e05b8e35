// Experience replay for off-policy learning: a ring of fixed-size float
// records (one transition each, laid out by the caller), sampled uniformly
// or by priority (proportional prioritized replay, Schaul et al. 2016:
// P(i) = p_i^alpha / sum p^alpha, importance weight (N P(i))^-beta / max).
// A record may hold several items that learn separately (the DRL agent's
// chains of one slot): sampling and priorities are per item, item i of
// the buffer being item i % items of record i / items.
// A new record's items get the highest priority seen so far, so they are
// replayed at least once soon. Not thread-safe: the trainer owns it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "sum_tree.h"

namespace nfv {

struct ReplaySettings {
  std::size_t capacity = 16384;  // records; the oldest is overwritten
  bool prioritized = true;
  double alpha = 0.6;            // how much priority counts (0 = uniform)
  double epsilon = 1e-3;         // added to |TD error| so no record starves
};

struct ReplaySample {
  std::vector<std::size_t> index;  // of the items drawn
  std::vector<float> weight;       // importance weights, max 1 (all 1 when uniform)
};

struct ReplaySummary {
  std::size_t size = 0, capacity = 0;  // records
  std::size_t items_per_record = 1;
  std::uint64_t added = 0;  // over the buffer's life
  double mean_priority = 0, max_priority = 0;
  std::string describe() const;
};

class ReplayBuffer {
 public:
  // Throws std::invalid_argument for a zero capacity, record size or item count, alpha < 0.
  ReplayBuffer(std::size_t record_floats, ReplaySettings settings, std::size_t items_per_record = 1);
  std::size_t record_floats() const { return record_floats_; }
  std::size_t items_per_record() const { return items_; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return settings_.capacity; }
  const ReplaySettings& settings() const { return settings_; }

  // Copies a record in (size record_floats(), else std::invalid_argument);
  // returns where it went.
  std::size_t add(std::span<const float> record);
  std::span<const float> record(std::size_t index) const;

  // Draws `batch` items (with replacement): uniformly, or one from each of
  // `batch` equal slices of the priority mass (stratified). `beta` in [0, 1]
  // sets the importance-weight correction. Throws std::logic_error when empty.
  void sample(std::size_t batch, double beta, std::mt19937_64& random, ReplaySample& out) const;
  // New priorities from the items' TD errors (|error| + epsilon)^alpha; a
  // no-op for a uniform buffer.
  void update_priorities(std::span<const std::size_t> index, std::span<const float> td_error);
  double priority(std::size_t item) const;

  ReplaySummary summary() const;

 private:
  std::size_t record_floats_;
  ReplaySettings settings_;
  std::size_t items_;
  std::vector<float> data_;
  std::size_t size_ = 0, next_ = 0;
  std::uint64_t added_ = 0;
  SumTree tree_;
  double max_priority_ = 1;  // the highest (|error| + eps)^alpha so far
};

}  // namespace nfv
