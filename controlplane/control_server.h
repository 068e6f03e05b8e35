// The pod's control API server (Boost.Asio, on the pod's control thread):
// length-prefixed nfv.control.Request in, nfv.control.Response out. Bad
// input never reaches the handler: an oversized length, a frame cut short
// (the peer closes or stalls mid-frame), bytes that are not a Request, a
// Request naming no operation, or a mutating request with the wrong token
// get a Response with ok = false, then the connection is closed. The pod
// keeps forwarding throughout: the server never touches the fast path.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>

#include "control.pb.h"

namespace nfv {

class ControlServer {
 public:
  using Handler = std::function<nfv::control::Response(const nfv::control::Request&)>;

  // Binds address:port (port 0 picks a free one) and starts accepting.
  // Throws std::runtime_error when the address cannot be bound.
  ControlServer(boost::asio::io_context& io, const std::string& address, uint16_t port, uint32_t max_frame_bytes,
                std::string token, Handler handler);

  uint16_t port() const { return port_; }

  struct Shared {
    uint32_t max_frame_bytes;
    std::string token;
    Handler handler;
  };

 private:
  void accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<Shared> shared_;
  uint16_t port_ = 0;
};

// Whether a request changes the pod (and so needs the token).
bool is_mutating(const nfv::control::Request& request);

}  // namespace nfv
