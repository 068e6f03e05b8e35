#include "control_client.h"

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>

#include "control_frame.h"

namespace nfv {

using boost::asio::ip::tcp;

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
  if (!ec) boost::asio::connect(connection_->socket, endpoints, ec);
  if (ec) throw std::runtime_error("cannot reach the pod's control API at " + address + ": " + ec.message());
}

ControlClient::~ControlClient() = default;

nfv::control::Response ControlClient::call(nfv::control::Request request) {
  request.set_token(token_);
  Connection& c = *connection_;
  const std::string out = frame_message(request.SerializeAsString());
  boost::system::error_code ec;
  boost::asio::write(c.socket, boost::asio::buffer(out), ec);
  if (ec) throw std::runtime_error("control API: send failed: " + ec.message());
  unsigned char header[kFrameHeaderBytes];
  std::string body;
  bool done = false;
  boost::asio::async_read(c.socket, boost::asio::buffer(header), [&](boost::system::error_code e, std::size_t) {
    if (e) {
      ec = e;
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
  nfv::control::Response response;
  if (!response.ParseFromString(body)) throw std::runtime_error("control API: malformed response");
  return response;
}

}  // namespace nfv
