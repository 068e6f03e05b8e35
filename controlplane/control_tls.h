// TLS for the control API (Boost.Asio ssl over OpenSSL), always mutual: the
// server presents its certificate and accepts only clients whose certificate
// chains to its CA; the client checks the server's certificate (chain and
// host name or IP) against its CA and presents its own. The token is still
// required on top: TLS says which hosts may talk, the token which may change.
#pragma once

#include <string>
#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio/ssl.hpp>

#include "tls_files.h"

namespace nfv {

// Contexts from the files; throw std::runtime_error naming the file that
// would not load and its field: `field` "control.tls" gives "control.tls.key",
// a flag "--tls" gives "--tls-key".
boost::asio::ssl::context server_tls_context(const TlsFiles& files, const std::string& field);
boost::asio::ssl::context client_tls_context(const TlsFiles& files, const std::string& field);

}  // namespace nfv
