#!/usr/bin/python3
"""Kill test: `chsim run` interrupted at seeded random moments.

A baseline run measures how long the scenario takes and keeps its rows. Then
each trial starts the same run, sends SIGINT or SIGTERM after a random delay
in [0, 1.2 x baseline] (and, in some trials, a second signal shortly after,
which terminates at once), and checks:

  * the process ends (no hang after a signal: at most --grace seconds);
  * exit status 0 (the signal came too late to matter), 128+SIG (stopped
    cleanly), or death by the signal itself (the second signal);
  * the result file is absent, or whole: valid JSON that `chsim validate
    --results` accepts and whose rows equal the baseline's (never partial);
  * an exit status of 0 always comes with the file;
  * no other file is left in the directory (no temporary file).

The number of trials is cut to fit --budget seconds (at least --min-trials),
so a sanitizer build, where a run is 5-10x slower, stays within CI's time.

Usage: kill_test.py CHSIM [--trials N] [--seed S] [--budget SECONDS]
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

SCENARIO = {
    "schema_version": 1,
    "name": "kill",
    "seed": 3,
    "trials": 2,
    "nodes": {"count": [50, 100]},
    "algorithms": [{"algorithm": "ring", "points_per_node": [40, 160]},
                   {"algorithm": "ketama", "profile": "spymemcached"},
                   {"algorithm": "jump"}],
    "workload": {"type": "uniform", "keys": 200000},
    "events": [{"op": "add", "count": 1}, {"op": "remove", "last": 1}],
    "metrics": ["balance", "remap"],
}


def run(chsim, d, out, sig=None, delay=0.0, second=None, grace=60):
  proc = subprocess.Popen([chsim, "run", os.path.join(d, "s.json"), "-o", out, "-q",
                           "--threads", "2"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
  if sig is not None:
    time.sleep(delay)
    if proc.poll() is None:
      proc.send_signal(sig)
      if second is not None:
        time.sleep(second)
        if proc.poll() is None:
          proc.send_signal(sig)
  try:
    _, err = proc.communicate(timeout=grace)
  except subprocess.TimeoutExpired:
    proc.kill()
    proc.communicate()
    return None, "did not stop within %ds of the signal" % grace
  return proc.returncode, err.decode("utf-8", "replace")


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("chsim")
  ap.add_argument("--trials", type=int, default=30)
  ap.add_argument("--seed", type=int, default=20240601)
  ap.add_argument("--grace", type=int, default=60)
  ap.add_argument("--budget", type=float, default=150, help="seconds for the trials (0: no cut)")
  ap.add_argument("--min-trials", type=int, default=10)
  a = ap.parse_args()
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
    trials = a.trials
    if a.budget > 0:  # a trial lasts about 0.6 x the baseline on average, plus start-up
      trials = max(a.min_trials, min(trials, int(a.budget / (0.7 * base_secs + 0.1))))
    print("baseline: %.2f s, %d rows; %d trials" % (base_secs, len(base_rows), trials))
    outcomes = {}
    for trial in range(trials):
      sig = rng.choice([signal.SIGINT, signal.SIGTERM])
      delay = rng.uniform(0, 1.2 * base_secs)
      second = rng.uniform(0, 0.2) if rng.random() < 0.25 else None
      rc, err = run(chsim, d, out, sig, delay, second, grace=a.grace)
      problems = []
      if rc is None:
        problems.append(err)
      elif rc not in (0, 128 + sig, -sig):
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
      kind = ("exit %d" % rc if rc is not None and rc >= 0 else
              "killed by %s" % signal.Signals(-rc).name if rc is not None else "hang")
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
