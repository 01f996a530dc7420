// SPDX-License-Identifier: Apache-2.0
// Progress: a status line on stderr while a run works. On a terminal it is
// redrawn in place a few times a second; otherwise a plain line is printed
// every few seconds (logs stay readable). Silent when quiet.
//
// Thread-safety: Add and CaseDone may be called from any thread.
#ifndef CHSIM_SIM_BASE_PROGRESS_H_
#define CHSIM_SIM_BASE_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace chsim::sim {

class Progress {
 public:
  // `total_work` in the runner's work units; `total_cases` for the display.
  Progress(bool quiet, uint64_t total_work, size_t total_cases);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Add(uint64_t work) noexcept { done_.fetch_add(work, std::memory_order_relaxed); }
  void CaseDone() noexcept { cases_done_.fetch_add(1, std::memory_order_relaxed); }
  void SetPhase(const std::string& phase);
  size_t cases_done() const noexcept { return cases_done_.load(); }
  uint64_t done() const noexcept { return done_.load(); }  // work added so far
  // Stops the display and clears the redrawn line.
  void Finish();

 private:
  void Loop();
  std::string Line();

  bool quiet_, tty_;
  uint64_t total_;
  size_t total_cases_;
  std::atomic<uint64_t> done_{0};
  std::atomic<size_t> cases_done_{0};
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string phase_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_PROGRESS_H_
