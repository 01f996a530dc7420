#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Kill test: `chsim run` interrupted at seeded random moments.

A baseline run measures how long the scenario takes and keeps its rows.

First, one forced clean stop per signal (SIGINT, then SIGTERM): the run is
caught mid-way without any timing luck. chsim runs on a pseudo-terminal, where
it redraws its progress line ("N/M cases, P%") every 250 ms once the cases
run, which is after it installed its handlers; at the first such line the
test freezes it (SIGSTOP), sends the one signal and thaws it (SIGCONT): the
signal is delivered before chsim runs another instruction of the simulation,
so the only right outcome is a clean stop, on any machine load and under
sanitizers. Up to 3 attempts each (a run that ends before its first progress
line); none clean is a failure.

Then one signal of each kind is sent at once, while chsim is still loading
with both signals blocked: it must stop cleanly (exit 128+SIG), which shows
that chsim unblocks them after installing its handlers.

Then each random trial starts the same run (with both signals blocked at exec,
so one sent before chsim installs its handlers waits for them; chsim must
unblock them), sends SIGINT or SIGTERM after a
random delay in [0, 1.2 x baseline] (and, in some trials, a second signal
shortly after, which terminates at once), and checks:

  * the process ends (no hang after a signal: at most --grace seconds);
  * one signal: exit status exactly 0 (the signal came too late to matter)
    or 128+SIG with the line "interrupted by SIG after finishing N of M
    cases" (M the scenario's cases, N <= M); death by the signal itself is
    accepted only after a second signal;
  * the result file is absent, or whole: valid JSON that `chsim validate
    --results` accepts and whose rows equal the baseline's (never partial);
  * an exit status of 0 always comes with the file, 128+SIG never does;
  * no other file is left in the directory (no temporary file).

The number of random trials is cut to fit --budget seconds (at least
--min-trials), so a sanitizer build, where a run is 5-10x slower, stays within
CI's time.

