#include "secret_checks.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <sys/stat.h>

#include <cstdio>

namespace nfv {

bool same_token(std::string_view presented, std::string_view expected) {
  unsigned char a[SHA256_DIGEST_LENGTH], b[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(presented.data()), presented.size(), a);
  SHA256(reinterpret_cast<const unsigned char*>(expected.data()), expected.size(), b);
  return CRYPTO_memcmp(a, b, sizeof(a)) == 0;
}

std::string readable_secret_warning(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !(st.st_mode & (S_IRGRP | S_IROTH))) return "";
  char mode[8];
  std::snprintf(mode, sizeof(mode), "%03o", static_cast<unsigned>(st.st_mode & 0777));
  return path + " holds a control token but is readable by " + ((st.st_mode & S_IROTH) ? "every user" : "its group") +
         " (mode " + mode + "); chmod 600 it";
}

}  // namespace nfv
