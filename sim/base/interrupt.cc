// SPDX-License-Identifier: Apache-2.0
#include "sim/base/interrupt.h"

#include <signal.h>

#include <csignal>

namespace chsim::sim {
namespace {

std::atomic<int> g_signal{0};
std::atomic<bool> g_stop{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

extern "C" void OnSignal(int sig) {
  g_signal.store(sig, std::memory_order_relaxed);
  g_stop.store(true, std::memory_order_relaxed);
  std::signal(sig, SIG_DFL);  // a second one terminates
}

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // A launcher may start chsim with these signals blocked (the mask survives
  // exec); unblocking here delivers any that are already pending to the handler.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

int InterruptSignal() noexcept { return g_signal.load(std::memory_order_relaxed); }
bool StopRequested() noexcept { return g_stop.load(std::memory_order_relaxed); }
void RequestStop() noexcept { g_stop.store(true, std::memory_order_relaxed); }
void ClearStop() noexcept {
  g_stop.store(false);
  g_signal.store(0);
}

void ThrowIfStopped() {
  if (StopRequested()) throw Interrupted("interrupted");
}

}  // namespace chsim::sim
