#include "replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace nfv {

std::string ReplaySummary::describe() const {
  char text[160];
  std::snprintf(text, sizeof text, "%zu of %zu records of %zu items (%llu added), priority mean %.4g max %.4g", size,
                capacity, items_per_record, static_cast<unsigned long long>(added), mean_priority, max_priority);
  return text;
}

ReplayBuffer::ReplayBuffer(std::size_t record_floats, ReplaySettings settings, std::size_t items_per_record)
    : record_floats_(record_floats), settings_(settings), items_(items_per_record),
      tree_(std::max<std::size_t>(settings.capacity * items_per_record, 1)) {
  if (record_floats == 0) throw std::invalid_argument("replay buffer: records of 0 floats");
  if (items_per_record == 0) throw std::invalid_argument("replay buffer: records of 0 items");
  if (settings.capacity == 0) throw std::invalid_argument("replay buffer: capacity 0");
  if (!(settings.alpha >= 0)) throw std::invalid_argument("replay buffer: alpha must be >= 0");
  if (!(settings.epsilon > 0)) throw std::invalid_argument("replay buffer: epsilon must be > 0");
}

std::size_t ReplayBuffer::add(std::span<const float> record) {
  if (record.size() != record_floats_)
    throw std::invalid_argument("replay buffer: a record of " + std::to_string(record.size()) + " floats, expected " +
                                std::to_string(record_floats_));
  const std::size_t at = next_;
  // Grown as records come (a full buffer can be gigabytes; short runs need little).
  if (data_.size() < (at + 1) * record_floats_) data_.resize((at + 1) * record_floats_);
  std::copy(record.begin(), record.end(), data_.begin() + static_cast<std::ptrdiff_t>(at * record_floats_));
  for (std::size_t i = 0; i < items_; ++i) tree_.set(at * items_ + i, settings_.prioritized ? max_priority_ : 1.0);
  next_ = (next_ + 1) % settings_.capacity;
  size_ = std::min(size_ + 1, settings_.capacity);
  ++added_;
  return at;
}

std::span<const float> ReplayBuffer::record(std::size_t index) const {
  if (index >= size_) throw std::out_of_range("replay buffer: record " + std::to_string(index) + " of " + std::to_string(size_));
  return {data_.data() + index * record_floats_, record_floats_};
}

void ReplayBuffer::sample(std::size_t batch, double beta, std::mt19937_64& random, ReplaySample& out) const {
  if (size_ == 0) throw std::logic_error("replay buffer: sampling an empty buffer");
  out.index.resize(batch);
  out.weight.assign(batch, 1.0F);
  if (!settings_.prioritized) {
    std::uniform_int_distribution<std::size_t> pick(0, size_ * items_ - 1);
    for (std::size_t& i : out.index) i = pick(random);
    return;
  }
  const double total = tree_.total();
  const double slice = total / static_cast<double>(batch);
  std::uniform_real_distribution<double> within(0.0, 1.0);
  double max_weight = 0;
  for (std::size_t b = 0; b < batch; ++b) {
    const std::size_t i = tree_.find((static_cast<double>(b) + within(random)) * slice);
    out.index[b] = i;
    const double p = tree_.get(i) / total;
    const double w = std::pow(static_cast<double>(size_ * items_) * p, -beta);
    out.weight[b] = static_cast<float>(w);
    max_weight = std::max(max_weight, w);
  }
  for (float& w : out.weight) w = static_cast<float>(w / max_weight);
}

void ReplayBuffer::update_priorities(std::span<const std::size_t> index, std::span<const float> td_error) {
  if (index.size() != td_error.size())
    throw std::invalid_argument("replay buffer: " + std::to_string(index.size()) + " indices for " +
                                std::to_string(td_error.size()) + " errors");
  if (!settings_.prioritized) return;
  for (std::size_t k = 0; k < index.size(); ++k) {
    if (index[k] >= size_ * items_) throw std::out_of_range("replay buffer: item " + std::to_string(index[k]));
    const double error = std::isfinite(td_error[k]) ? std::abs(static_cast<double>(td_error[k])) : 0.0;
    const double p = std::pow(error + settings_.epsilon, settings_.alpha);
    tree_.set(index[k], p);
    max_priority_ = std::max(max_priority_, p);
  }
}

double ReplayBuffer::priority(std::size_t item) const {
  if (item >= size_ * items_) throw std::out_of_range("replay buffer: item " + std::to_string(item));
  return tree_.get(item);
}

ReplaySummary ReplayBuffer::summary() const {
  ReplaySummary s;
  s.size = size_;
  s.capacity = settings_.capacity;
  s.items_per_record = items_;
  s.added = added_;
  if (size_ > 0) {
    s.mean_priority = tree_.total() / static_cast<double>(size_ * items_);
    s.max_priority = tree_.max();
  }
  return s;
}

}  // namespace nfv
