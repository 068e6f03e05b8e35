// PodStats for people (aligned tables) and for scripts (JSON with the
// proto's field names). Used by nfv-pod at exit and by nfvctl.
#pragma once

#include <string>

#include <google/protobuf/message.h>

#include "pod_stats.pb.h"

namespace nfv {

std::string format_pod_stats(const nfv::stats::PodStats& stats);
// Any message as indented JSON, proto field names, zeros included.
std::string message_json(const google::protobuf::Message& message);
inline std::string pod_stats_json(const nfv::stats::PodStats& stats) { return message_json(stats); }

}  // namespace nfv
