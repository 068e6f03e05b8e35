// Incremental Internet checksum updates (RFC 1624): rewriting an address or
// port adjusts the stored checksum instead of summing the whole packet again.
#pragma once

#include <cstdint>
#include <cstring>

namespace nfv {

// Pointers may be unaligned (packed headers): every access is a memcpy.
// Folds the change of 16-bit words old_words -> new_words (network order, `words` of them)
// into `*checksum` (network order, as stored in the header).
inline void checksum_adjust(void* checksum, const void* old_words, const void* new_words, int words) {
  uint16_t stored;
  std::memcpy(&stored, checksum, 2);
  uint32_t sum = static_cast<uint16_t>(~stored);
  const auto* o = static_cast<const uint8_t*>(old_words);
  const auto* n = static_cast<const uint8_t*>(new_words);
  // Byte order does not matter for one's-complement sums as long as it is the same
  // for every word; native loads keep it so.
  for (int i = 0; i < words; ++i) {
    uint16_t ow, nw;
    std::memcpy(&ow, o + 2 * i, 2);
    std::memcpy(&nw, n + 2 * i, 2);
    sum += static_cast<uint16_t>(~ow);
    sum += nw;
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  stored = static_cast<uint16_t>(~sum);
  std::memcpy(checksum, &stored, 2);
}

// UDP over IPv4: a zero checksum means "none" and stays zero; a computed zero is sent as 0xffff.
inline void udp_checksum_adjust(void* checksum, const void* old_words, const void* new_words, int words) {
  uint16_t stored;
  std::memcpy(&stored, checksum, 2);
  if (stored == 0) return;
  checksum_adjust(checksum, old_words, new_words, words);
  std::memcpy(&stored, checksum, 2);
  if (stored == 0) {
    stored = 0xffff;
    std::memcpy(checksum, &stored, 2);
  }
}

}  // namespace nfv
