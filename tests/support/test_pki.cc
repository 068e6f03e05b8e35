#include "test_pki.h"

#include "subprocess.h"

namespace nfv::test {
namespace {

// A P-256 key and a certificate for `subject`, signed by ca/ca_key (or self-signed as a CA when ca is empty).
std::string make_cert(const std::string& dir, const std::string& name, const std::string& subject, const std::string& ca,
                      const std::string& ca_key, const std::string& extensions) {
  const std::string key = dir + "/" + name + ".key", cert = dir + "/" + name + ".pem";
  const std::string new_key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + key;
  std::string command;
  if (ca.empty()) {
    command = "openssl req -x509 " + new_key + " -out " + cert + " -days 2 -subj /CN=" + subject +
              " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign";
  } else {
    write_file(dir + "/" + name + ".ext", extensions + "\n");
    command = "openssl req " + new_key + " -out " + dir + "/" + name + ".csr -subj /CN=" + subject + " && openssl x509 -req -in " +
              dir + "/" + name + ".csr -CA " + ca + " -CAkey " + ca_key + " -CAcreateserial -days 2 -out " + cert + " -extfile " +
              dir + "/" + name + ".ext";
  }
  const CommandResult r = run_command("umask 077 && " + command, 30);
  return r.exit_code == 0 ? "" : name + ": " + r.output;
}

}  // namespace

TestPki make_test_pki(const std::string& dir) {
  TestPki pki;
  pki.ca = dir + "/ca.pem";
  pki.server_cert = dir + "/server.pem", pki.server_key = dir + "/server.key";
  pki.client_cert = dir + "/client.pem", pki.client_key = dir + "/client.key";
  pki.rogue_cert = dir + "/rogue.pem", pki.rogue_key = dir + "/rogue.key";
  for (const std::string& error :
       {make_cert(dir, "ca", "nfv-test-ca", "", "", ""), make_cert(dir, "rogue-ca", "nfv-rogue-ca", "", "", ""),
        make_cert(dir, "server", "127.0.0.1", pki.ca, dir + "/ca.key",
                  "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth"),
        make_cert(dir, "client", "nfv-operator", pki.ca, dir + "/ca.key", "extendedKeyUsage=clientAuth"),
        make_cert(dir, "rogue", "nfv-operator", dir + "/rogue-ca.pem", dir + "/rogue-ca.key", "extendedKeyUsage=clientAuth")})
    if (pki.error.empty()) pki.error = error;
  return pki;
}

}  // namespace nfv::test
