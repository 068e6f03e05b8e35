#include "raw_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control_frame.h"

namespace nfv::test {

RawConnection::RawConnection(int port) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  timeval tv{5, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

RawConnection::~RawConnection() { close(fd_); }

void RawConnection::send_bytes(const std::string& bytes) { (void)::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }

void RawConnection::finish_sending() { shutdown(fd_, SHUT_WR); }

bool RawConnection::receive(nfv::control::Response& response) {
  const std::string header = read_exactly(kFrameHeaderBytes);
  if (header.size() != kFrameHeaderBytes) return false;
  const std::string body = read_exactly(frame_length(reinterpret_cast<const unsigned char*>(header.data())));
  return response.ParseFromString(body);
}

bool RawConnection::closed_by_peer() {
  char c;
  return recv(fd_, &c, 1, 0) == 0;
}

std::string RawConnection::read_exactly(std::size_t n) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = recv(fd_, out.data() + got, n - got, 0);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  out.resize(got);
  return out;
}

}  // namespace nfv::test
