// What keeps the control API's secrets, on its own: the failed-attempt
// throttle on a clock the test moves, the constant-time token check, the
// warning for a token file others may read, TLS files that will not load,
// and clients and configs that would send the token off loopback in plaintext.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "auth_throttle.h"
#include "control_client.h"
#include "control_tls.h"
#include "secret_checks.h"

namespace nfv {
namespace {

using namespace std::chrono_literals;

struct ManualClock {
  std::chrono::steady_clock::time_point now{};
  AuthThrottle::Clock reader() {
    return [this] { return now; };
  }
};

TEST(AuthThrottle, AnAddressThatFailedFiveTimesWaitsForItsNextTry) {
  ManualClock clock;
  AuthThrottle throttle({.tries = 5, .refill = 10s, .max_peers = 16}, clock.reader());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(throttle.allows("10.0.0.1")) << "try " << i + 1;
    throttle.failed("10.0.0.1");
  }
  EXPECT_FALSE(throttle.allows("10.0.0.1"));
  EXPECT_EQ(throttle.retry_in("10.0.0.1"), 10s);
  EXPECT_TRUE(throttle.allows("10.0.0.2")) << "another address is not held back";
  clock.now += 9999ms;
  EXPECT_FALSE(throttle.allows("10.0.0.1"));
  EXPECT_EQ(throttle.retry_in("10.0.0.1"), 1ms);
  clock.now += 1ms;
  EXPECT_TRUE(throttle.allows("10.0.0.1")) << "one more try after 10 s";
  throttle.failed("10.0.0.1");
  EXPECT_FALSE(throttle.allows("10.0.0.1")) << "and only one";
  clock.now += 50s;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(throttle.allows("10.0.0.1")) << "all five back after 50 s quiet, try " << i + 1;
    throttle.failed("10.0.0.1");
  }
  EXPECT_FALSE(throttle.allows("10.0.0.1"));
}

TEST(AuthThrottle, AFloodOfAddressesNeitherGrowsItsMemoryNorFreesTheBlocked) {
  ManualClock clock;
  AuthThrottle throttle({.tries = 1, .refill = 10s, .max_peers = 4}, clock.reader());
  throttle.failed("10.0.0.1");
  clock.now += 1s;
  for (int i = 2; i <= 4; ++i) throttle.failed("10.0.0." + std::to_string(i));
  // The table is full of blocked addresses: an unknown one is refused, and
  // its failures evict none of them.
  EXPECT_FALSE(throttle.allows("10.0.0.5"));
  EXPECT_EQ(throttle.retry_in("10.0.0.5"), 9s) << "until 10.0.0.1 gets its try back";
  for (int i = 5; i <= 50; ++i) throttle.failed("10.0.0." + std::to_string(i));
  for (int i = 1; i <= 4; ++i) EXPECT_FALSE(throttle.allows("10.0.0." + std::to_string(i))) << "10.0.0." << i << " freed by the flood";
  // Once 10.0.0.1 may try again it is no longer blocked, so it makes room.
  clock.now += 9s;
  EXPECT_TRUE(throttle.allows("10.0.0.5"));
  throttle.failed("10.0.0.5");
  EXPECT_FALSE(throttle.allows("10.0.0.5"));
  EXPECT_FALSE(throttle.allows("10.0.0.4"));
}

TEST(AuthThrottle, AnIpv6HostCountsByItsSlash64) {
  ManualClock clock;
  AuthThrottle throttle({.tries = 2, .refill = 10s, .max_peers = 16}, clock.reader());
  throttle.failed("2001:db8:1:2::1");
  throttle.failed("2001:db8:1:2:ffff::7");
  EXPECT_FALSE(throttle.allows("2001:db8:1:2::99")) << "another address of the same /64";
  EXPECT_TRUE(throttle.allows("2001:db8:1:3::1")) << "the next /64 is someone else";
  throttle.failed("::ffff:10.0.0.9");
  throttle.failed("10.0.0.9");
  EXPECT_FALSE(throttle.allows("10.0.0.9")) << "IPv4 mapped into IPv6 is the IPv4 address";
  EXPECT_TRUE(throttle.allows("10.0.0.10"));
}

TEST(SecretChecks, TokensMatchOnlyWhenEqual) {
  EXPECT_TRUE(same_token("s3cret-token", "s3cret-token"));
  EXPECT_FALSE(same_token("s3cret-tokeN", "s3cret-token"));
  EXPECT_FALSE(same_token("s3cret", "s3cret-token"));
  EXPECT_FALSE(same_token("", "s3cret-token"));
  EXPECT_FALSE(same_token("s3cret-token-and-more", "s3cret-token"));
}

