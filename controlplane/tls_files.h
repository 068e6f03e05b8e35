// Where a control API endpoint's TLS material lives (PEM files), as configs
// give it; control_tls.h makes contexts of it.
#pragma once

#include <arpa/inet.h>

#include <algorithm>
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

// Whether `address` is a loopback address (an IP literal, brackets allowed
// around IPv6, or "localhost"): the only place a control API may listen, or
// a client send its token, without TLS.
inline bool is_loopback_address(std::string address) {
  if (address == "localhost") return true;
  if (address.size() > 2 && address.front() == '[' && address.back() == ']') address = address.substr(1, address.size() - 2);
  in_addr v4;
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) {
    static const in6_addr v6_loopback = IN6ADDR_LOOPBACK_INIT;
    static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::equal(v6.s6_addr, v6.s6_addr + 16, v6_loopback.s6_addr)) return true;
    return std::equal(v4_mapped, v4_mapped + 12, v6.s6_addr) && v6.s6_addr[12] == 127;
  }
  return false;
}

// What is wrong with a control endpoint's TLS files, for the config field
// `field` (say "control.tls" or "pods[0].tls") of an endpoint at `host` (the
// address it listens on or dials; `where` shows it, say "listen 0.0.0.0"):
// some files but not all three, or none off loopback (the token would travel
// in plaintext). An empty message when all is well.
struct TlsFilesProblem {
  std::string field;
  std::string message;
};
inline TlsFilesProblem tls_files_problem(const TlsFiles& files, const std::string& field, const std::string& host,
                                         const std::string& where) {
  if (const std::string missing = missing_tls_file(files); !missing.empty())
    return {field + missing, "a PEM file: TLS needs cert, key and ca"};
  if (!files.enabled() && !is_loopback_address(host))
    return {field, "cert, key and ca files: off loopback (" + where + ") the control API speaks only mutual TLS"};
  return {};
}

}  // namespace nfv
