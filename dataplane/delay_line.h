// A timestamp-ordered queue of packets: a binary min-heap on (due time,
// arrival sequence), so packets due at the same moment keep their order.
// Storage is allocated once; push and pop never allocate.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

struct rte_mbuf;

namespace nfv {

class DelayLine {
 public:
  explicit DelayLine(uint32_t capacity) : heap_(capacity) {}

  uint32_t size() const { return size_; }
  uint32_t capacity() const { return static_cast<uint32_t>(heap_.size()); }
  uint64_t next_due() const { return size_ ? heap_[0].due : std::numeric_limits<uint64_t>::max(); }

  // False when the line is full (the caller drops the packet).
  bool push(uint64_t due, rte_mbuf* m) {
    if (size_ == heap_.size()) return false;
    uint32_t i = size_++;
    const Entry entry{due, seq_++, m};
    while (i > 0) {
      const uint32_t parent = (i - 1) / 2;
      if (!earlier(entry, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = entry;
    return true;
  }

  // Moves up to `max` packets due at or before `now` into out[], in due order.
  uint16_t pop_due(uint64_t now, rte_mbuf** out, uint16_t max) {
    uint16_t n = 0;
    while (n < max && size_ && heap_[0].due <= now) out[n++] = pop();
    return n;
  }

  // Takes the earliest packet regardless of its due time (for shutdown).
  rte_mbuf* pop() {
    rte_mbuf* top = heap_[0].m;
    const Entry last = heap_[--size_];
    uint32_t i = 0;
    for (;;) {
      uint32_t child = 2 * i + 1;
      if (child >= size_) break;
      if (child + 1 < size_ && earlier(heap_[child + 1], heap_[child])) ++child;
      if (!earlier(heap_[child], last)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    if (size_) heap_[i] = last;
    return top;
  }

 private:
  struct Entry {
    uint64_t due;
    uint64_t seq;
    rte_mbuf* m;
  };
  static bool earlier(const Entry& a, const Entry& b) { return a.due < b.due || (a.due == b.due && a.seq < b.seq); }

  std::vector<Entry> heap_;
  uint32_t size_ = 0;
  uint64_t seq_ = 0;
};

}  // namespace nfv
