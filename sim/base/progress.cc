// SPDX-License-Identifier: Apache-2.0
#include "sim/base/progress.h"

#include <unistd.h>

#include <cstdio>

namespace chsim::sim {

Progress::Progress(bool quiet, uint64_t total_work, size_t total_cases)
    : quiet_(quiet),
      tty_(::isatty(STDERR_FILENO) == 1),
      total_(total_work),
      total_cases_(total_cases),
      start_(std::chrono::steady_clock::now()) {
  if (!quiet_) thread_ = std::thread([this] { Loop(); });
}

Progress::~Progress() { Finish(); }

void Progress::SetPhase(const std::string& phase) {
  std::lock_guard<std::mutex> lock(mu_);
  phase_ = phase;
}

std::string Progress::Line() {
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  uint64_t done = done_.load(std::memory_order_relaxed);
  double frac = total_ ? static_cast<double>(done) / static_cast<double>(total_) : 0;
  if (frac > 1) frac = 1;
  char buf[256];
  std::string phase;
  {
    std::lock_guard<std::mutex> lock(mu_);
    phase = phase_;
  }
  if (frac > 0.01 && frac < 1) {
    std::snprintf(buf, sizeof buf, "chsim: %s %zu/%zu cases, %.0f%%, %.0fs elapsed, ~%.0fs left",
                  phase.c_str(), cases_done_.load(), total_cases_, frac * 100, elapsed,
                  elapsed * (1 - frac) / frac);
  } else {
    std::snprintf(buf, sizeof buf, "chsim: %s %zu/%zu cases, %.0f%%, %.0fs elapsed", phase.c_str(),
                  cases_done_.load(), total_cases_, frac * 100, elapsed);
  }
  return buf;
}

void Progress::Loop() {
  const auto period = tty_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(5000);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (cv_.wait_for(lock, period, [this] { return stop_; })) break;
    lock.unlock();
    std::string line = Line();
    if (tty_) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
    lock.lock();
  }
}

void Progress::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (!quiet_ && tty_) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
}

}  // namespace chsim::sim
