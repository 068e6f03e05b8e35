// The pod's control API, telemetry and metrics from outside, as operators
// and tools meet them: nfvctl; bad input of every kind (random bytes,
// truncated and stalled frames, a huge length prefix, a wrong token) gets an
// error reply and a closed connection while the pod keeps forwarding; a real
// Prometheus server scrapes the pod; dpdk-telemetry.py reads /nfv/ commands.
// (Site splits through the control API: site_split_test.cc.)
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
#include "live_pod.h"
#include "bounded_wait.h"
#include "pod_runner.h"
#include "raw_connection.h"
#include "test_pki.h"

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

nfv::control::Request health() {
  nfv::control::Request r;
  r.mutable_health();
  return r;
}

uint64_t chain_in(int port, const std::string& chain = "web") { return chain_stats(live_stats(port), chain).in_packets(); }

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
  const std::string nfvctl = "NFV_TOKEN=t0ken " + required_env("NFVCTL") + " --addr 127.0.0.1:" + std::to_string(port_) + " ";
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
  expect_error_and_close(port_, std::string("\x00", 1), "truncated frame: 1 of 4 header bytes");
  {
    // Connected and silent: let go after the first frame's deadline too.
    RawConnection silent(port_);
    ASSERT_TRUE(silent.connected());
    EXPECT_TRUE(silent.closed_by_peer()) << "a connection that never sent a byte is held open";
  }
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
  EXPECT_TRUE(poll_until([&] { return chain_in(port_) > before; }, std::chrono::seconds(10)))
      << "the chain's counters stood still for 10 s after the bad input";
  EXPECT_NE(read_file(pod_->stderr_path()).find("control API: wrong token"), std::string::npos);
}

nfv::control::Request one_hop_plan(const std::string& token, uint32_t instances) {
  nfv::control::Request plan;
  plan.set_token(token);
  auto* hop = plan.mutable_apply_plan()->add_hops();
  hop->set_chain("web");
  hop->set_hop(1);
  hop->set_site("A");
  hop->set_instances(instances);
  return plan;
}

TEST(ControlAuth, AnAddressThatKeepsGuessingTheTokenIsRefusedForAWhileVnfRequestsIncluded) {
  const std::string dir = make_temp_dir("guess");
  PodRun pod = start_pod(dir, "guesspod", pod_config("guesspod", shared_data("pcaps/zeek/http_bro.org.pcap"), true), {});
  const int port = logged_port(pod, "control API listening on");
  ASSERT_GT(port, 0) << pod.logs();
  for (int i = 0; i < 3; ++i) expect_error_and_close(port, frame_message(one_hop_plan("guess" + std::to_string(i), 4).SerializeAsString()), "wrong token");
  // A VNF request that changes an instance needs the token too, and a wrong one counts alike.
  for (int i = 3; i < 5; ++i) {
    nfv::control::Request vnf;
    vnf.set_token("guess" + std::to_string(i));
    vnf.mutable_vnf()->set_chain("web");
    vnf.mutable_vnf()->set_hop(1);
    vnf.mutable_vnf()->set_request("reset");
    expect_error_and_close(port, frame_message(vnf.SerializeAsString()), "wrong token");
  }
  // The sixth try is not even read: the right token waits too.
  expect_error_and_close(port, frame_message(one_hop_plan("t0ken", 4).SerializeAsString()), "too many failed attempts from 127.0.0.1; try again in");
  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  EXPECT_GT(chain_stats(stats, "web").in_packets(), 0u);
  for (const auto& hop : stats.hops()) {
    if (hop.vnf() == "counter") {
      EXPECT_EQ(hop.active_instances(), 2u) << "a refused plan changed the pod";
    }
  }
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0);
  EXPECT_NE(read_file(pod.stderr_path()).find("control API: refused 127.0.0.1: too many failed attempts"), std::string::npos);
}

