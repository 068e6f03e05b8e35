#include "control_tls.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <boost/asio/ip/address.hpp>

namespace nfv {
namespace ssl = boost::asio::ssl;
namespace {

// "control.tls" + "cert" -> "control.tls.cert" (a config field);
// "--tls" + "cert" -> "--tls-cert" (a command-line flag).
std::string file_field(const std::string& field, const std::string& file) {
  return field + (field.rfind("--", 0) == 0 ? "-" : ".") + file;
}

// Loads one file into the context, naming the field and OpenSSL's reason on failure.
template <typename Load>
void load(const std::string& field, const std::string& path, Load&& load_file) {
  if (access(path.c_str(), R_OK) != 0) throw std::runtime_error(field + ": cannot read '" + path + "' (" + std::strerror(errno) + ")");
  boost::system::error_code ec;
  load_file(ec);
  if (ec) throw std::runtime_error(field + ": cannot load '" + path + "' (not PEM of the right kind: " + ec.message() + ")");
}

ssl::context context(const TlsFiles& files, const std::string& field, ssl::context::method method) {
  if (const std::string missing = missing_tls_file(files); !missing.empty())
    throw std::runtime_error(file_field(field, missing.substr(1)) + ": required with the other TLS files (cert, key and ca)");
  ssl::context ctx(method);
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                  ssl::context::no_tlsv1_1);
  load(file_field(field, "cert"), files.cert, [&](auto& ec) { ctx.use_certificate_chain_file(files.cert, ec); });
  load(file_field(field, "key"), files.key, [&](auto& ec) { ctx.use_private_key_file(files.key, ssl::context::pem, ec); });
  if (SSL_CTX_check_private_key(ctx.native_handle()) != 1)
    throw std::runtime_error(file_field(field, "key") + ": '" + files.key + "' is not the key of the certificate in '" + files.cert + "'");
  load(file_field(field, "ca"), files.ca, [&](auto& ec) { ctx.load_verify_file(files.ca, ec); });
  return ctx;
}

}  // namespace

ssl::context server_tls_context(const TlsFiles& files, const std::string& field) {
  ssl::context ctx = context(files, field, ssl::context::tls_server);
  // Mutual: a client without a certificate the CA signed is refused in the handshake.
  ctx.set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  return ctx;
}

ssl::context client_tls_context(const TlsFiles& files, const std::string& field) {
  ssl::context ctx = context(files, field, ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_peer);
  return ctx;
}

}  // namespace nfv
