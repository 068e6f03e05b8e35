// The pod's control API server (Boost.Asio, on the pod's control thread):
// length-prefixed nfv.control.Request in, nfv.control.Response out. Bad
// input never reaches the handler: an oversized length, a frame cut short
// (the peer closes or stalls mid-frame), bytes that are not a Request, a
// Request naming no operation, or a mutating request with the wrong token
// get a Response with ok = false, then the connection is closed. The pod
// keeps forwarding throughout: the server never touches the fast path.
//
// With TLS files it speaks mutual TLS only (control_tls.h); a client that
// fails the handshake or presents a wrong token counts against its address
// (auth_throttle.h), and an address that failed too often is refused until
// it may try again. Tokens are compared in constant time.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>

#include "auth_throttle.h"
#include "control.pb.h"
#include "control_tls.h"

namespace nfv {

class ControlServer {
 public:
  using Handler = std::function<nfv::control::Response(const nfv::control::Request&)>;

  // Binds address:port (port 0 picks a free one) and starts accepting.
  // Throws std::runtime_error when the address cannot be bound, or a TLS
  // file cannot be loaded (naming `tls_field`'s .cert, .key or .ca).
  ControlServer(boost::asio::io_context& io, const std::string& address, uint16_t port, uint32_t max_frame_bytes,
                std::string token, Handler handler, const TlsFiles& tls = {}, const std::string& tls_field = "control.tls");

  uint16_t port() const { return port_; }

  // Requests for which `slow` says yes run on a thread of their own, not
  // on the io thread, so that the server (and whatever else shares its
  // io_context: a /metrics endpoint) answers meanwhile; a connection still
  // gets its answers in order. The handler must then be safe to call from
  // two threads at once. Unset: every request runs on the io thread. Call
  // it before the io_context runs, and destroy the server only after the
  // io_context has stopped (its sessions reach the server's thread).
  using SlowRequest = std::function<bool(const nfv::control::Request&)>;
  void run_slow_requests_apart(SlowRequest slow);

  bool tls() const { return shared_->tls != nullptr; }

  struct Shared {
    uint32_t max_frame_bytes;
    std::string token;
    Handler handler;
    std::unique_ptr<boost::asio::ssl::context> tls;  // null: plain TCP
    AuthThrottle throttle;
    SlowRequest slow;                                // unset: none
    boost::asio::thread_pool* slow_pool = nullptr;  // the server's, where `slow` is set
  };

 private:
  void accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<Shared> shared_;
  uint16_t port_ = 0;
  // Last, so that it goes first: its destructor waits for a slow request
  // still running, while the sessions it answers can still be reached.
  std::unique_ptr<boost::asio::thread_pool> slow_pool_;
};

// Whether a VNF-control request only reads an instance ("top", "backends");
// any other one may change its state.
bool is_read_only_vnf_request(const std::string& request);

// Whether a request changes the pod (and so needs the token): VNF-control
// requests included, unless they only read.
bool is_mutating(const nfv::control::Request& request);

}  // namespace nfv