// Mutual TLS (certificates made now, with openssl): no TLS, no client
// certificate, or one from a CA the pod does not trust are refused in the
// handshake while the pod forwards on; the right certificate and token
// work. /metrics stays read-only: it takes no command of any kind.
TEST(ControlTls, OnlyTheRightCertificateAndTokenGetInWhileForwardingGoesOn) {
  const std::string dir = make_temp_dir("tls");
  const TestPki pki = make_test_pki(dir);
  ASSERT_EQ(pki.error, "");
  std::string config = pod_config("tlspod", shared_data("pcaps/zeek/http_bro.org.pcap"), true);
  const std::string plain = "control: {port: 0, token: t0ken, metrics_port: 0}";
  config.replace(config.find(plain), plain.size(),
                 "control: {port: 0, token: t0ken, metrics_port: 0, tls: {cert: " + pki.server_cert + ", key: " + pki.server_key +
                     ", ca: " + pki.ca + "}}");
  PodRun pod = start_pod(dir, "tlspod", config, {});
  const int port = logged_port(pod, "control API listening on");
  ASSERT_GT(port, 0) << pod.logs();
  EXPECT_NE(read_file(pod.stderr_path()).find(":" + std::to_string(port) + " (mutual TLS)"), std::string::npos) << pod.logs();
  const std::string nfvctl = "NFV_TOKEN=t0ken " + required_env("NFVCTL") + " --addr 127.0.0.1:" + std::to_string(port) + " ";
  const std::string as_operator = nfvctl + "--tls-cert " + pki.client_cert + " --tls-key " + pki.client_key + " --tls-ca " + pki.ca + " ";
  auto chain_in_over_tls = [&] {
    nfv::control::Response r;
    const auto json = run_command(as_operator + "--json telemetry").output;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &r).ok()) << json;
    return r.telemetry().chains_size() ? r.telemetry().chains(0).in_packets() : 0;
  };
  const uint64_t before = chain_in_over_tls();

  const auto no_tls = run_command(nfvctl + "scale web 1 A 3");
  EXPECT_NE(no_tls.exit_code, 0) << no_tls.output;
  const auto rogue = run_command(nfvctl + "--tls-cert " + pki.rogue_cert + " --tls-key " + pki.rogue_key + " --tls-ca " + pki.ca + " scale web 1 A 3");
  EXPECT_NE(rogue.exit_code, 0) << rogue.output;
  run_command("openssl s_client -connect 127.0.0.1:" + std::to_string(port) + " -CAfile " + pki.ca + " < /dev/null", 10);
  auto refusals = [&] {
    const std::string log = read_file(pod.stderr_path());
    std::size_t n = 0;
    for (auto at = log.find("TLS handshake failed"); at != std::string::npos; at = log.find("TLS handshake failed", at + 1)) ++n;
    return n;
  };
  EXPECT_TRUE(poll_until([&] { return refusals() >= 3; }, std::chrono::seconds(10)))
      << "expected three refused handshakes (no TLS, a rogue certificate, none)\n" << pod.logs();
  EXPECT_NE(read_file(pod.stderr_path()).find("peer did not return a certificate"), std::string::npos) << pod.logs();

  EXPECT_TRUE(poll_until([&] { return chain_in_over_tls() > before; }, std::chrono::seconds(10)))
      << "the chain's counters stood still after the refused clients";
  const auto unchanged = run_command(as_operator + "status");
  EXPECT_NE(unchanged.output.find("hop 1 counter  @A         2 active"), std::string::npos) << unchanged.output;
  const auto scaled = run_command(as_operator + "scale web 1 A 3");
  EXPECT_EQ(scaled.exit_code, 0) << scaled.output;
  const auto wrong_token = run_command("NFV_TOKEN=guess " + as_operator.substr(std::string("NFV_TOKEN=t0ken ").size()) + "scale web 1 A 1");
  EXPECT_NE(wrong_token.output.find("wrong token"), std::string::npos) << wrong_token.output;

  // /metrics answers GET only; a control frame, even with the token, changes nothing.
  const int metrics_port = logged_port(pod, "metrics on http://");
  ASSERT_GT(metrics_port, 0) << pod.logs();
  const std::string metrics = "http://127.0.0.1:" + std::to_string(metrics_port) + "/metrics";
  const auto post = run_command("curl -s -w ' %{http_code}' -X POST --data-binary 'scale web 1 A 1' " + metrics);
  EXPECT_NE(post.output.find("read-only: GET only\n 405"), std::string::npos) << post.output;
  EXPECT_NE(run_command("curl -s -w ' %{http_code}' -X PUT " + metrics).output.find(" 405"), std::string::npos);
  {
    RawConnection c(metrics_port);
    c.send_bytes(frame_message(one_hop_plan("t0ken", 1).SerializeAsString()));
    nfv::control::Response response;
    EXPECT_FALSE(c.receive(response) && response.ok()) << "the metrics port took a control request";
  }
  const auto status = run_command(as_operator + "status");
  EXPECT_NE(status.output.find("hop 1 counter  @A         3 active"), std::string::npos) << status.output;

  pod.process->signal(SIGTERM);
  ASSERT_EQ(pod.wait(), 0) << pod.logs();
  const auto stats = pod.stats();
  EXPECT_EQ(chain_stats(stats, "web").out_packets() + drops(stats, "shutdown"), chain_stats(stats, "web").in_packets());
  EXPECT_EQ(stats.mempool_in_use_after_close(), 0);
}

