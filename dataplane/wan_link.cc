#include "wan_link.h"

#include <algorithm>
#include <cmath>

#include <rte_mbuf.h>
#include <rte_random.h>

namespace nfv {
namespace {

uint64_t ms_to_tsc(double ms, uint64_t hz) { return static_cast<uint64_t>(std::llround(ms * 1e-3 * static_cast<double>(hz))); }

}  // namespace

LinkSettings LinkSettings::from(const WanLinkParams& p, uint64_t hz, double bandwidth_share) {
  LinkSettings s;
  s.constant_delay_tsc = ms_to_tsc(p.delay_ms, hz);
  s.jitter_tsc = ms_to_tsc(p.jitter_ms, hz);
  s.loss_threshold = p.loss <= 0 ? 0 : p.loss >= 1 ? UINT64_MAX : static_cast<uint64_t>(p.loss * 18446744073709551616.0);
  s.tsc_per_byte = p.bandwidth_mbps > 0 ? 8.0 * static_cast<double>(hz) / (p.bandwidth_mbps * 1e6 * bandwidth_share) : 0;
  s.buffer_tsc = ms_to_tsc(p.buffer_ms, hz);
  s.trace_period_tsc = ms_to_tsc(p.delay_trace_period_ms, hz);
  for (const auto& step : p.delay_trace) s.trace.push_back({ms_to_tsc(step.at_ms, hz), ms_to_tsc(step.delay_ms, hz)});
  return s;
}

uint64_t WanLink::base_delay_tsc(uint64_t now_tsc) {
  const LinkSettings& s = *settings_;
  if (s.trace.empty() || now_tsc < start_tsc_) return s.constant_delay_tsc;
  uint64_t t = now_tsc - start_tsc_;
  if (s.trace_period_tsc) t %= s.trace_period_tsc;
  if (t < s.trace[0].at_tsc) return s.constant_delay_tsc;
  // Time only moves forward, except when a looping trace wraps around.
  if (t < s.trace[trace_cursor_].at_tsc) trace_cursor_ = 0;
  while (trace_cursor_ + 1 < s.trace.size() && s.trace[trace_cursor_ + 1].at_tsc <= t) ++trace_cursor_;
  return s.trace[trace_cursor_].delay_tsc;
}

WanVerdict WanLink::offer(rte_mbuf* m, uint64_t now_tsc) {
  const LinkSettings& s = *settings_;
  const uint32_t bytes = rte_pktmbuf_pkt_len(m);
  counters_.offered_packets++;
  counters_.offered_bytes += bytes;
  if (s.loss_threshold && (s.loss_threshold == UINT64_MAX || rte_rand() < s.loss_threshold)) {
    counters_.lost++;
    return WanVerdict::kLost;
  }
  uint64_t sent_tsc = now_tsc;  // when the last bit has left the sender
  if (s.tsc_per_byte > 0) {
    const uint64_t start = std::max(now_tsc, next_free_tsc_);
    if (start - now_tsc > s.buffer_tsc) {
      counters_.bandwidth_drops++;
      return WanVerdict::kBandwidthExceeded;
    }
    sent_tsc = start + static_cast<uint64_t>(bytes * s.tsc_per_byte);
  }
  uint64_t due = sent_tsc + base_delay_tsc(now_tsc);
  if (s.jitter_tsc) {
    const uint64_t offset = rte_rand_max(2 * s.jitter_tsc + 1);
    due = due + offset >= s.jitter_tsc ? due + offset - s.jitter_tsc : 0;
    due = std::max(due, sent_tsc);
  }
  if (!line_.push(due, m)) {
    counters_.queue_full++;
    return WanVerdict::kQueueFull;
  }
  if (s.tsc_per_byte > 0) next_free_tsc_ = sent_tsc;
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
