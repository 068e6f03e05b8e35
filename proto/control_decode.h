// The checks every reader of the control API's frames (control_frame.h)
// makes before it trusts one: the length the header announces, and the body
// as a request or a response. Each returns the error to report, or "" when
// the frame may be used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "control.pb.h"

namespace nfv {

// A zero length, or one over `max_frame_bytes`, is refused before any byte
// of the body is read (or allocated).
std::string frame_length_error(uint32_t length, uint32_t max_frame_bytes);
// `request` holds the parsed message when the result is "".
std::string decode_request(const void* body, std::size_t size, nfv::control::Request& request);
std::string decode_response(const void* body, std::size_t size, nfv::control::Response& response);

}  // namespace nfv
