// A raw TCP connection to a control API on 127.0.0.1, framed by hand, so
// tests can send what no well-behaved client would (and read a pod without
// one). Every read gives up after 5 s.
#pragma once

#include <cstddef>
#include <string>

#include "control.pb.h"

namespace nfv::test {

class RawConnection {
 public:
  explicit RawConnection(int port);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  void send_bytes(const std::string& bytes);
  void finish_sending();
  // Reads one framed Response; false if the connection closed or timed out first.
  bool receive(nfv::control::Response& response);
  // True once the peer has closed its side.
  bool closed_by_peer();

 private:
  std::string read_exactly(std::size_t n);
  int fd_ = -1;
  bool connected_ = false;
};

}  // namespace nfv::test