TEST(SecretChecks, AFileOthersMayReadGetsAWarningNamingItAndTheFix) {
  char path[] = "/tmp/nfv-secret-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::fclose(fdopen(fd, "w"));
  chmod(path, 0644);
  const std::string warning = readable_secret_warning(path);
  EXPECT_NE(warning.find(std::string(path) + " holds a control token but is readable by every user (mode 644); chmod 600 it"),
            std::string::npos)
      << warning;
  chmod(path, 0640);
  EXPECT_NE(readable_secret_warning(path).find("readable by its group (mode 640)"), std::string::npos);
  chmod(path, 0600);
  EXPECT_EQ(readable_secret_warning(path), "");
  std::remove(path);
}

TEST(ControlTls, FilesThatWillNotLoadAreNamedByTheirField) {
  try {
    server_tls_context(TlsFiles{"/nonexistent/cert.pem", "/nonexistent/key.pem", "/nonexistent/ca.pem"}, "control.tls");
    FAIL() << "no error for a missing certificate";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("control.tls.cert: cannot read '/nonexistent/cert.pem' (No such file or directory)"), std::string::npos) << e.what();
  }
  try {
    client_tls_context(TlsFiles{"c.pem", "", "ca.pem"}, "--tls");
    FAIL() << "no error for a missing key";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--tls-key: required with the other TLS files"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(is_loopback_address("127.0.0.1"));
  EXPECT_TRUE(is_loopback_address("::1"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0"));
  EXPECT_FALSE(is_loopback_address("10.1.2.3"));
  EXPECT_TRUE(is_loopback_address("[::1]"));
  EXPECT_TRUE(is_loopback_address("localhost"));
  EXPECT_TRUE(is_loopback_address("::ffff:127.0.0.1"));
  EXPECT_FALSE(is_loopback_address("::ffff:10.1.2.3"));
  EXPECT_FALSE(is_loopback_address("nfv-pod-nycm"));
}

TEST(ControlTls, ConfigsGetOneAnswerNamingTheField) {
  EXPECT_EQ(tls_files_problem(TlsFiles{}, "control.tls", "127.0.0.1", "listen 127.0.0.1").message, "");
  EXPECT_EQ(tls_files_problem(TlsFiles{"c", "k", "ca"}, "control.tls", "0.0.0.0", "listen 0.0.0.0").message, "");
  const auto partial = tls_files_problem(TlsFiles{"c", "k", ""}, "pods[1].tls", "127.0.0.1", "control 127.0.0.1:1");
  EXPECT_EQ(partial.field, "pods[1].tls.ca");
  EXPECT_EQ(partial.message, "a PEM file: TLS needs cert, key and ca");
  const auto plain = tls_files_problem(TlsFiles{}, "pods[0].tls", "nfv-pod-a", "control nfv-pod-a:9900");
  EXPECT_EQ(plain.field, "pods[0].tls");
  EXPECT_EQ(plain.message, "cert, key and ca files: off loopback (control nfv-pod-a:9900) the control API speaks only mutual TLS");
}

// Every request carries the token: a client without TLS files refuses a
// host off loopback before it connects, naming the files to give.
TEST(ControlTls, AClientWithoutTlsRefusesAHostOffLoopback) {
  const auto error_of = [](const std::string& address, const std::string& field) {
    try {
      ControlClient client(address, "t0ken", TlsFiles{}, field, std::chrono::milliseconds(200));
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string nfvctl = error_of("10.1.2.3:9900", "--tls");
  EXPECT_NE(nfvctl.find("control API at 10.1.2.3:9900: off loopback it speaks only mutual TLS"), std::string::npos) << nfvctl;
  EXPECT_NE(nfvctl.find("--tls-cert, --tls-key and --tls-ca"), std::string::npos) << nfvctl;
  const std::string scaler = error_of("nfv-pod-nycm:9900", "pods[0].tls");
  EXPECT_NE(scaler.find("pods[0].tls {cert, key, ca}"), std::string::npos) << scaler;
  // Loopback is allowed in plaintext: nothing listens on port 1, so the connection fails instead.
  const std::string loopback = error_of("[::1]:1", "--tls");
  EXPECT_EQ(loopback.find("off loopback"), std::string::npos) << loopback;
}

}  // namespace
}  // namespace nfv
