// What keeps the control API's secrets, on its own: the failed-attempt
// throttle on a clock the test moves, the constant-time token check, the
// warning for a token file others may read, and TLS files that will not load.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "auth_throttle.h"
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

TEST(AuthThrottle, AFloodOfAddressesDoesNotGrowItsMemoryOrFreeTheOneBlocked) {
  ManualClock clock;
  AuthThrottle throttle({.tries = 1, .refill = 10s, .max_peers = 4}, clock.reader());
  throttle.failed("10.0.0.1");
  clock.now += 1s;
  for (int i = 2; i <= 4; ++i) throttle.failed("10.0.0." + std::to_string(i));
  EXPECT_FALSE(throttle.allows("10.0.0.1"));
  // A fifth address: the table is full of blocked ones, so the oldest goes.
  throttle.failed("10.0.0.5");
  EXPECT_FALSE(throttle.allows("10.0.0.5"));
  EXPECT_TRUE(throttle.allows("10.0.0.1")) << "the oldest entry made room";
  EXPECT_FALSE(throttle.allows("10.0.0.4"));
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
}

}  // namespace
}  // namespace nfv
