// A one-line progress bar on stderr for long jobs (training, benchmarks):
// redrawn in place at most ten times a second, then left as a summary line.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace nfv {

class ProgressBar {
 public:
  ProgressBar(std::string label, bool enabled);
  // `done` of `total` units, and free text after the bar (e.g. the loss).
  void update(std::size_t done, std::size_t total, const std::string& text);
  // Draws the final state and ends the line.
  void finish(const std::string& text);

 private:
  void draw(std::size_t done, std::size_t total, const std::string& text);
  std::string label_;
  bool enabled_;
  std::chrono::steady_clock::time_point last_draw_{};
  std::size_t done_ = 0, total_ = 0;
};

}  // namespace nfv
