// SPDX-License-Identifier: Apache-2.0
#include "sim/base/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace chsim::sim {

void ParallelFor(uint64_t count, unsigned workers,
                 const std::function<void(unsigned worker, uint64_t i)>& f) {
  const unsigned n = static_cast<unsigned>(
      std::min<uint64_t>(std::max(1u, workers), std::max<uint64_t>(count, 1)));
  std::atomic<uint64_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mu;
  auto work = [&](unsigned worker) {
    try {
      for (uint64_t i; !stop.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < count;) {
        f(worker, i);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < n; ++w) pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

unsigned DefaultThreads() noexcept { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace chsim::sim
