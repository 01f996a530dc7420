# SPDX-License-Identifier: Apache-2.0
"""Signals a `chsim run` caught mid-way, by its state and not by a stopwatch.

chsim started on a pseudo-terminal redraws its progress line ("N/M cases, P%")
every 250 ms once its cases run, which is after it installed its signal
handlers. At the first such line the caller's process freezes chsim (SIGSTOP),
sends the signal and thaws it (SIGCONT): the signal is delivered before chsim
runs another instruction of the simulation, so the outcome does not depend on
how loaded the machine is, nor on how long the run takes.

Used by tests/hostile/kill_test.py and tests/sim/cli_test.py.
"""
import os
import pty
import re
import select
import signal
import subprocess
import time

PROGRESS = re.compile(rb"\d+/\d+ cases, \d+%")
FROZEN = "frozen mid-run"


def proc_state(pid):
  """The state letter of a live process (T when stopped); None once it is gone."""
  try:
    with open("/proc/%d/stat" % pid) as f:
      return f.read().rsplit(")", 1)[1].split()[0]
  except OSError:
    return None


def _freeze_and_signal(pid, sig):
  os.kill(pid, signal.SIGSTOP)
  while (st := proc_state(pid)) is not None and st not in "Tt":
    time.sleep(0.001)
  if st is None:
    return False
  os.kill(pid, sig)
  os.kill(pid, signal.SIGCONT)
  return True


def run_frozen(args, sig, hang_s):
  """Runs `args` (a chsim run command line, without -q) on a terminal and delivers
  exactly one `sig` at its first progress line. Returns (rc, stderr text, how): `how` is
  FROZEN when the signal went in mid-run, else why not (the run ended first). rc is None
  when the process hung: no exit within `hang_s` seconds of the start or of the signal,
  a guard far above the expected time, and then the text says "hung"."""
  master, slave = pty.openpty()
  proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=slave)
  os.close(slave)
  buf, how = b"", "the run ended before its first progress line"
  deadline = time.monotonic() + hang_s

  def read(timeout):
    nonlocal buf
    if select.select([master], [], [], timeout)[0]:
      try:
        data = os.read(master, 65536)
      except OSError:  # EIO: chsim closed the terminal
        return False
      buf += data
      return bool(data)
    return True

  while proc.poll() is None and time.monotonic() < deadline:
    read(0.02)
    if PROGRESS.search(buf):
      if _freeze_and_signal(proc.pid, sig):
        how = FROZEN
        deadline = time.monotonic() + hang_s
      break
  while read(0.5) and time.monotonic() < deadline:
    if proc.poll() is not None and not select.select([master], [], [], 0)[0]:
      break
  try:
    proc.wait(timeout=max(1, deadline - time.monotonic()))
  except subprocess.TimeoutExpired:
    proc.kill()
    proc.wait()
    os.close(master)
    return None, "hung: no exit within %d s of the %s" % (
        hang_s, "signal" if how == FROZEN else "start"), how
  os.close(master)
  text = re.sub(r"\x1b\[K|\r", "\n", buf.decode("utf-8", "replace"))
  return proc.returncode, text, how