TEST(ControlTls, NfvctlTakesTheTokenFromTheEnvironmentOrAFileNeverTheCommandLine) {
  const auto in_argv = run_command(required_env("NFVCTL") + " --addr 127.0.0.1:1 --token t0ken status");
  EXPECT_EQ(in_argv.exit_code, 2);
  EXPECT_NE(in_argv.output.find("--token: a token on the command line is visible to every user of this host"), std::string::npos)
      << in_argv.output;
  const std::string dir = make_temp_dir("tokenfile");
  write_file(dir + "/token", "t0ken\n");
  const auto readable = run_command(required_env("NFVCTL") + " --addr 127.0.0.1:1 --token-file " + dir + "/token status");
  EXPECT_NE(readable.output.find("holds a control token but is readable by every user"), std::string::npos) << readable.output;
  const auto missing = run_command(required_env("NFVCTL") + " --token-file " + dir + "/none status");
  EXPECT_NE(missing.output.find("--token-file: cannot read a token from '" + dir + "/none'"), std::string::npos) << missing.output;
}

TEST(ControlTls, APodWarnsWhenItsConfigHoldsATokenOthersMayRead) {
  const std::string dir = make_temp_dir("modes");
  write_file(dir + "/pod.yaml", pod_config("modepod", shared_data("pcaps/zeek/http_bro.org.pcap"), false));
  const std::string check = nfv_pod_binary() + " -- --config " + dir + "/pod.yaml --check-config";
  run_command("chmod 644 " + dir + "/pod.yaml");
  const auto open = run_command(check);
  EXPECT_EQ(open.exit_code, 0) << open.output;
  EXPECT_NE(open.output.find(dir + "/pod.yaml holds a control token but is readable by every user (mode 644); chmod 600 it"),
            std::string::npos)
      << open.output;
  run_command("chmod 600 " + dir + "/pod.yaml");
  const auto closed = run_command(check);
  EXPECT_EQ(closed.exit_code, 0) << closed.output;
  EXPECT_EQ(closed.output.find("readable by"), std::string::npos) << closed.output;
}

TEST(Telemetry, PrometheusScrapesThePodAndDpdkTelemetryReadsNfvCommands) {
  const std::string dir = make_temp_dir("prom");
  // A finite capture: once it has gone through, the counters stand still
  // and Prometheus must report exactly the pod's numbers.
  PodRun pod = start_pod(dir, "prompod", pod_config("prompod", shared_data("pcaps/zeek/http_bro.org.pcap"), false), {});
  const int metrics_port = logged_port(pod, "metrics on http://");
  ASSERT_GT(metrics_port, 0) << pod.logs();
  const int control_port = logged_port(pod, "control API listening on");
  ASSERT_TRUE(poll_until([&] { return chain_stats(live_stats(control_port), "web").out_packets() == 751; }, std::chrono::seconds(10)))
      << "the capture's 751 packets did not all go through in 10 s";

  const int prom_port = 19090 + static_cast<int>(getpid() % 500);
  write_file(dir + "/prometheus.yml", "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: nfv\n    static_configs:\n"
                                      "      - targets: ['127.0.0.1:" + std::to_string(metrics_port) + "']\n");
  Subprocess prometheus({"prometheus", "--config.file=" + dir + "/prometheus.yml", "--storage.tsdb.path=" + dir + "/tsdb",
                         "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
                        dir + "/prom.out", dir + "/prom.err");
  const std::string query = "curl -s 'http://127.0.0.1:" + std::to_string(prom_port) +
                            "/api/v1/query?query=nfv_chain_in_packets_total%7Bchain%3D%22web%22%7D'";
  std::string answer;
  poll_until([&] { return (answer = run_command(query).output).find("\"value\"") != std::string::npos; }, std::chrono::seconds(30),
             std::chrono::milliseconds(500));
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
