// Certificates for TLS tests, made at test time with the openssl CLI (no
// private key is ever committed): a CA, a server certificate for 127.0.0.1
// and localhost, a client certificate from the same CA, and a client
// certificate from another CA the server does not trust.
#pragma once

#include <string>

namespace nfv::test {

struct TestPki {
  std::string ca;                        // the CA both sides trust
  std::string server_cert, server_key;   // names IP 127.0.0.1 and DNS localhost
  std::string client_cert, client_key;   // signed by `ca`
  std::string rogue_cert, rogue_key;     // signed by a CA nobody trusts
  std::string error;                     // empty when every file was made
};

// Writes the files under dir; keys are mode 600.
TestPki make_test_pki(const std::string& dir);

}  // namespace nfv::test
