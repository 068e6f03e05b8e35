// The pod's control API, telemetry and metrics from outside, as operators
// and tools meet them: nfvctl; bad input of every kind (random bytes,
// truncated and stalled frames, a huge length prefix, a wrong token) gets an
// error reply and a closed connection while the pod keeps forwarding; a real
// Prometheus server scrapes the pod; dpdk-telemetry.py reads /nfv/ commands.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <regex>

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "control.pb.h"
#include "control_frame.h"
#include "pod_runner.h"

namespace nfv::test {
namespace {

std::string pod_config(const std::string& name, const std::string& pcap, bool loop) {
  return "name: " + name + R"(
sites: [{name: A, lat: 40.78, lon: -73.97}, {name: B, lat: 41.83, lon: -87.62}]
hosted_sites: [A, B]
links: [{from: A, to: B, delay_ms: 2}]
control: {port: 0, token: t0ken, metrics_port: 0}
ports:
  - {name: in, driver: pcap, site: A, rx_pcap: )" + pcap + (loop ? ", rx_pcap_loop: true" : "") + R"(}
  - {name: out, driver: null, site: B, tx_only: true}
chains:
  - {name: web, id: 1, ingress_site: A, egress_site: B, egress_port: out, match: [{}],
     hops: [{vnf: counter, site: A, instances: 2}, {vnf: forward, site: B}]}
)";
}

// Waits for the pod's log line naming a listening port.
int logged_port(const PodRun& pod, const std::string& what) {
  const std::regex pattern(what + R"(.*?127\.0\.0\.1:(\d+))");
  for (int i = 0; i < 500; ++i) {
    std::smatch m;
    const std::string log = read_file(pod.stderr_path());
    if (std::regex_search(log, m, pattern) && log.find("forwarding on") != std::string::npos) return std::stoi(m[1]);
    usleep(10000);
  }
  return -1;
}

// A raw TCP connection, so tests can send what no well-behaved client would.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~RawConnection() { close(fd_); }
  bool connected() const { return connected_; }
  void send_bytes(const std::string& bytes) { (void)::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
  void finish_sending() { shutdown(fd_, SHUT_WR); }

  // Reads one framed Response; false if the connection closed or timed out first.
  bool receive(nfv::control::Response& response) {
    std::string header = read_exactly(kFrameHeaderBytes);
    if (header.size() != kFrameHeaderBytes) return false;
    const std::string body = read_exactly(frame_length(reinterpret_cast<const unsigned char*>(header.data())));
    return response.ParseFromString(body);
  }
  // True once the pod has closed its side.
  bool closed_by_peer() {
    char c;
    return recv(fd_, &c, 1, 0) == 0;
  }

 private:
  std::string read_exactly(std::size_t n) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = recv(fd_, out.data() + got, n - got, 0);
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    out.resize(got);
    return out;
  }
  int fd_;
  bool connected_ = false;
};

nfv::control::Request health() {
  nfv::control::Request r;
  r.mutable_health();
  return r;
}

uint64_t chain_in(int port) {
  RawConnection c(port);
  nfv::control::Request r;
  r.mutable_telemetry();
  c.send_bytes(frame_message(r.SerializeAsString()));
  nfv::control::Response response;
  EXPECT_TRUE(c.receive(response));
  return response.telemetry().chains(0).in_packets();
}

void expect_error_and_close(int port, const std::string& bytes, const std::string& error, bool half_close = false) {
  RawConnection c(port);
  ASSERT_TRUE(c.connected());
  c.send_bytes(bytes);
  if (half_close) c.finish_sending();
  nfv::control::Response response;
  ASSERT_TRUE(c.receive(response)) << "no error reply for: " << error;
  EXPECT_FALSE(response.ok());
  EXPECT_NE(response.error().find(error), std::string::npos) << response.error();
  EXPECT_TRUE(c.closed_by_peer()) << "connection left open after: " << error;
}

class ControlApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("ctl");
    pod_ = std::make_unique<PodRun>(start_pod(dir_, "ctlpod", pod_config("ctlpod", shared_data("pcaps/zeek/http_bro.org.pcap"), true), {}));
    port_ = logged_port(*pod_, "control API listening on");
    ASSERT_GT(port_, 0) << pod_->logs();
  }
  void TearDown() override {
    pod_->process->signal(SIGTERM);
    EXPECT_EQ(pod_->wait(), 0) << pod_->logs();
    EXPECT_EQ(pod_->stats().mempool_in_use_after_close(), 0);
  }
  std::string dir_;
  std::unique_ptr<PodRun> pod_;
  int port_ = 0;
};

