// SPDX-License-Identifier: Apache-2.0
// ParallelFor: the simulator's one way to spread work over threads (the
// runner's cases and key blocks, the plan's cases, tune's draws).
//
// Thread-safety: f runs concurrently on up to `workers` threads; it must only
// write state of its own item or of its own worker.
#ifndef CHSIM_SIM_BASE_THREAD_POOL_H_
#define CHSIM_SIM_BASE_THREAD_POOL_H_

#include <cstdint>
#include <functional>

namespace chsim::sim {

// Calls f(worker, i) once for every i in [0, count), on min(workers, count)
// threads; worker 0 is the calling thread, so callers can keep per-worker
// state in a vector of `workers` slots. Items are handed out in increasing
// order. The first exception stops every worker from taking another item and
// is rethrown once all have returned.
void ParallelFor(uint64_t count, unsigned workers,
                 const std::function<void(unsigned worker, uint64_t i)>& f);

// The thread count when none is given: one per hardware thread, at least 1.
unsigned DefaultThreads() noexcept;

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_THREAD_POOL_H_
