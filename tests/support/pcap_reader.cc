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

}  // namespace nfv::test
