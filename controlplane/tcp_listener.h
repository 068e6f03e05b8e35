// Opens a TCP acceptor on address:port (port 0 picks a free one) for the
// pod's endpoints; `what` names the endpoint in errors.
#pragma once

#include <string>
#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>

namespace nfv {

// Returns the bound port; throws std::runtime_error naming the problem.
uint16_t listen_on(boost::asio::ip::tcp::acceptor& acceptor, const std::string& address, uint16_t port, const std::string& what);

}  // namespace nfv
