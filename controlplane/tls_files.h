// Where a control API endpoint's TLS material lives (PEM files), as configs
// give it; control_tls.h makes contexts of it.
#pragma once

#include <string>

namespace nfv {

// All three or none: none means plain TCP (loopback only).
struct TlsFiles {
  std::string cert;  // this side's certificate (chain)
  std::string key;   // its private key
  std::string ca;    // the CA the other side's certificate must chain to
  bool enabled() const { return !cert.empty() || !key.empty() || !ca.empty(); }
};

// The field of TlsFiles that is missing when only some are given ("" when
// all or none are): ".cert", ".key" or ".ca".
inline std::string missing_tls_file(const TlsFiles& files) {
  if (!files.enabled()) return "";
  if (files.cert.empty()) return ".cert";
  if (files.key.empty()) return ".key";
  if (files.ca.empty()) return ".ca";
  return "";
}

// Whether `address` (an IP literal) is a loopback address: the only place a
// control API may listen without TLS.
bool is_loopback_address(const std::string& address);

}  // namespace nfv
