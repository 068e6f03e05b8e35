// udp_probe: sends or receives timestamped UDP datagrams through kernel
// sockets, to measure one-way delay and loss across a pod from the outside.
// Sender and receiver run in network namespaces of one host, so they share
// CLOCK_MONOTONIC.
//
//   udp_probe send DST_IP PORT COUNT INTERVAL_US
//   udp_probe recv PORT COUNT TIMEOUT_MS     -> prints "received N median_us X mean_us Y min_us Z max_us W"
//   udp_probe flows DST_IP PORT COUNT SRC    COUNT flows (source ports SRC, SRC+1, ...), one datagram each
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <numeric>
#include <vector>

namespace {

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

struct Probe {
  uint64_t sequence;
  uint64_t sent_ns;
};

int send_probes(const char* dst, int port, long count, long interval_us) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, dst, &to.sin_addr) != 1) return 2;
  uint64_t next = monotonic_ns();
  for (long i = 0; i < count; ++i) {
    while (monotonic_ns() < next) {
    }
    Probe p{static_cast<uint64_t>(i), monotonic_ns()};
    if (sendto(fd, &p, sizeof(p), 0, reinterpret_cast<sockaddr*>(&to), sizeof(to)) < 0) std::perror("sendto");
    next += static_cast<uint64_t>(interval_us) * 1000;
  }
  close(fd);
  return 0;
}

int send_flows(const char* dst, int port, long count, int first_source_port) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, dst, &to.sin_addr) != 1) return 2;
  for (long i = 0; i < count; ++i) {
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in from{};
    from.sin_family = AF_INET;
    from.sin_port = htons(static_cast<uint16_t>(first_source_port + i));
    if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0) std::perror("bind");
    Probe p{static_cast<uint64_t>(i), monotonic_ns()};
    if (sendto(fd, &p, sizeof(p), 0, reinterpret_cast<sockaddr*>(&to), sizeof(to)) < 0) std::perror("sendto");
    close(fd);
  }
  return 0;
}

int receive_probes(int port, long count, long timeout_ms) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    std::perror("bind");
    return 2;
  }
  timeval tv{0, 100000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::printf("ready\n");
  std::fflush(stdout);
  std::vector<double> delays_us;
  uint64_t last_packet = monotonic_ns();
  while (static_cast<long>(delays_us.size()) < count &&
         monotonic_ns() - last_packet < static_cast<uint64_t>(timeout_ms) * 1000000) {
    Probe p;
    const ssize_t n = recv(fd, &p, sizeof(p), 0);
    if (n != sizeof(p)) continue;
    const uint64_t now = monotonic_ns();
    last_packet = now;
    delays_us.push_back(static_cast<double>(now - p.sent_ns) / 1e3);
  }
  close(fd);
  if (delays_us.empty()) {
    std::printf("received 0\n");
    return 0;
  }
  std::vector<double> sorted = delays_us;
  std::sort(sorted.begin(), sorted.end());
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  std::printf("received %zu median_us %.1f mean_us %.1f min_us %.1f max_us %.1f\n", sorted.size(), sorted[sorted.size() / 2],
              mean, sorted.front(), sorted.back());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "send") == 0)
    return send_probes(argv[2], std::atoi(argv[3]), std::atol(argv[4]), std::atol(argv[5]));
  if (argc == 6 && std::strcmp(argv[1], "flows") == 0)
    return send_flows(argv[2], std::atoi(argv[3]), std::atol(argv[4]), std::atoi(argv[5]));
  if (argc == 5 && std::strcmp(argv[1], "recv") == 0)
    return receive_probes(std::atoi(argv[2]), std::atol(argv[3]), std::atol(argv[4]));
  std::fprintf(stderr, "usage: udp_probe send DST_IP PORT COUNT INTERVAL_US | recv PORT COUNT TIMEOUT_MS | flows DST_IP PORT COUNT SRC_PORT\n");
  return 2;
}
