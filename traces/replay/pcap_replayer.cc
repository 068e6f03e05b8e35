#include "pcap_replayer.h"

#include <pcap/pcap.h>

#include <cstring>
#include <stdexcept>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

namespace nfv {

PcapReplayer::PcapReplayer(const PcapReplayPlan& plan, uint16_t port_id, rte_mempool* pool)
    : plan_(plan), port_id_(port_id), pool_(pool) {
  // One pass over the file for its length: loops follow each other back to back.
  open();
  pcap_pkthdr* header;
  const u_char* data;
  bool first = true;
  uint64_t first_ns = 0, last_ns = 0;
  while (pcap_next_ex(pcap_, &header, &data) == 1) {
    const uint64_t ns = static_cast<uint64_t>(header->ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(header->ts.tv_usec);
    if (first) first_ns = ns, first = false;
    last_ns = ns;
  }
  capture_seconds_ = static_cast<double>(last_ns - first_ns) / 1e9;
  pcap_close(pcap_);
  open();
}

PcapReplayer::~PcapReplayer() {
  if (staged_) rte_pktmbuf_free(staged_);
  if (burst_count_) rte_pktmbuf_free_bulk(burst_, burst_count_);
  if (pcap_) pcap_close(pcap_);
}

void PcapReplayer::open() {
  char error[PCAP_ERRBUF_SIZE];
  // Nanosecond timestamps: tv_usec then holds nanoseconds.
  pcap_ = pcap_open_offline_with_tstamp_precision(plan_.file.c_str(), PCAP_TSTAMP_PRECISION_NANO, error);
  if (!pcap_) throw std::runtime_error("pcap_replay.file: cannot read '" + plan_.file + "': " + error);
}

void PcapReplayer::start(uint64_t start_tsc) {
  start_tsc_ = start_tsc;
  tsc_per_capture_ns_ = static_cast<double>(rte_get_tsc_hz()) / 1e9 / plan_.speed;
  stage_next();
}

bool PcapReplayer::stage_next() {
  for (;;) {
    pcap_pkthdr* header;
    const u_char* data;
    const int rc = pcap_next_ex(pcap_, &header, &data);
    if (rc != 1) {
      // End of the file: the next loop starts where this one ended.
      loops_done_++;
      if (loops_done_ >= plan_.loops) return !(exhausted_ = true);
      loop_offset_ns_ = last_ns_ - first_ns_ + loop_offset_ns_;
      pcap_close(pcap_);
      open();
      first_ns_ = 0;
      continue;
    }
    const uint64_t ns = static_cast<uint64_t>(header->ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(header->ts.tv_usec);
    if (first_ns_ == 0) first_ns_ = ns;
    last_ns_ = ns;
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    if (!m) return false;  // every mbuf in flight: try again on the next poll
    char* room = rte_pktmbuf_append(m, static_cast<uint16_t>(std::min<bpf_u_int32>(header->caplen, UINT16_MAX)));
    if (!room) {
      rte_pktmbuf_free(m);
      skipped_too_big_++;
      continue;
    }
    std::memcpy(room, data, header->caplen);
    staged_ = m;
    const uint64_t capture_ns = ns - first_ns_ + loop_offset_ns_;
    staged_due_tsc_ = start_tsc_ + static_cast<uint64_t>(static_cast<double>(capture_ns) * tsc_per_capture_ns_);
    return true;
  }
}

bool PcapReplayer::poll(uint64_t now_tsc) {
  while (burst_count_ < kBurst) {
    if (!staged_ && (exhausted_ || !stage_next())) break;
    if (staged_due_tsc_ > now_tsc) break;
    burst_[burst_count_++] = staged_;
    staged_ = nullptr;
  }
  if (burst_count_) {
    // Sizes are read before the port takes (and frees) the mbufs.
    uint64_t bytes = 0;
    for (uint16_t i = 0; i < burst_count_; ++i) bytes += burst_[i]->pkt_len;
    const uint16_t taken = rte_eth_tx_burst(port_id_, 0, burst_, burst_count_);
    for (uint16_t i = taken; i < burst_count_; ++i) bytes -= burst_[i]->pkt_len;
    sent_bytes_ += bytes;
    sent_packets_ += taken;
    burst_count_ = static_cast<uint16_t>(burst_count_ - taken);
    std::memmove(burst_, burst_ + taken, burst_count_ * sizeof burst_[0]);
  }
  return !(exhausted_ && !staged_ && burst_count_ == 0);
}

void PcapReplayer::finish(uint64_t deadline_tsc) {
  while (burst_count_ > 0 && rte_rdtsc() < deadline_tsc) poll(rte_rdtsc());
}

}  // namespace nfv
