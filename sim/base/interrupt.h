// SPDX-License-Identifier: Apache-2.0
// Interrupt: SIGINT/SIGTERM set a flag that long loops poll, so a run stops
// cleanly (no partial result file) and can say what it finished.
//
// Thread-safety: the flag is a lock-free atomic; Install once from main.
#ifndef CHSIM_SIM_BASE_INTERRUPT_H_
#define CHSIM_SIM_BASE_INTERRUPT_H_

#include <atomic>
#include <stdexcept>

namespace chsim::sim {

// Thrown by loops that see the flag.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Installs handlers for SIGINT and SIGTERM. A second signal of the same kind
// while stopping terminates at once (the default action); the result file is
// still whole or absent, since it is only renamed into place at the end.
// Also unblocks both signals in the calling thread, so a signal that arrived
// while a launcher kept them blocked is handled now. Call before starting
// worker threads (they inherit the mask).
void InstallInterruptHandlers();

// The signal number received (0 if none).
int InterruptSignal() noexcept;
bool StopRequested() noexcept;
// Lets tests and callers request a stop without a signal.
void RequestStop() noexcept;
void ClearStop() noexcept;

// Throws Interrupted if a stop was requested.
void ThrowIfStopped();

}  // namespace chsim::sim

#endif  // CHSIM_SIM_BASE_INTERRUPT_H_
