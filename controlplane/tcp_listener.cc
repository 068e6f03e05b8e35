#include "tcp_listener.h"

#include <stdexcept>

namespace nfv {

uint16_t listen_on(boost::asio::ip::tcp::acceptor& acceptor, const std::string& address, uint16_t port, const std::string& what) {
  using boost::asio::ip::tcp;
  boost::system::error_code ec;
  const auto ip = boost::asio::ip::make_address(address, ec);
  if (ec) throw std::runtime_error("control.listen: expected an IP address, got '" + address + "'");
  const tcp::endpoint endpoint(ip, port);
  acceptor.open(endpoint.protocol());
  acceptor.set_option(tcp::acceptor::reuse_address(true));
  acceptor.bind(endpoint, ec);
  if (ec) throw std::runtime_error(what + ": cannot bind " + address + ":" + std::to_string(port) + " (" + ec.message() + ")");
  acceptor.listen();
  return acceptor.local_endpoint().port();
}

}  // namespace nfv