TEST_F(ControlApi, NfvctlShowsStatusScalesAndReportsErrors) {
  const std::string nfvctl = required_env("NFVCTL") + " --addr 127.0.0.1:" + std::to_string(port_) + " --token t0ken ";
  auto status = run_command(nfvctl + "status");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("hop 1 counter  @A         2 active  0 draining (max 64) share 1.00"), std::string::npos) << status.output;
  auto scaled = run_command(nfvctl + "scale web 1 A 3");
  EXPECT_EQ(scaled.exit_code, 0) << scaled.output;
  status = run_command(nfvctl + "--json status");
  EXPECT_NE(status.output.find("\"active_instances\": 3"), std::string::npos) << status.output;
  const auto wrong_site = run_command(nfvctl + "scale web 1 B 3");
  EXPECT_EQ(wrong_site.exit_code, 1);
  EXPECT_NE(wrong_site.output.find("web hop 1 runs at A, not B"), std::string::npos) << wrong_site.output;
  const auto too_many = run_command(nfvctl + "scale web 1 A 65");
  EXPECT_NE(too_many.output.find("instances must be in [0, 64], got 65"), std::string::npos) << too_many.output;
  const auto link = run_command(nfvctl + "link A B --delay-ms 7.5 --loss 0.001");
  EXPECT_EQ(link.exit_code, 0) << link.output;
  const auto telemetry = run_command(nfvctl + "telemetry");
  EXPECT_NE(telemetry.output.find("link A->B (7.500 ms)"), std::string::npos) << telemetry.output;
  const auto health_out = run_command(nfvctl + "health");
  EXPECT_NE(health_out.output.find("forwarding, 1 worker(s)"), std::string::npos) << health_out.output;
  EXPECT_EQ(health_out.exit_code, 0) << "a forwarding pod's health probe must pass: " << health_out.output;
}

TEST_F(ControlApi, BadInputGetsAnErrorReplyAndAClosedConnectionWhileForwardingGoesOn) {
  const uint64_t before = chain_in(port_);
  std::mt19937 rng(11);
  std::string random(64, '\0');
  for (auto& c : random) c = static_cast<char>(rng());
  random[0] = 0x7f;  // make its length prefix certainly oversized
  expect_error_and_close(port_, random, "exceeds the limit");
  expect_error_and_close(port_, std::string("\xff\xff\xff\xf0", 4), "frame of 4294967280 bytes exceeds the limit of 1048576");
  expect_error_and_close(port_, frame_message(std::string(100, 'x')).substr(0, 30), "truncated frame: 26 of 100 bytes", true);
  expect_error_and_close(port_, std::string("\x00\x00", 2), "truncated frame: 2 of 4 header bytes", true);
  // Stalled mid-frame: the pod gives up after its deadline.
  expect_error_and_close(port_, frame_message(std::string(100, 'x')).substr(0, 50), "truncated frame: 46 of 100 bytes");
  expect_error_and_close(port_, frame_message(std::string("\x0a\xff\xff\xff\xff\xff", 6)), "malformed request");
  expect_error_and_close(port_, frame_message(nfv::control::Request().SerializeAsString() + std::string("\x0a\x01x", 3)),
                         "names no operation");
  nfv::control::Request plan;
  plan.set_token("guess");
  auto* hop = plan.mutable_apply_plan()->add_hops();
  hop->set_chain("web");
  hop->set_hop(1);
  hop->set_instances(4);
  expect_error_and_close(port_, frame_message(plan.SerializeAsString()), "wrong token");
  expect_error_and_close(port_, std::string("\x00\x00\x00\x00", 4), "empty frame");

  // Still serving, still forwarding, and the failed plan changed nothing.
  RawConnection c(port_);
  c.send_bytes(frame_message(health().SerializeAsString()));
  nfv::control::Response response;
  ASSERT_TRUE(c.receive(response));
  EXPECT_TRUE(response.ok());
  EXPECT_TRUE(response.health().forwarding());
  EXPECT_EQ(response.health().snapshot_version(), 1u);
  usleep(200000);
  EXPECT_GT(chain_in(port_), before);
  EXPECT_NE(read_file(pod_->stderr_path()).find("control API: wrong token"), std::string::npos);
}

