// Bounded waits for tests: instead of sleeping and hoping, poll what the test
// waits for (a counter, a log line) until it holds or a deadline passes, so a
// slow machine costs time, never a wrong verdict, and a hang fails with a message.
#pragma once

#include <chrono>
#include <thread>

namespace nfv::test {

// Calls `done` every `step` until it returns true or `bound` has passed;
// returns its last answer, for an ASSERT_TRUE(...) << "what did not happen".
template <typename Done>
bool poll_until(Done&& done, std::chrono::milliseconds bound, std::chrono::milliseconds step = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(step);
  }
  return true;
}

}  // namespace nfv::test
