// Handling secrets (control API tokens) without giving them away: comparing
// them in constant time, and noticing a file that holds one but others may read.
#pragma once

#include <string>
#include <string_view>

namespace nfv {

// Whether `presented` equals `expected`, in a time that tells nothing about
// either (both are hashed, then the digests compared with CRYPTO_memcmp).
bool same_token(std::string_view presented, std::string_view expected);

// A warning for a file holding a secret that users other than its owner
// (group or others) may read, naming the file and the fix; "" when it is
// private (or cannot be examined).
std::string readable_secret_warning(const std::string& path);

}  // namespace nfv
