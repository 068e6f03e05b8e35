#include "progress_bar.h"

#include <cstdio>

namespace nfv {
namespace {

constexpr int kWidth = 30;
constexpr auto kRedraw = std::chrono::milliseconds(100);

}  // namespace

ProgressBar::ProgressBar(std::string label, bool enabled) : label_(std::move(label)), enabled_(enabled) {}

void ProgressBar::update(std::size_t done, std::size_t total, const std::string& text) {
  done_ = done;
  total_ = total;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < kRedraw && done < total) return;
  last_draw_ = now;
  draw(done, total, text);
}

void ProgressBar::finish(const std::string& text) {
  draw(done_, total_, text);
  if (enabled_) std::fputc('\n', stderr);
}

void ProgressBar::draw(std::size_t done, std::size_t total, const std::string& text) {
  if (!enabled_) return;
  const int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r%s [%s] %s\033[K", label_.c_str(), bar.c_str(), text.c_str());
  std::fflush(stderr);
}

}  // namespace nfv
