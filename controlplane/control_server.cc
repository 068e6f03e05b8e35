#include "control_server.h"

#include <chrono>
#include <type_traits>

#include <spdlog/spdlog.h>

#include "control_decode.h"
#include "control_frame.h"
#include "secret_checks.h"
#include "tcp_listener.h"

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

// One client connection: (with TLS, the handshake first) read a frame,
// answer it, repeat; on bad input answer with the error and close. `Stream`
// is a tcp::socket or an ssl::stream over one.
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(Stream stream, std::shared_ptr<ControlServer::Shared> shared)
      : stream_(std::move(stream)), deadline_(stream_.get_executor()), shared_(std::move(shared)), peer_(peer_address()) {}

  void start() {
    if (!shared_->throttle.allows(peer_)) {
      const auto wait = shared_->throttle.retry_in(peer_);
      spdlog::warn("control API: refused {}: too many failed attempts (next try in {} ms)", peer_, wait.count());
      if constexpr (kTls) return close();
      else return fail("too many failed attempts from " + peer_ + "; try again in " + std::to_string(wait.count()) + " ms");
    }
    if constexpr (kTls) handshake();
    else read_header();
  }

 private:
  static constexpr bool kTls = !std::is_same_v<Stream, tcp::socket>;

  void handshake() {
    auto self = this->shared_from_this();
    arm_deadline();
    stream_.async_handshake(boost::asio::ssl::stream_base::server, [self](boost::system::error_code ec) {
      self->deadline_.cancel();
      if (!ec) return self->read_header();
      // No certificate, one the CA did not sign, or not TLS at all.
      self->shared_->throttle.failed(self->peer_);
      spdlog::warn("control API: TLS handshake failed: {} (from {})", ec.message(), self->peer_);
      self->close();
    });
  }

  // The peer must finish what it started (a handshake, a frame) in time.
  void arm_deadline() {
    auto self = this->shared_from_this();
    deadline_.expires_after(kFrameDeadline);
    deadline_.async_wait([self](boost::system::error_code ec) {
      if (!ec) self->stream_.lowest_layer().cancel();
    });
  }

  // A frame's deadline runs from its first byte; the first frame's from the
  // connection's start, so a peer that connects and stalls is let go too.
  // Between frames a client may keep its connection idle (nfv-scaler does).
  void read_header() {
    auto self = this->shared_from_this();
    if (first_frame_) {
      first_frame_ = false;
      arm_deadline();
      return read_header_rest(0);
    }
    boost::asio::async_read(stream_, boost::asio::buffer(header_, 1), [self](boost::system::error_code ec, std::size_t) {
      if (ec) return;  // a clean close between frames is normal
      self->arm_deadline();
      self->read_header_rest(1);
    });
  }

  void read_header_rest(std::size_t have) {
    auto self = this->shared_from_this();
    boost::asio::async_read(stream_, boost::asio::buffer(header_ + have, sizeof header_ - have),
                            [self, have](boost::system::error_code ec, std::size_t n) {
      if (ec) {
        self->deadline_.cancel();
        // A close before a frame is normal; a close inside the header is not.
        if (have + n > 0) self->fail("truncated frame: " + std::to_string(have + n) + " of 4 header bytes");
        else self->close();
        return;
      }
      const uint32_t length = frame_length(self->header_);
      if (auto error = frame_length_error(length, self->shared_->max_frame_bytes); !error.empty()) {
        self->deadline_.cancel();
        return self->fail(error);
      }
      self->body_.resize(length);
      self->read_body();
    });
  }

  void read_body() {
    auto self = this->shared_from_this();
    boost::asio::async_read(stream_, boost::asio::buffer(body_), [self](boost::system::error_code ec, std::size_t n) {
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
    if (is_mutating(request) && !same_token(request.token(), shared_->token)) {
      shared_->throttle.failed(peer_);
      return fail("wrong token");
    }
    if (shared_->slow && shared_->slow(request)) {
      // Answered from the pool; the write goes back to this connection's
      // executor, and the next frame is read only after it, as below.
      auto self = this->shared_from_this();
      boost::asio::post(*shared_->slow_pool, [self, request = std::move(request)] {
        nfv::control::Response response = self->answer(request);
        boost::asio::post(self->stream_.get_executor(),
                          [self, response = std::move(response)] { self->write(response, true); });
      });
      return;
    }
    write(answer(request), true);
  }

  nfv::control::Response answer(const nfv::control::Request& request) const {
    try {
      return shared_->handler(request);
    } catch (const std::exception& e) {
      return error_response(e.what());
    }
  }

  void fail(const std::string& message) {
    spdlog::warn("control API: {} (from {})", message, peer_);
    write(error_response(message), false);
  }

  void write(const nfv::control::Response& response, bool keep_open) {
    out_ = frame_message(response.SerializeAsString());
    auto self = this->shared_from_this();
    boost::asio::async_write(stream_, boost::asio::buffer(out_), [self, keep_open](boost::system::error_code ec, std::size_t) {
      if (!ec && keep_open) return self->read_header();
      self->close();
    });
  }

  void close() {
    boost::system::error_code ignored;
    stream_.lowest_layer().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.lowest_layer().close(ignored);
  }

  std::string peer_address() const {
    boost::system::error_code ec;
    const auto endpoint = stream_.lowest_layer().remote_endpoint(ec);
    return ec ? "?" : endpoint.address().to_string();
  }

  Stream stream_;
  boost::asio::steady_timer deadline_;
  std::shared_ptr<ControlServer::Shared> shared_;
  std::string peer_;  // the address; its failures count together whatever the port
  bool first_frame_ = true;
  unsigned char header_[kFrameHeaderBytes];
  std::vector<unsigned char> body_;
  std::string out_;
};

}  // namespace

bool is_read_only_vnf_request(const std::string& request) { return request == "top" || request == "backends"; }

bool is_mutating(const nfv::control::Request& request) {
  return request.has_apply_plan() || request.has_set_link() || request.has_drain() || request.has_set_policy() ||
         (request.has_vnf() && !is_read_only_vnf_request(request.vnf().request()));
}

ControlServer::ControlServer(boost::asio::io_context& io, const std::string& address, uint16_t port,
                             uint32_t max_frame_bytes, std::string token, Handler handler, const TlsFiles& tls,
                             const std::string& tls_field)
    : acceptor_(io), shared_(std::make_shared<Shared>(Shared{max_frame_bytes, std::move(token), std::move(handler), nullptr, {}})) {
  if (tls.enabled())
    shared_->tls = std::make_unique<boost::asio::ssl::context>(server_tls_context(tls, tls_field));
  port_ = listen_on(acceptor_, address, port, "control API");
  accept();
}

void ControlServer::run_slow_requests_apart(SlowRequest slow) {
  if (!slow_pool_) slow_pool_ = std::make_unique<boost::asio::thread_pool>(1);
  shared_->slow_pool = slow_pool_.get();
  shared_->slow = std::move(slow);
}

void ControlServer::accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (!ec) {
      if (shared_->tls)
        std::make_shared<Session<boost::asio::ssl::stream<tcp::socket>>>(
            boost::asio::ssl::stream<tcp::socket>(std::move(socket), *shared_->tls), shared_)
            ->start();
      else
        std::make_shared<Session<tcp::socket>>(std::move(socket), shared_)->start();
    }
    if (acceptor_.is_open()) accept();
  });
}

}  // namespace nfv
