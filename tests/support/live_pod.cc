#include "live_pod.h"

#include <regex>

#include <gtest/gtest.h>

#include "control.pb.h"
#include "control_frame.h"
#include "bounded_wait.h"
#include "raw_connection.h"

namespace nfv::test {

int logged_port(const PodRun& pod, const std::string& what) {
  const std::regex pattern(what + R"(.*?127\.0\.0\.1:(\d+))");
  int port = -1;
  poll_until(
      [&] {
        std::smatch m;
        const std::string log = read_file(pod.stderr_path());
        if (std::regex_search(log, m, pattern) && log.find("forwarding on") != std::string::npos) port = std::stoi(m[1]);
        return port > 0;
      },
      std::chrono::seconds(10));
  return port;
}

nfv::stats::PodStats live_stats(int control_port) {
  nfv::control::Request request;
  request.mutable_telemetry();
  RawConnection connection(control_port);
  connection.send_bytes(frame_message(request.SerializeAsString()));
  nfv::control::Response response;
  const bool answered = connection.connected() && connection.receive(response);
  EXPECT_TRUE(answered && response.ok()) << "no telemetry from the pod's control API on port " << control_port << ": "
                                         << response.error();
  return response.telemetry();
}

}  // namespace nfv::test
