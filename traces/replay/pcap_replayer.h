// Pcap replay mode: sends the frames of a capture with their original
// spacing divided by `speed` (10 = ten times faster), `loops` times back to
// back. Frames are read with libpcap (nanosecond timestamps) straight into
// mbufs from the mempool, in bursts of up to 32 of the frames that are due.
#pragma once

#include <cstdint>
#include <string>

#include "replay_config.h"
#include "wall_clock.h"

struct rte_mbuf;
struct rte_mempool;
typedef struct pcap pcap_t;

namespace nfv {

class PcapReplayer {
 public:
  static constexpr uint16_t kBurst = 32;

  // Opens the capture; throws naming the file when libpcap cannot read it.
  PcapReplayer(const PcapReplayPlan& plan, uint16_t port_id, rte_mempool* pool);
  ~PcapReplayer();
  PcapReplayer(const PcapReplayer&) = delete;
  PcapReplayer& operator=(const PcapReplayer&) = delete;

  void start(uint64_t start_tsc);
  // Sends what is due; false once every loop is sent.
  bool poll(uint64_t now_tsc);
  void finish(uint64_t deadline_tsc);

  uint64_t sent_packets() const { return sent_packets_; }
  uint64_t sent_bytes() const { return sent_bytes_; }
  uint64_t skipped_too_big() const { return skipped_too_big_; }
  uint32_t loops_done() const { return loops_done_; }
  double speed() const { return plan_.speed; }
  // Seconds of capture time in one pass, as the file says.
  double capture_seconds() const { return capture_seconds_; }

 private:
  void open();
  // Reads the next frame into `staged_` (crossing into the next loop at the
  // end of the file); false when the last loop is over.
  bool stage_next();

  PcapReplayPlan plan_;
  uint16_t port_id_;
  rte_mempool* pool_;
  pcap_t* pcap_ = nullptr;
  double tsc_per_capture_ns_ = 0;
  uint64_t start_tsc_ = 0;
  uint64_t first_ns_ = 0;       // capture time of the first frame of the file
  uint64_t loop_offset_ns_ = 0; // capture time added per finished loop
  uint64_t last_ns_ = 0;
  double capture_seconds_ = 0;

  rte_mbuf* staged_ = nullptr;  // the next frame, read ahead
  uint64_t staged_due_tsc_ = 0;
  bool exhausted_ = false;
  rte_mbuf* burst_[kBurst];
  uint16_t burst_count_ = 0;

  uint64_t sent_packets_ = 0, sent_bytes_ = 0, skipped_too_big_ = 0;
  uint32_t loops_done_ = 0;
};

}  // namespace nfv
