// The control API server in process, with a handler the test holds: a
// request the server runs apart (a policy switch whose check loads a
// checkpoint) leaves the server answering other connections meanwhile, and
// its own connection still gets its answers in order. Without it, the held
// request holds every connection.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>
#include <gtest/gtest.h>

#include "bounded_wait.h"
#include "control.pb.h"
#include "control_client.h"
#include "control_frame.h"
#include "control_server.h"

namespace nfv {
namespace {

using namespace std::chrono_literals;
using nfv::test::poll_until;

// A server on 127.0.0.1 whose set_policy waits until released (30 s at
// most) and whose scaler_status answers at once, on an io thread of its own.
class HeldServer {
 public:
  explicit HeldServer(bool run_apart)
      : server_(io_, "127.0.0.1", 0, 1 << 20, "t", [this](const control::Request& r) { return handle(r); }) {
    if (run_apart) server_.run_slow_requests_apart([](const control::Request& r) { return r.has_set_policy(); });
    thread_ = std::thread([this] { io_.run(); });
  }
  ~HeldServer() {
    release();
    guard_.reset();
    io_.stop();
    thread_.join();
  }
  uint16_t port() const { return server_.port(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }
  void release() { released_ = true; }
  int held() const { return held_.load(); }

 private:
  control::Response handle(const control::Request& request) {
    control::Response response;
    response.set_ok(true);
    if (request.has_set_policy()) {
      ++held_;
      poll_until([this] { return released_.load(); }, 30s);
      response.mutable_scaler()->set_name("after " + request.set_policy().name());
    } else {
      response.mutable_scaler()->set_name("status");
    }
    return response;
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ = boost::asio::make_work_guard(io_);
  std::atomic<int> held_{0};
  std::atomic<bool> released_{false};
  ControlServer server_;  // after what its handler uses
  std::thread thread_;
};

control::Request set_policy(const std::string& name) {
  control::Request r;
  r.mutable_set_policy()->set_name(name);
  return r;
}

control::Request status() {
  control::Request r;
  r.mutable_scaler_status();
  return r;
}

// Lets the held request go however the test ends (an early ASSERT, a
// throw): a future waiting on it would otherwise wait out its 30 s.
struct Releases {
  HeldServer& server;
  ~Releases() { server.release(); }
};

// A connection that writes frames as they are, several at once, and reads
// answers as they come (ControlClient waits for each answer before it sends on).
class RawConnection {
 public:
  explicit RawConnection(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("connect failed");
  }
  ~RawConnection() { ::close(fd_); }
  void send(control::Request request) {
    request.set_token("t");
    const std::string frame = frame_message(request.SerializeAsString());
    ASSERT_EQ(::write(fd_, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
  }
  // Whether any byte of an answer is there within `bound`.
  bool answer_within(std::chrono::milliseconds bound) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(bound.count())) == 1;
  }
  // The next answer (30 s at most for each read).
  control::Response read_answer() {
    unsigned char header[kFrameHeaderBytes];
    read_exactly(header, sizeof header);
    std::string body(frame_length(header), '\0');
    read_exactly(reinterpret_cast<unsigned char*>(body.data()), body.size());
    control::Response r;
    if (!r.ParseFromString(body)) throw std::runtime_error("not a Response");
    return r;
  }

 private:
  void read_exactly(unsigned char* out, std::size_t n) {
    for (std::size_t have = 0; have < n;) {
      if (!answer_within(30s)) throw std::runtime_error("no answer in 30 s");
      const ssize_t got = ::read(fd_, out + have, n - have);
      if (got <= 0) throw std::runtime_error("connection closed");
      have += static_cast<std::size_t>(got);
    }
  }
  int fd_;
};

TEST(ControlServer, ARequestRunApartLeavesOtherConnectionsAnsweredAndItsOwnInOrder) {
  HeldServer server(true);
  // One connection sends the switch and a status request back to back.
  RawConnection switcher(server.port());
  switcher.send(set_policy("drl"));
  switcher.send(status());
  Releases releases{server};
  ASSERT_TRUE(poll_until([&] { return server.held() == 1; }, 10s)) << "the set_policy request never reached the handler";
  // Meanwhile another connection is answered, twice.
  ControlClient watcher(server.address(), "t", 5s);
  for (int i = 0; i < 2; ++i) {
    const control::Response r = watcher.call(status());
    EXPECT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.scaler().name(), "status");
  }
  // The switcher's status waits behind its switch: no answer of either yet.
  EXPECT_FALSE(switcher.answer_within(0ms)) << "the switcher's connection was answered before the switch was let go";
  server.release();
  const control::Response first = switcher.read_answer();
  const control::Response second = switcher.read_answer();
  EXPECT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first.scaler().name(), "after drl");
  EXPECT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second.scaler().name(), "status");
}

// The same held request on the io thread: another connection gets no
// answer until it is let go (so the test above can tell the two apart).
TEST(ControlServer, ARequestOnTheIoThreadHoldsOtherConnections) {
  HeldServer server(false);
  ControlClient switcher(server.address(), "t", 30s);
  auto switched = std::async(std::launch::async, [&] { return switcher.call(set_policy("drl")); });
  Releases releases{server};
  ASSERT_TRUE(poll_until([&] { return server.held() == 1; }, 10s)) << "the set_policy request never reached the handler";
  ControlClient watcher(server.address(), "t", 500ms);
  EXPECT_THROW(watcher.call(status()), std::runtime_error) << "answered while the io thread was held";
  server.release();
  ASSERT_EQ(switched.wait_for(30s), std::future_status::ready);
  EXPECT_TRUE(switched.get().ok());
}

}  // namespace
}  // namespace nfv
