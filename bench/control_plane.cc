// control_plane: the cost and speed of controlling a loaded pod.
//  1. Plan latency: apply_plan requests (a hop between 2 and 3 instances)
//     sent to a pod forwarding at full rate; each reply comes after the new
//     routing snapshot is in effect on every worker (RCU grace period), so
//     the round trip bounds the time from request to plan in effect.
//  2. Telemetry cost: forwarding rate of the same pod with no control
//     endpoints, and with the control API, /metrics scraped by a client
//     every 100 ms and telemetry requested every 100 ms.
//
//   control_plane NFV_POD_BINARY [SECONDS] [OUT_DIR]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <google/protobuf/util/json_util.h>

#include "control_client.h"
#include "pod_stats.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string read(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

std::string pod_config(const std::string& name, const std::string& pcap, bool control) {
  std::string yaml = "name: " + name + R"(
sites: [{name: A, lat: 40.78, lon: -73.97}]
hosted_sites: [A]
mempool: {mbufs: 65535}
ports:
  - {name: p, driver: pcap, site: A, rx_pcap: )" + pcap + R"(, rx_pcap_loop: true}
chains:
  - {name: bench, id: 1, ingress_site: A, egress_site: A, egress_port: p, match: [{}],
     hops: [{vnf: forward, site: A, instances: 2}]}
)";
  if (control) yaml += "control: {port: 0, token: bench, metrics_port: 0}\n";
  return yaml;
}

struct PodProcess {  // an nfv-pod child process and its files
  pid_t pid = -1;
  std::string dir, name;
  std::string log() const { return dir + "/" + name + ".err"; }
  std::string stats() const { return dir + "/" + name + ".json"; }
};

PodProcess start(const std::string& binary, const std::string& dir, const std::string& name, const std::string& config, double seconds) {
  PodProcess pod{-1, dir, name};
  std::ofstream(dir + "/" + name + ".yaml") << config;
  pod.pid = fork();
  if (pod.pid == 0) {
    freopen((dir + "/" + name + ".out").c_str(), "w", stdout);
    freopen(pod.log().c_str(), "w", stderr);
    const std::string cfg = dir + "/" + name + ".yaml", secs = std::to_string(seconds);
    execl(binary.c_str(), binary.c_str(), "-l", "0,1", "--log-level=lib.eal:warning", "--", "--config", cfg.c_str(), "--run-for-s",
          secs.c_str(), "--stats-interval-s", "0", "--stats-json", pod.stats().c_str(), nullptr);
    _exit(127);
  }
  return pod;
}

int logged_port(const PodProcess& pod, const std::string& what) {
  const std::regex pattern(what + R"(.*?127\.0\.0\.1:(\d+))");
  for (int i = 0; i < 1000; ++i) {
    std::smatch m;
    const std::string log = read(pod.log());
    if (std::regex_search(log, m, pattern) && log.find("forwarding on") != std::string::npos) return std::stoi(m[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

double mpps(const PodProcess& pod) {
  waitpid(pod.pid, nullptr, 0);
  nfv::stats::PodStats stats;
  if (!google::protobuf::util::JsonStringToMessage(read(pod.stats()), &stats).ok() || stats.forwarding_s() <= 0) return 0;
  return static_cast<double>(stats.ports(0).tx_packets()) / stats.forwarding_s() / 1e6;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: control_plane NFV_POD_BINARY [SECONDS] [OUT_DIR]\n");
    return 2;
  }
  const std::string binary = argv[1];
  const double seconds = argc > 2 ? std::atof(argv[2]) : 5;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  const std::string pcap = dir + "/bench_64B_1024flows.pcap";
  if (access(pcap.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "%s missing: run pod_throughput first (it writes the capture)\n", pcap.c_str());
    return 2;
  }

  // 1. Plan latency under load.
  PodProcess loaded = start(binary, dir, "plan_latency", pod_config("plan_latency", pcap, true), seconds + 5);
  const int port = logged_port(loaded, "control API listening on");
  if (port < 0) {
    std::fprintf(stderr, "pod did not start:\n%s\n", read(loaded.log()).c_str());
    return 1;
  }
  std::vector<double> rtt_us;
  {
    nfv::ControlClient client("127.0.0.1:" + std::to_string(port), "bench");
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    for (int i = 0; Clock::now() < deadline; ++i) {
      nfv::control::Request request;
      auto* hop = request.mutable_apply_plan()->add_hops();
      hop->set_chain("bench");
      hop->set_hop(1);
      hop->set_instances(i % 2 ? 2 : 3);
      const auto t0 = Clock::now();
      const auto response = client.call(request);
      rtt_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      if (!response.ok()) {
        std::fprintf(stderr, "plan refused: %s\n", response.error().c_str());
        return 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  const double loaded_mpps = mpps(loaded);

  // 2. Forwarding with and without telemetry being read.
  PodProcess quiet = start(binary, dir, "telemetry_off", pod_config("telemetry_off", pcap, false), seconds);
  const double off = mpps(quiet);
  PodProcess watched = start(binary, dir, "telemetry_on", pod_config("telemetry_on", pcap, true), seconds);
  const int control_port = logged_port(watched, "control API listening on");
  const int metrics_port = logged_port(watched, "metrics on http://");
  int scrapes = 0;
  {
    nfv::ControlClient client("127.0.0.1:" + std::to_string(control_port), "bench");
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds - 0.5);
    while (Clock::now() < deadline) {
      nfv::control::Request request;
      request.mutable_telemetry();
      client.call(request);
      const std::string curl = "curl -s -o /dev/null http://127.0.0.1:" + std::to_string(metrics_port) + "/metrics";
      if (std::system(curl.c_str()) == 0) ++scrapes;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  const double on = mpps(watched);

  std::printf("control plane of a pod forwarding 64-byte frames on one worker core\n\n");
  std::printf("plan -> in effect (apply_plan round trip, reply after the RCU grace period), %zu plans at %.1f Mpps:\n",
              rtt_us.size(), loaded_mpps);
  std::printf("  p50 %.1f us   p95 %.1f us   p99 %.1f us   max %.1f us   (target p99 < 1000 us: %s)\n\n",
              percentile(rtt_us, 0.5), percentile(rtt_us, 0.95), percentile(rtt_us, 0.99), percentile(rtt_us, 1.0),
              percentile(rtt_us, 0.99) < 1000 ? "met" : "MISSED");
  std::printf("forwarding with telemetry off: %.2f Mpps\n", off);
  std::printf("forwarding with telemetry on : %.2f Mpps (%d /metrics scrapes + telemetry requests, every 100 ms)\n", on, scrapes);
  std::printf("  ratio %.3f (target >= 0.90: %s)\n", off > 0 ? on / off : 0, off > 0 && on / off >= 0.9 ? "met" : "MISSED");
  return 0;
}