Usage: kill_test.py CHSIM [--trials N] [--seed S] [--budget SECONDS] [--keys N]
"""

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from signal_mid_run import FROZEN, run_frozen  # noqa: E402

SCENARIO = {
    "schema_version": 1,
    "name": "kill",
    "seed": 3,
    "trials": 2,
    "nodes": {"count": [50, 100]},
    "algorithms": [{"algorithm": "ring", "points_per_node": [40, 160]},
                   {"algorithm": "ketama", "profile": "spymemcached"},
                   {"algorithm": "jump"}],
    "workload": {"type": "uniform", "keys": 400000},
    "events": [{"op": "add", "count": 1}, {"op": "remove", "last": 1}],
    "metrics": ["balance", "remap"],
}


def block_stop_signals():
  signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


def start(chsim, d, out):
  # Started with SIGINT and SIGTERM blocked, so a signal sent while the process
  # is still loading (before any program could have a handler) stays pending
  # until chsim installs its handlers and unblocks them.
  return subprocess.Popen([chsim, "run", os.path.join(d, "s.json"), "-o", out, "-q",
                           "--threads", "2"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          preexec_fn=block_stop_signals)


def finish(proc, grace):
  try:
    _, err = proc.communicate(timeout=grace)
  except subprocess.TimeoutExpired:
    proc.kill()
    proc.communicate()
    return None, "hung: did not stop within %ds of the signal" % grace
  return proc.returncode, err.decode("utf-8", "replace")


def run(chsim, d, out, sig=None, delay=0.0, second=None, grace=60):
  proc = start(chsim, d, out)
  if sig is not None:
    time.sleep(delay)
    if proc.poll() is None:
      proc.send_signal(sig)
      if second is not None:
        time.sleep(second)
        if proc.poll() is None:
          proc.send_signal(sig)
  return finish(proc, grace)


def check_outcome(chsim, d, out, sig, rc, err, signals_sent, cases, base_rows):
  """Problems with one ended run (and cleans the directory)."""
  problems = []
  if rc is None:
    problems.append(err)
  elif rc == 128 + sig:
    m = STOPPED.search(err)
    if not m or m.group(1) != signal.Signals(sig).name:
      problems.append("exit %d without the line 'interrupted by %s after finishing N of M "
                      "cases': %r" % (rc, signal.Signals(sig).name, err.strip()[-300:]))
    else:
      total = int(m.group(4) or m.group(3))
      done = int(m.group(2)) if m.group(2) is not None else total
      if total != cases or done > total:
        problems.append("says %d of %d cases; the scenario has %d" % (done, total, cases))
    if os.path.exists(out):
      problems.append("exit %d, yet a result file was written" % rc)
  elif rc == -sig:
    if signals_sent < 2:
      problems.append("killed by %s after a single signal: the handler did not stop the run "
                      "cleanly" % signal.Signals(sig).name)
  elif rc != 0:
    problems.append("exit status %d" % rc)
  if rc == 0 and not os.path.exists(out):
    problems.append("exit 0 without a result file")
  if os.path.exists(out):
    try:
      with open(out) as f:
        rows = json.load(f)["rows"]
      if rows != base_rows:
        problems.append("result rows differ from the baseline's")
    except (ValueError, KeyError) as e:
      problems.append("partial or invalid result file: %s" % e)
    v = subprocess.run([chsim, "validate", "--results", out], capture_output=True)
    if v.returncode != 0:
      problems.append("validate --results: %s" % v.stderr.decode().strip())
    os.remove(out)
  left = sorted(set(os.listdir(d)) - {"s.json"})
  for name in left:
    os.remove(os.path.join(d, name))
  if left:
    problems.append("left files: %s" % ", ".join(left))
  return problems


def outcome(rc):
  return ("exit %d" % rc if rc is not None and rc >= 0 else
          "killed by %s" % signal.Signals(-rc).name if rc is not None else "hang")


STOPPED = re.compile(r"chsim: interrupted by (SIGINT|SIGTERM) after finishing "
                     r"(?:(\d+) of (\d+)|all (\d+)) cases; no result file written")


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("chsim")
  ap.add_argument("--trials", type=int, default=30)
  ap.add_argument("--seed", type=int, default=20240601)
  ap.add_argument("--grace", type=int, default=60)
  ap.add_argument("--budget", type=float, default=150, help="seconds for the trials (0: no cut)")
  ap.add_argument("--min-trials", type=int, default=10)
  ap.add_argument("--keys", type=int, default=SCENARIO["workload"]["keys"],
                  help="keys of the scenario (a smaller twin for slow builds)")
  a = ap.parse_args()
  SCENARIO["workload"]["keys"] = a.keys
  chsim = os.path.abspath(a.chsim)
  rng = random.Random(a.seed)
  failures = 0
  with tempfile.TemporaryDirectory(prefix="chsim-kill-") as d:
    with open(os.path.join(d, "s.json"), "w") as f:
      json.dump(SCENARIO, f)
    out = os.path.join(d, "out.json")
    t0 = time.monotonic()
    rc, err = run(chsim, d, out, grace=600)
    base_secs = time.monotonic() - t0
    if rc != 0:
      print("baseline run failed: exit %s: %s" % (rc, err))
      return 1
    with open(out) as f:
      base_rows = json.load(f)["rows"]
    os.remove(out)
    dry = subprocess.run([chsim, "run", os.path.join(d, "s.json"), "--dry-run"],
                         capture_output=True, text=True, check=True)
    cases = sum(1 for line in dry.stdout.splitlines() if re.match(r"\d+\t", line))
    outcomes = {}
    # Forced clean stops: one per signal, each caught mid-run.
    for sig in (signal.SIGINT, signal.SIGTERM):
      for attempt in range(3):
        rc, err, how = run_frozen([chsim, "run", os.path.join(d, "s.json"), "-o", out,
                                   "--threads", "2"], sig, a.grace)
        problems = check_outcome(chsim, d, out, sig, rc, err, 1, cases, base_rows)
        clean = rc == 128 + sig and not problems
        if how != FROZEN and attempt < 2:
          print("note forced %s: %s (exit %s); again" % (signal.Signals(sig).name, how, rc))
          continue
        if not clean and not problems:
          problems.append("%s: %s; expected exit %d with the 'interrupted by' line" % (
              how, outcome(rc), 128 + sig))
        kind = outcome(rc)
        outcomes["forced " + kind] = outcomes.get("forced " + kind, 0) + 1
        print("%-4s forced %s, %s -> %s%s" % (
            "FAIL" if problems else "ok", signal.Signals(sig).name, how, kind,
            ": " + "; ".join(problems) if problems else ": " + STOPPED.search(err).group(0)),
            flush=True)
        failures += bool(problems)
        break
    if failures:
      print("%d forced stop(s) failed; the random trials are not run" % failures)
      return 1
    # A signal sent at once, while chsim is still loading with both signals
    # blocked, must wait for the handlers: the run takes seconds, so exit 0
    # here means chsim never unblocked them.
    for sig in (signal.SIGINT, signal.SIGTERM):
      rc, err = run(chsim, d, out, sig, 0.0, grace=a.grace)
      problems = check_outcome(chsim, d, out, sig, rc, err, 1, cases, base_rows)
      if rc != 128 + sig and not problems:
        problems.append("%s: expected exit %d with the 'interrupted by' line" % (
            outcome(rc), 128 + sig))
      print("%-4s pending %s at exec -> %s%s" % (
          "FAIL" if problems else "ok", signal.Signals(sig).name, outcome(rc),
          ": " + "; ".join(problems) if problems else ""), flush=True)
      failures += bool(problems)
    if failures:
      print("a signal pending at exec was not handled; the random trials are not run")
      return 1
    trials = a.trials
    if a.budget > 0:  # a trial lasts about 0.6 x the baseline on average, plus start-up
      trials = max(a.min_trials, min(trials, int(a.budget / (0.7 * base_secs + 0.1))))
    print("baseline: %.2f s, %d rows, %d cases; %d random trials" % (
        base_secs, len(base_rows), cases, trials))
    for trial in range(trials):
      sig = rng.choice([signal.SIGINT, signal.SIGTERM])
      delay = rng.uniform(0, 1.2 * base_secs)
      second = rng.uniform(0, 0.2) if rng.random() < 0.25 else None
      rc, err = run(chsim, d, out, sig, delay, second, grace=a.grace)
      problems = check_outcome(chsim, d, out, sig, rc, err, 1 if second is None else 2, cases,
                               base_rows)
      kind = outcome(rc)
      outcomes[kind] = outcomes.get(kind, 0) + 1
      print("%-4s trial %2d: %s after %.2fs%s -> %s%s" % (
          "FAIL" if problems else "ok", trial, signal.Signals(sig).name, delay,
          " (+ second after %.2fs)" % second if second is not None else "", kind,
          ": " + "; ".join(problems) if problems else ""), flush=True)
      failures += bool(problems)
  print("%d trials, %d failed; outcomes: %s" % (
      trials, failures, ", ".join("%s x%d" % kv for kv in sorted(outcomes.items()))))
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