TEST(SiteSplit, ChangingTheSplitNeverMovesAStatefulHopsExistingFlows) {
  const std::string dir = make_temp_dir("split");
  const std::string config = R"(name: splitpod
sites: [{name: A, lat: 40.78, lon: -73.97}, {name: B, lat: 41.83, lon: -87.62}]
hosted_sites: [A, B]
links: [{from: A, to: B, delay_ms: 1, bidirectional: true}]
control: {port: 0, token: t0ken}
ports:
  - {name: in, driver: pcap, site: A, rx_pcap: )" + shared_data("pcaps/ndpi/netflix.pcap") + R"(, rx_pcap_loop: true}
  - {name: out, driver: null, site: A, tx_only: true}
chains:
  - name: web
    id: 1
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{}]
    hops:
      - {vnf: counter, placements: [{site: A, weight: 1, instances: 1}, {site: B, weight: 0, instances: 1}]}
)";
  PodRun pod = start_pod(dir, "splitpod", config, {});
  const int port = logged_port(pod, "control API listening on");
  ASSERT_GT(port, 0) << pod.logs();
  const std::string nfvctl = required_env("NFVCTL") + " --addr 127.0.0.1:" + std::to_string(port) + " --token t0ken ";
  // All flows at A so far; then half the new flows go to B.
  auto before = run_command(nfvctl + "--json telemetry").output;
  EXPECT_EQ(run_command(nfvctl + "split web 1 A=1 B=1").exit_code, 0);
  const auto refused = run_command(nfvctl + "split web 1 C=1");
  EXPECT_NE(refused.output.find("has no placement at C"), std::string::npos) << refused.output;
  usleep(300000);
  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  ASSERT_EQ(stats.hops_size(), 2);
  const auto& at_a = stats.hops(0).site() == "A" ? stats.hops(0) : stats.hops(1);
  const auto& at_b = stats.hops(0).site() == "A" ? stats.hops(1) : stats.hops(0);
  uint64_t flows_a = 0, flows_b = 0;
  for (const auto& c : at_a.counters()) if (c.name() == "flows") flows_a = c.value();
  for (const auto& c : at_b.counters()) if (c.name() == "flows") flows_b = c.value();
  // The capture's 119 flows all started at A before the split; afterwards
  // the pins keep them there (a flow never moves), so B sees no old flow.
  EXPECT_EQ(flows_a, 119u);
  EXPECT_EQ(flows_b, 0u) << "an existing flow moved to the other site";
  EXPECT_GT(at_a.in_packets(), 0u);
  EXPECT_EQ(chain_stats(stats, "web").out_packets() + drops(stats, "shutdown"), chain_stats(stats, "web").in_packets());
}

TEST(SiteSplit, NewFlowsFollowTheShares) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to configure the tap interface";
  const std::string dir = make_temp_dir("split2");
  const std::string config = R"(name: split2pod
sites: [{name: A, lat: 40.78, lon: -73.97}, {name: B, lat: 41.83, lon: -87.62}]
hosted_sites: [A, B]
links: [{from: A, to: B, delay_ms: 1, bidirectional: true}]
control: {port: 0, token: t0ken}
ports:
  - {name: kernel, driver: tap, site: A, iface: nfvsplit0}
  - {name: out, driver: null, site: A, tx_only: true}
