// Prometheus scrape endpoint (Boost.Beast, HTTP/1.1 on the pod's control
// thread): GET /metrics answers the exposition text of fresh counters; any
// other path is 404. One request per connection.
#pragma once

#include <functional>
#include <string>

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>

namespace nfv {

class MetricsEndpoint {
 public:
  using Render = std::function<std::string()>;

  // Throws std::runtime_error when address:port cannot be bound (port 0 picks one).
  MetricsEndpoint(boost::asio::io_context& io, const std::string& address, uint16_t port, Render render);
  uint16_t port() const { return port_; }

 private:
  void accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  Render render_;
  uint16_t port_ = 0;
};

}  // namespace nfv
