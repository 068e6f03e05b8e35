#include "control_server.h"

#include <chrono>

#include <spdlog/spdlog.h>

#include "tcp_listener.h"

#include "control_decode.h"
#include "control_frame.h"

namespace nfv {
namespace {

using boost::asio::ip::tcp;
constexpr auto kFrameDeadline = std::chrono::seconds(2);

nfv::control::Response error_response(const std::string& message) {
  nfv::control::Response response;
  response.set_ok(false);
  response.set_error(message);
  return response;
}

// One client connection: read a frame, answer it, repeat; on bad input
// answer with the error and close.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, std::shared_ptr<ControlServer::Shared> shared)
      : socket_(std::move(socket)), deadline_(socket_.get_executor()), shared_(std::move(shared)) {}

  void start() { read_header(); }

 private:
  void read_header() {
    auto self = shared_from_this();
    boost::asio::async_read(socket_, boost::asio::buffer(header_), [self](boost::system::error_code ec, std::size_t n) {
      if (ec) {
        // A clean close between frames is normal; a close inside the header is not.
        if (n > 0) self->fail("truncated frame: " + std::to_string(n) + " of 4 header bytes");
        return;
      }
      const uint32_t length = frame_length(self->header_);
      if (auto error = frame_length_error(length, self->shared_->max_frame_bytes); !error.empty()) return self->fail(error);
      self->body_.resize(length);
      self->read_body();
    });
  }

  void read_body() {
    auto self = shared_from_this();
    deadline_.expires_after(kFrameDeadline);
    deadline_.async_wait([self](boost::system::error_code ec) {
      if (!ec) self->socket_.cancel();  // the body did not arrive in time
    });
    boost::asio::async_read(socket_, boost::asio::buffer(body_), [self](boost::system::error_code ec, std::size_t n) {
      self->deadline_.cancel();
      if (ec) {
        return self->fail("truncated frame: " + std::to_string(n) + " of " + std::to_string(self->body_.size()) +
                          " bytes arrived");
      }
      self->handle();
    });
  }

  void handle() {
    nfv::control::Request request;
    if (auto error = decode_request(body_.data(), body_.size(), request); !error.empty()) return fail(error);
    if (is_mutating(request) && request.token() != shared_->token) return fail("wrong token");
    nfv::control::Response response;
    try {
      response = shared_->handler(request);
    } catch (const std::exception& e) {
      response = error_response(e.what());
    }
    write(response, true);
  }

  void fail(const std::string& message) {
    spdlog::warn("control API: {} (from {})", message, peer());
    write(error_response(message), false);
  }

  void write(const nfv::control::Response& response, bool keep_open) {
    out_ = frame_message(response.SerializeAsString());
    auto self = shared_from_this();
    boost::asio::async_write(socket_, boost::asio::buffer(out_), [self, keep_open](boost::system::error_code ec, std::size_t) {
      if (!ec && keep_open) return self->read_header();
      boost::system::error_code ignored;
      self->socket_.shutdown(tcp::socket::shutdown_both, ignored);
      self->socket_.close(ignored);
    });
  }

  std::string peer() const {
    boost::system::error_code ec;
    const auto endpoint = socket_.remote_endpoint(ec);
    return ec ? "?" : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  }

  tcp::socket socket_;
  boost::asio::steady_timer deadline_;
  std::shared_ptr<ControlServer::Shared> shared_;
  unsigned char header_[kFrameHeaderBytes];
  std::vector<unsigned char> body_;
  std::string out_;
};

}  // namespace

bool is_mutating(const nfv::control::Request& request) {
  return request.has_apply_plan() || request.has_set_link() || request.has_drain() || request.has_set_policy();
}

ControlServer::ControlServer(boost::asio::io_context& io, const std::string& address, uint16_t port,
                             uint32_t max_frame_bytes, std::string token, Handler handler)
    : acceptor_(io), shared_(std::make_shared<Shared>(Shared{max_frame_bytes, std::move(token), std::move(handler)})) {
  port_ = listen_on(acceptor_, address, port, "control API");
  accept();
}

void ControlServer::accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (!ec) std::make_shared<Session>(std::move(socket), shared_)->start();
    if (acceptor_.is_open()) accept();
  });
}

}  // namespace nfv