chains:
  - name: udp
    id: 2
    ingress_site: A
    egress_site: A
    egress_port: out
    match: [{dst_prefix: 198.18.9.2/32, protocol: udp}]
    hops:
      - {vnf: counter, placements: [{site: A, weight: 1, instances: 1}, {site: B, weight: 0, instances: 2}]}
)";
  PodRun pod = start_pod(dir, "split2pod", config, {});
  const int port = logged_port(pod, "control API listening on");
  ASSERT_GT(port, 0) << pod.logs();
  ASSERT_EQ(run_command("ip addr add 198.18.9.1/24 dev nfvsplit0 && ip link set nfvsplit0 up && "
                        "ip neigh replace 198.18.9.2 lladdr 02:00:00:00:09:02 dev nfvsplit0 nud permanent")
                .exit_code,
            0);
  const std::string probe = required_env("NFV_UDP_PROBE");
  const std::string nfvctl = required_env("NFVCTL") + " --addr 127.0.0.1:" + std::to_string(port) + " --token t0ken ";
  auto flows_at = [&](const nfv::stats::PodStats& s, const std::string& site) {
    for (const auto& h : s.hops())
      if (h.site() == site)
        for (const auto& c : h.counters())
          if (c.name() == "flows") return c.value();
    return uint64_t{0};
  };
  auto telemetry = [&] {
    nfv::control::Response r;
    const auto json = run_command(nfvctl + "--json telemetry").output;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &r).ok()) << json;
    return r.telemetry();
  };
  ASSERT_EQ(run_command(probe + " flows 198.18.9.2 7000 400 20000").exit_code, 0);
  usleep(300000);
  auto s = telemetry();
  EXPECT_EQ(flows_at(s, "A"), 400u);
  EXPECT_EQ(flows_at(s, "B"), 0u);
  // A quarter of the new flows to B (whose two instances share them).
  ASSERT_EQ(run_command(nfvctl + "split udp 1 A=3 B=1").exit_code, 0);
  ASSERT_EQ(run_command(probe + " flows 198.18.9.2 7000 800 30000").exit_code, 0);
  usleep(300000);
  s = telemetry();
  const double at_b = static_cast<double>(flows_at(s, "B"));
  std::printf("after the 3:1 split: %lu new flows at A, %.0f at B\n", static_cast<unsigned long>(flows_at(s, "A") - 400), at_b);
  EXPECT_NEAR(at_b, 200.0, 40.0);
  EXPECT_EQ(flows_at(s, "A") - 400 + flows_at(s, "B"), 800u);
  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
}

TEST(Telemetry, PrometheusScrapesThePodAndDpdkTelemetryReadsNfvCommands) {
  const std::string dir = make_temp_dir("prom");
  // A finite capture: once it has gone through, the counters stand still
  // and Prometheus must report exactly the pod's numbers.
  PodRun pod = start_pod(dir, "prompod", pod_config("prompod", shared_data("pcaps/zeek/http_bro.org.pcap"), false), {});
  const int metrics_port = logged_port(pod, "metrics on http://");
  ASSERT_GT(metrics_port, 0) << pod.logs();
  usleep(500000);

  const int prom_port = 19090 + static_cast<int>(getpid() % 500);
  write_file(dir + "/prometheus.yml", "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: nfv\n    static_configs:\n"
                                      "      - targets: ['127.0.0.1:" + std::to_string(metrics_port) + "']\n");
  Subprocess prometheus({"prometheus", "--config.file=" + dir + "/prometheus.yml", "--storage.tsdb.path=" + dir + "/tsdb",
                         "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
                        dir + "/prom.out", dir + "/prom.err");
  const std::string query = "curl -s 'http://127.0.0.1:" + std::to_string(prom_port) +
                            "/api/v1/query?query=nfv_chain_in_packets_total%7Bchain%3D%22web%22%7D'";
  std::string answer;
  for (int i = 0; i < 60 && answer.find("\"value\"") == std::string::npos; ++i) {
    usleep(500000);
    answer = run_command(query).output;
  }
  ASSERT_NE(answer.find("\"value\""), std::string::npos) << answer << read_file(dir + "/prom.err");
  EXPECT_NE(answer.find("\"pod\":\"prompod\""), std::string::npos) << answer;
  EXPECT_NE(answer.find("\"751\"]"), std::string::npos) << "Prometheus should hold the chain's 751 packets: " << answer;
  const auto instances = run_command("curl -s 'http://127.0.0.1:" + std::to_string(prom_port) +
                                     "/api/v1/query?query=nfv_hop_instances%7Bstate%3D%22active%22%2Chop%3D%221%22%7D'");
  EXPECT_NE(instances.output.find("\"2\"]"), std::string::npos) << instances.output;

  const auto telemetry = run_command("echo /nfv/ports | dpdk-telemetry.py -f prompod");
  EXPECT_NE(telemetry.output.find("\"in\": {\"rx_packets\": 751"), std::string::npos) << telemetry.output;
  const auto chains = run_command("echo /nfv/chains | dpdk-telemetry.py -f prompod");
  EXPECT_NE(chains.output.find("\"web\": {\"in_packets\": 751, \"out_packets\": 751"), std::string::npos) << chains.output;

  prometheus.signal(SIGTERM);
  prometheus.wait(std::chrono::seconds(10));
  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  EXPECT_EQ(chain_stats(stats, "web").in_packets(), 751u);
}

}  // namespace
}  // namespace nfv::test
