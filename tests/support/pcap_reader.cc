#include "pcap_reader.h"

#include <pcap/pcap.h>

#include <stdexcept>

namespace nfv::test {

std::vector<Frame> read_frames(const std::string& path) {
  char error[PCAP_ERRBUF_SIZE];
  pcap_t* handle = pcap_open_offline(path.c_str(), error);
  if (!handle) throw std::runtime_error("cannot read " + path + ": " + error);
  std::vector<Frame> frames;
  pcap_pkthdr* header;
  const u_char* data;
  while (pcap_next_ex(handle, &header, &data) == 1) frames.emplace_back(data, data + header->caplen);
  pcap_close(handle);
  return frames;
}

std::vector<TimedFrame> read_timed_frames(const std::string& path) {
  char error[PCAP_ERRBUF_SIZE];
  // With nanosecond precision asked for, tv_usec holds nanoseconds.
  pcap_t* handle = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, error);
  if (!handle) throw std::runtime_error("cannot read " + path + ": " + error);
  std::vector<TimedFrame> frames;
  pcap_pkthdr* header;
  const u_char* data;
  while (pcap_next_ex(handle, &header, &data) == 1)
    frames.push_back({static_cast<uint64_t>(header->ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(header->ts.tv_usec),
                      Frame(data, data + header->caplen)});
  pcap_close(handle);
  return frames;
}

}  // namespace nfv::test
