// The control API server in process, with a handler the test holds: a
// request the server runs apart (a policy switch whose check loads a
// checkpoint) leaves the server answering other connections meanwhile, and
// its own connection still gets its answers in order. Without it, the held
// request holds every connection.
#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include <utility>  // Boost 1.74's Asio needs std::exchange before it

#include <boost/asio.hpp>
#include <gtest/gtest.h>

#include "bounded_wait.h"
#include "control.pb.h"
#include "control_client.h"
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
  std::string address() const { return "127.0.0.1:" + std::to_string(server_.port()); }
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

TEST(ControlServer, ARequestRunApartLeavesOtherConnectionsAnsweredAndItsOwnInOrder) {
  HeldServer server(true);
  ControlClient switcher(server.address(), "t", 30s);
  auto switched = std::async(std::launch::async, [&] {
    const control::Response first = switcher.call(set_policy("drl"));
    return std::make_pair(first, switcher.call(status()));  // the same connection, after it
  });
  ASSERT_TRUE(poll_until([&] { return server.held() == 1; }, 10s)) << "the set_policy request never reached the handler";
  // Meanwhile another connection is answered, twice.
  ControlClient watcher(server.address(), "t", 5s);
  for (int i = 0; i < 2; ++i) {
    const control::Response r = watcher.call(status());
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.scaler().name(), "status");
  }
  EXPECT_NE(switched.wait_for(0s), std::future_status::ready) << "the held request was answered before its release";
  server.release();
  ASSERT_EQ(switched.wait_for(30s), std::future_status::ready) << "no answer after the release";
  const auto [first, second] = switched.get();
  EXPECT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first.scaler().name(), "after drl");
  EXPECT_EQ(second.scaler().name(), "status");
}

// The same held request on the io thread: another connection gets no
// answer until it is let go (so the test above can tell the two apart).
TEST(ControlServer, ARequestOnTheIoThreadHoldsOtherConnections) {
  HeldServer server(false);
  ControlClient switcher(server.address(), "t", 30s);
  auto switched = std::async(std::launch::async, [&] { return switcher.call(set_policy("drl")); });
  ASSERT_TRUE(poll_until([&] { return server.held() == 1; }, 10s)) << "the set_policy request never reached the handler";
  ControlClient watcher(server.address(), "t", 500ms);
  EXPECT_THROW(watcher.call(status()), std::runtime_error) << "answered while the io thread was held";
  server.release();
  ASSERT_EQ(switched.wait_for(30s), std::future_status::ready);
  EXPECT_TRUE(switched.get().ok());
}

}  // namespace
}  // namespace nfv
