// Framing of the control API: each message is a 4-byte big-endian length
// followed by that many bytes of a serialized protobuf message.
#pragma once

#include <cstdint>
#include <string>

namespace nfv {

inline constexpr uint32_t kDefaultMaxFrameBytes = 1u << 20;
inline constexpr std::size_t kFrameHeaderBytes = 4;

inline std::string frame_message(const std::string& payload) {
  const auto n = static_cast<uint32_t>(payload.size());
  std::string framed{static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n)};
  return framed + payload;
}

inline uint32_t frame_length(const unsigned char header[kFrameHeaderBytes]) {
  return (uint32_t{header[0]} << 24) | (uint32_t{header[1]} << 16) | (uint32_t{header[2]} << 8) | header[3];
}

}  // namespace nfv
