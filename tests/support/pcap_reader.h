// Reads the frames of a pcap or pcapng file with libpcap, for comparing
// what a pod sent with what it was given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nfv::test {

using Frame = std::vector<unsigned char>;

std::vector<Frame> read_frames(const std::string& path);

// A frame with its capture time (ns since the epoch), for timing checks.
struct TimedFrame {
  uint64_t ns;
  Frame bytes;
};

std::vector<TimedFrame> read_timed_frames(const std::string& path);

}  // namespace nfv::test
