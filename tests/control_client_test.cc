// The control client against a server the test plays by hand: a caller
// stopped past its deadline (SIGSTOP, a stalled VM) while the answer arrived
// reads that answer; a server that never answers is a timeout (the drain of
// what is ready must not turn into a hang).
#include <netinet/in.h>
#include <poll.h>
#include <sys/types.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "bounded_wait.h"
#include "control.pb.h"
#include "control_client.h"
#include "control_frame.h"

namespace nfv {
namespace {

using namespace std::chrono_literals;
constexpr auto kCallTimeout = 300ms;

// A listening socket on 127.0.0.1 at a port the kernel picks.
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), n) != 0 || ::listen(fd, 1) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) != 0)
      std::perror("listener");
    port = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd); }
};

// Waits for fd to be readable, for at most `bound`.
bool readable(int fd, std::chrono::milliseconds bound) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(bound.count())) == 1;
}

// Reads exactly n bytes, each wait bounded.
bool read_exactly(int fd, char* out, std::size_t n) {
  for (std::size_t got = 0; got < n;) {
    if (!readable(fd, 10s)) return false;
    const ssize_t r = ::read(fd, out + got, n - got);
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

// Forks a caller that makes telemetry calls to the listener, one after the
// other, for as long as the answers say ok (`once`: one call). Exit 0 when
// it stopped on an answer, 1 when a call threw.
pid_t start_caller(int port, bool once) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  try {
    ControlClient client("127.0.0.1:" + std::to_string(port), "t0ken", kCallTimeout);
    control::Request request;
    request.mutable_telemetry();
    while (client.call(request).ok() && !once) {
    }
    ::_exit(0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "caller: %s\n", e.what());
    ::_exit(1);
  }
}

// The caller's exit status, waiting at most 10 s (calls last 300 ms; -1:
// it did not exit and was killed). Within meson's limit, so a hang is named.
int exit_status(pid_t pid) {
  int status = 0;
  if (test::poll_until([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, 10s))
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

// Reads one request (a frame), each wait bounded.
bool read_request(int conn) {
  char header[kFrameHeaderBytes];
  if (!read_exactly(conn, header, sizeof header)) return false;
  std::string body(frame_length(reinterpret_cast<unsigned char*>(header)), '\0');
  return read_exactly(conn, body.data(), body.size());
}

bool answer(int conn, bool ok) {
  control::Response response;
  response.set_ok(ok);
  const std::string framed = frame_message(response.SerializeAsString());
  // No SIGPIPE when the caller has gone: a failed check, not a dead test.
  return ::send(conn, framed.data(), framed.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(framed.size());
}

// Accepts the caller and reads its first request, each step bounded.
int accept_request(const Listener& listener) {
  if (!readable(listener.fd, 10s)) return -1;
  const int conn = ::accept(listener.fd, nullptr, nullptr);
  if (conn >= 0 && !read_request(conn)) {
    ::close(conn);
    return -1;
  }
  return conn;
}

// Stops the caller and waits until it is stopped: true, or false when it
// had exited (its status in `exited`).
bool stop(pid_t pid, int& exited) {
  int status = 0;
  if (::kill(pid, SIGSTOP) != 0 || ::waitpid(pid, &status, WUNTRACED) != pid) return false;
  if (WIFSTOPPED(status)) return true;
  exited = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return false;
}

// A caller started and its first request read: what each test begins with.
class ControlClientCall : public ::testing::Test {
 protected:
  void start(bool once) {
    ASSERT_GT(listener.port, 0) << "no listening socket on 127.0.0.1";
    caller = start_caller(listener.port, once);
    ASSERT_GT(caller, 0);
    conn = accept_request(listener);
    ASSERT_GE(conn, 0) << "the caller's request did not arrive";
  }
  // A check that failed half way leaves no caller behind, stopped or not.
  void TearDown() override {
    if (conn >= 0) ::close(conn);
    if (caller > 0 && ::kill(caller, SIGKILL) == 0) ::waitpid(caller, nullptr, 0);
  }
  // The caller's exit status; it is collected.
  int finish() {
    const int status = exit_status(caller);
    caller = -1;
    return status;
  }
  Listener listener;
  pid_t caller = -1;
  int conn = -1;
};

TEST_F(ControlClientCall, ACallerStoppedPastItsDeadlineReadsTheAnswerThatArrivedMeanwhile) {
  ASSERT_NO_FATAL_FAILURE(start(true));
  // The caller now waits for its answer: stop it, answer, and hold it
  // stopped well past its deadline before it runs again.
  int exited = 0;
  ASSERT_TRUE(stop(caller, exited)) << "the caller exited (" << exited << ") before its answer";
  ASSERT_TRUE(answer(conn, true));
  std::this_thread::sleep_for(3 * kCallTimeout);  // the stall itself, not a wait for anything
  ASSERT_EQ(::kill(caller, SIGCONT), 0);
  EXPECT_EQ(finish(), 0) << "the answer waiting in the socket was taken for a timeout";
}

// A busy caller stopped at random points (while it writes, parses, or waits
// between the steps of a call) past its deadline, again and again: every
// call still gets its answer, which was there when it ran again.
TEST_F(ControlClientCall, ACallerStoppedAnywhereInItsCallsGetsEveryAnswer) {
  ASSERT_NO_FATAL_FAILURE(start(false));
  std::atomic<bool> finished{false};
  std::atomic<long> answered{0};
  std::thread server([&] {
    // Answers each request at once: ok until the stops are over.
    do {
      if (!answer(conn, !finished.load())) return;
      ++answered;
    } while (read_request(conn));
  });
  std::mt19937 random(7);
  int stops = 0, exited = -2;
  for (; stops < 16; ++stops) {
    // A random number of calls answered, then a stop wherever the caller is.
    const long target = answered.load() + std::uniform_int_distribution<long>(1, 40)(random);
    if (!test::poll_until([&] { return answered.load() >= target; }, 10s, 1ms)) break;  // the caller has gone
    if (!stop(caller, exited)) break;
    std::this_thread::sleep_for(kCallTimeout + 50ms);  // the stall itself
    ::kill(caller, SIGCONT);
  }
  finished = true;
  int status = exited;
  if (exited == -2) status = finish();
  else caller = -1;  // stop() collected it
  EXPECT_EQ(status, 0) << "a call failed though its answer was waiting (" << answered.load() << " answered, " << stops
                       << " stops)";
  ::shutdown(conn, SHUT_RDWR);
  server.join();
}

TEST_F(ControlClientCall, AServerThatNeverAnswersIsATimeout) {
  ASSERT_NO_FATAL_FAILURE(start(true));
  EXPECT_EQ(finish(), 1) << "a call with no answer must fail, not hang or succeed";
}

}  // namespace
}  // namespace nfv
