// Paces the expiry sweep of a VNF's flow table by time, not by bursts: each
// call checks the positions that have come due since the last one, so the
// table is covered once per period however often the fast path runs. Under
// load a burst pays for a tiny share (a fixed number of positions per burst
// would stream through the whole table many times per timeout); after a
// pause the owed positions come at most kMaxPerCall per call, and never
// more than one pass.
#pragma once

#include <algorithm>
#include <cstdint>

namespace nfv {

class PacedSweep {
 public:
  static constexpr uint32_t kMaxPerCall = 64;

  // `positions` table positions, swept once per `period_tsc` (a quarter of
  // the shortest timeout lets an idle entry go at most 1.25 timeouts after
  // its last packet, while packets keep the sweep running).
  void init(uint32_t positions, uint64_t period_tsc, uint64_t now_tsc) {
    positions_ = std::max<uint32_t>(positions, 1);
    every_tsc_ = std::max<uint64_t>(period_tsc / positions_, 1);
    next_tsc_ = now_tsc + every_tsc_;
    cursor_ = 0;
  }

  // Calls visit(position) for each position due by `now_tsc`.
  template <typename Visit>
  void run(uint64_t now_tsc, Visit&& visit) {
    if (now_tsc < next_tsc_) return;
    uint64_t due = (now_tsc - next_tsc_) / every_tsc_ + 1;
    if (due > positions_) {
      // A long pause: one full pass is owed, the rest is forgiven.
      due = positions_;
      next_tsc_ = now_tsc - (due - 1) * every_tsc_;
    }
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(due, kMaxPerCall));
    next_tsc_ += n * every_tsc_;
    for (uint32_t k = 0; k < n; ++k) {
      visit(cursor_);
      cursor_ = cursor_ + 1 == positions_ ? 0 : cursor_ + 1;
    }
  }

 private:
  uint32_t positions_ = 1;
  uint32_t cursor_ = 0;
  uint64_t every_tsc_ = 1;
  uint64_t next_tsc_ = UINT64_MAX;  // never, until init
};

}  // namespace nfv
