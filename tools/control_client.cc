#include "control_client.h"

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>

#include "control_decode.h"
#include "control_frame.h"

namespace nfv {

using boost::asio::ip::tcp;
// Far above any answer (a pod's stats are kilobytes), far below what a
// garbled header could make us allocate.
constexpr uint32_t kMaxResponseBytes = 64u << 20;

struct ControlClient::Connection {
  boost::asio::io_context io;
  tcp::socket socket{io};
  std::chrono::milliseconds timeout;

  // Runs the io_context until the operation completes or the timeout passes.
  void run_until_done(bool& done) {
    io.restart();
    io.run_for(timeout);
    if (!done) {
      socket.close();
      // The aborted handlers run now, while what they write to still exists.
      io.restart();
      io.run();
      throw std::runtime_error("control API: no answer within " + std::to_string(timeout.count()) + " ms");
    }
  }
};

ControlClient::ControlClient(const std::string& address, std::string token, std::chrono::milliseconds timeout)
    : connection_(std::make_unique<Connection>()), token_(std::move(token)) {
  connection_->timeout = timeout;
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("control address '" + address + "': expected host:port");
  tcp::resolver resolver(connection_->io);
  boost::system::error_code ec;
  const auto endpoints = resolver.resolve(address.substr(0, colon), address.substr(colon + 1), ec);
  if (ec) throw std::runtime_error("cannot reach the pod's control API at " + address + ": " + ec.message());
  // Bounded too: a host that drops the SYN would hold a blocking connect for minutes.
  bool done = false;
  boost::asio::async_connect(connection_->socket, endpoints, [&](boost::system::error_code e, const tcp::endpoint&) {
    ec = e;
    done = true;
  });
  try {
    connection_->run_until_done(done);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot reach the pod's control API at " + address + ": " + e.what());
  }
  if (ec) throw std::runtime_error("cannot reach the pod's control API at " + address + ": " + ec.message());
}

ControlClient::~ControlClient() = default;

nfv::control::Response ControlClient::call(nfv::control::Request request) {
  request.set_token(token_);
  Connection& c = *connection_;
  const std::string out = frame_message(request.SerializeAsString());
  boost::system::error_code ec;
  // The write is bounded as the read is: a pod that stopped reading fills
  // the socket buffer. Asio sends with MSG_NOSIGNAL, so a pod that went away
  // is an EPIPE error here, never a SIGPIPE.
  bool sent = false;
  boost::asio::async_write(c.socket, boost::asio::buffer(out), [&](boost::system::error_code e, std::size_t) {
    ec = e;
    sent = true;
  });
  c.run_until_done(sent);
  if (ec) throw std::runtime_error("control API: send failed: " + ec.message());
  unsigned char header[kFrameHeaderBytes];
  std::string body;
  std::string length_error;
  bool done = false;
  boost::asio::async_read(c.socket, boost::asio::buffer(header), [&](boost::system::error_code e, std::size_t) {
    if (e) {
      ec = e;
      done = true;
      return;
    }
    // A length beyond any answer is refused before it is allocated (an
    // empty body is a default Response).
    if (frame_length(header) > kMaxResponseBytes) {
      length_error = frame_length_error(frame_length(header), kMaxResponseBytes);
      done = true;
      return;
    }
    body.resize(frame_length(header));
    boost::asio::async_read(c.socket, boost::asio::buffer(body), [&](boost::system::error_code e2, std::size_t) {
      ec = e2;
      done = true;
    });
  });
  c.run_until_done(done);
  if (ec) throw std::runtime_error("control API: the pod closed the connection (" + ec.message() + ")");
  if (!length_error.empty()) {
    c.socket.close();  // the unread body would be read as the next answer
    throw std::runtime_error("control API: bad response: " + length_error);
  }
  nfv::control::Response response;
  if (auto error = decode_response(body.data(), body.size(), response); !error.empty())
    throw std::runtime_error("control API: " + error);
  return response;
}

}  // namespace nfv
