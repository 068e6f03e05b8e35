#include "wan_link.h"

#include <algorithm>
#include <cmath>

#include <rte_mbuf.h>
#include <rte_random.h>

namespace nfv {
namespace {

uint64_t ms_to_tsc(double ms, uint64_t hz) { return static_cast<uint64_t>(std::llround(ms * 1e-3 * static_cast<double>(hz))); }

}  // namespace

WanLink::WanLink(const WanLinkParams& p, uint64_t hz, uint64_t start_tsc, double bandwidth_share)
    : line_(p.queue_packets),
      constant_delay_tsc_(ms_to_tsc(p.delay_ms, hz)),
      jitter_tsc_(ms_to_tsc(p.jitter_ms, hz)),
      loss_threshold_(p.loss <= 0 ? 0 : p.loss >= 1 ? UINT64_MAX : static_cast<uint64_t>(p.loss * 18446744073709551616.0)),
      tsc_per_byte_(p.bandwidth_mbps > 0 ? 8.0 * static_cast<double>(hz) / (p.bandwidth_mbps * 1e6 * bandwidth_share) : 0),
      buffer_tsc_(ms_to_tsc(p.buffer_ms, hz)),
      start_tsc_(start_tsc),
      trace_period_tsc_(ms_to_tsc(p.delay_trace_period_ms, hz)) {
  for (const auto& step : p.delay_trace) trace_.push_back({ms_to_tsc(step.at_ms, hz), ms_to_tsc(step.delay_ms, hz)});
}

uint64_t WanLink::base_delay_tsc(uint64_t now_tsc) {
  if (trace_.empty() || now_tsc < start_tsc_) return constant_delay_tsc_;
  uint64_t t = now_tsc - start_tsc_;
  if (trace_period_tsc_) t %= trace_period_tsc_;
  if (t < trace_[0].at_tsc) return constant_delay_tsc_;
  // Time only moves forward, except when a looping trace wraps around.
  if (t < trace_[trace_cursor_].at_tsc) trace_cursor_ = 0;
  while (trace_cursor_ + 1 < trace_.size() && trace_[trace_cursor_ + 1].at_tsc <= t) ++trace_cursor_;
  return trace_[trace_cursor_].delay_tsc;
}

WanVerdict WanLink::offer(rte_mbuf* m, uint64_t now_tsc) {
  const uint32_t bytes = rte_pktmbuf_pkt_len(m);
  counters_.offered_packets++;
  counters_.offered_bytes += bytes;
  if (loss_threshold_ && (loss_threshold_ == UINT64_MAX || rte_rand() < loss_threshold_)) {
    counters_.lost++;
    return WanVerdict::kLost;
  }
  uint64_t sent_tsc = now_tsc;  // when the last bit has left the sender
  if (tsc_per_byte_ > 0) {
    const uint64_t start = std::max(now_tsc, next_free_tsc_);
    if (start - now_tsc > buffer_tsc_) {
      counters_.bandwidth_drops++;
      return WanVerdict::kBandwidthExceeded;
    }
    sent_tsc = start + static_cast<uint64_t>(bytes * tsc_per_byte_);
  }
  uint64_t due = sent_tsc + base_delay_tsc(now_tsc);
  if (jitter_tsc_) {
    const uint64_t offset = rte_rand_max(2 * jitter_tsc_ + 1);
    due = due + offset >= jitter_tsc_ ? due + offset - jitter_tsc_ : 0;
    due = std::max(due, sent_tsc);
  }
  if (!line_.push(due, m)) {
    counters_.queue_full++;
    return WanVerdict::kQueueFull;
  }
  if (tsc_per_byte_ > 0) next_free_tsc_ = sent_tsc;
  return WanVerdict::kQueued;
}

uint16_t WanLink::release(uint64_t now_tsc, rte_mbuf** out, uint16_t max) {
  const uint16_t n = line_.pop_due(now_tsc, out, max);
  counters_.released_packets += n;
  for (uint16_t i = 0; i < n; ++i) counters_.released_bytes += rte_pktmbuf_pkt_len(out[i]);
  return n;
}

rte_mbuf* WanLink::take_any() { return line_.size() ? line_.pop() : nullptr; }

}  // namespace nfv
