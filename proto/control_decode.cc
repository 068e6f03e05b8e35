#include "control_decode.h"

#include <climits>

namespace nfv {

std::string frame_length_error(uint32_t length, uint32_t max_frame_bytes) {
  if (length == 0) return "empty frame";
  if (length > max_frame_bytes)
    return "frame of " + std::to_string(length) + " bytes exceeds the limit of " + std::to_string(max_frame_bytes);
  return "";
}

std::string decode_request(const void* body, std::size_t size, nfv::control::Request& request) {
  if (size > INT_MAX || !request.ParseFromArray(body, static_cast<int>(size)))
    return "malformed request: not an nfv.control.Request";
  if (request.kind_case() == nfv::control::Request::KIND_NOT_SET) return "malformed request: names no operation";
  return "";
}

std::string decode_response(const void* body, std::size_t size, nfv::control::Response& response) {
  if (size > INT_MAX || !response.ParseFromArray(body, static_cast<int>(size)))
    return "malformed response: not an nfv.control.Response";
  return "";
}

}  // namespace nfv
