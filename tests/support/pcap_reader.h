// Reads the frames of a pcap or pcapng file with libpcap, for comparing
// what a pod sent with what it was given.
#pragma once

#include <string>
#include <vector>

namespace nfv::test {

using Frame = std::vector<unsigned char>;

std::vector<Frame> read_frames(const std::string& path);

}  // namespace nfv::test
