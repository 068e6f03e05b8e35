// A blocking client of a pod's control API (proto/control.proto): used by
// nfvctl, by tests, and later by the scaler. One connection, many calls.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "control.pb.h"
#include "control_tls.h"

namespace nfv {

class ControlClient {
 public:
  // "host:port"; throws std::runtime_error when the pod cannot be reached.
  ControlClient(const std::string& address, std::string token,
                std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Over mutual TLS when `tls` names files (control_tls.h): the server's
  // certificate must chain to tls.ca and name the host (or IP) of `address`;
  // errors about the files name `tls_field`'s .cert, .key or .ca.
  ControlClient(const std::string& address, std::string token, const TlsFiles& tls, const std::string& tls_field,
                std::chrono::milliseconds timeout = std::chrono::seconds(5));
  ~ControlClient();

  // Sends the request (with the token) and waits for the response.
  // Throws std::runtime_error on I/O errors or a malformed reply.
  nfv::control::Response call(nfv::control::Request request);

 private:
  void handshake(const std::string& host);

  struct Connection;
  std::unique_ptr<Connection> connection_;
  std::string token_;
};

}  // namespace nfv
