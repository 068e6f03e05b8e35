#include "control_client.h"

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

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
  std::unique_ptr<boost::asio::ssl::context> tls_context;
  std::unique_ptr<boost::asio::ssl::stream<tcp::socket&>> tls;  // over `socket`; null: plain TCP

  // Calls f with the stream requests travel on.
  template <typename F>
  void on_stream(F&& f) {
    if (tls) f(*tls);
    else f(socket);
  }

  // Runs the io_context until the operation completes or the timeout passes.
  void run_until_done(bool& done) {
    io.restart();
    io.run_for(timeout);
    // A caller stopped past its deadline (SIGSTOP, a stalled VM) would take
    // the answer that came meanwhile for none: run_for checks the clock
    // before it waits, and a wait the stop cut short returned empty. What is
    // ready runs before the call counts as unanswered.
    while (!done && io.poll() > 0) {
    }
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
    : ControlClient(address, std::move(token), TlsFiles{}, "", timeout) {}

ControlClient::ControlClient(const std::string& address, std::string token, const TlsFiles& tls, const std::string& tls_field,
                             std::chrono::milliseconds timeout)
    : connection_(std::make_unique<Connection>()), token_(std::move(token)) {
  connection_->timeout = timeout;
  if (tls.enabled()) connection_->tls_context = std::make_unique<boost::asio::ssl::context>(client_tls_context(tls, tls_field));
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("control address '" + address + "': expected host:port");
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);  // [::1]
  // Every request carries the token: in plaintext only over loopback.
  if (!tls.enabled() && !is_loopback_address(host)) {
    const std::string files = tls_field.empty()           ? "--tls-cert/--tls-key/--tls-ca, or pods[i].tls"
                              : tls_field.starts_with("--") ? tls_field + "-cert, " + tls_field + "-key and " + tls_field + "-ca"
                                                            : tls_field + " {cert, key, ca}";
    throw std::runtime_error("control API at " + address + ": off loopback it speaks only mutual TLS (the token would travel in"
                             " plaintext); give the TLS files: " + files);
  }
  tcp::resolver resolver(connection_->io);
  boost::system::error_code ec;
  const auto endpoints = resolver.resolve(host, address.substr(colon + 1), ec);
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
  if (connection_->tls_context) handshake(host);
}

void ControlClient::handshake(const std::string& host) {
  Connection& c = *connection_;
  c.tls = std::make_unique<boost::asio::ssl::stream<tcp::socket&>>(c.socket, *c.tls_context);
  // The server's certificate must name the host dialled (a DNS name or an IP address).
  c.tls->set_verify_callback(boost::asio::ssl::host_name_verification(host));
  boost::system::error_code not_ip;
  boost::asio::ip::make_address(host, not_ip);
  if (not_ip) SSL_set_tlsext_host_name(c.tls->native_handle(), host.c_str());  // SNI takes names only
  boost::system::error_code ec;
  bool done = false;
  c.tls->async_handshake(boost::asio::ssl::stream_base::client, [&](boost::system::error_code e) {
    ec = e;
    done = true;
  });
  try {
    c.run_until_done(done);
  } catch (const std::exception& e) {
    throw std::runtime_error("TLS handshake with the control API at " + host + ": " + e.what());
  }
  if (ec == boost::asio::ssl::error::stream_truncated)
    // A bare "stream truncated" says nothing: name what makes a server hang up here.
    throw std::runtime_error("TLS handshake with the control API at " + host +
                             " failed: the server closed the connection during the handshake (it refuses an address for a"
                             " while after failed attempts, or does not trust this certificate's CA)");
  if (ec) throw std::runtime_error("TLS handshake with the control API at " + host + " failed: " + ec.message());
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
  c.on_stream([&](auto& stream) {
    boost::asio::async_write(stream, boost::asio::buffer(out), [&](boost::system::error_code e, std::size_t) {
      ec = e;
      sent = true;
    });
  });
  c.run_until_done(sent);
  if (ec) throw std::runtime_error("control API: send failed: " + ec.message());
  unsigned char header[kFrameHeaderBytes];
  std::string body;
  std::string length_error;
  bool done = false;
  c.on_stream([&](auto& stream) {
    boost::asio::async_read(stream, boost::asio::buffer(header), [&](boost::system::error_code e, std::size_t) {
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
      boost::asio::async_read(stream, boost::asio::buffer(body), [&](boost::system::error_code e2, std::size_t) {
        ec = e2;
        done = true;
      });
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
