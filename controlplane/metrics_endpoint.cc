#include "metrics_endpoint.h"

#include <memory>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "tcp_listener.h"

namespace nfv {
namespace {

namespace http = boost::beast::http;
using boost::asio::ip::tcp;

class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(tcp::socket socket, const MetricsEndpoint::Render& render) : stream_(std::move(socket)), render_(render) {}

  void start() {
    stream_.expires_after(std::chrono::seconds(5));
    auto self = shared_from_this();
    http::async_read(stream_, buffer_, request_, [self](boost::beast::error_code ec, std::size_t) {
      if (!ec) self->answer();
    });
  }

 private:
  void answer() {
    response_.version(request_.version());
    response_.keep_alive(false);
    if (request_.method() == http::verb::get && request_.target() == "/metrics") {
      response_.result(http::status::ok);
      response_.set(http::field::content_type, "text/plain; version=0.0.4");
      response_.body() = render_();
    } else if (request_.target() == "/metrics") {
      // Read-only: nothing sent here changes anything.
      response_.result(http::status::method_not_allowed);
      response_.set(http::field::allow, "GET");
      response_.set(http::field::content_type, "text/plain");
      response_.body() = "/metrics is read-only: GET only\n";
    } else {
      response_.result(http::status::not_found);
      response_.set(http::field::content_type, "text/plain");
      response_.body() = "only /metrics is served here\n";
    }
    response_.prepare_payload();
    auto self = shared_from_this();
    http::async_write(stream_, response_, [self](boost::beast::error_code, std::size_t) {
      boost::beast::error_code ignored;
      self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    });
  }

  boost::beast::tcp_stream stream_;
  const MetricsEndpoint::Render& render_;
  boost::beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

}  // namespace

MetricsEndpoint::MetricsEndpoint(boost::asio::io_context& io, const std::string& address, uint16_t port, Render render)
    : acceptor_(io), render_(std::move(render)) {
  port_ = listen_on(acceptor_, address, port, "metrics endpoint");
  accept();
}

void MetricsEndpoint::accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (!ec) std::make_shared<Exchange>(std::move(socket), render_)->start();
    if (acceptor_.is_open()) accept();
  });
}

}  // namespace nfv
