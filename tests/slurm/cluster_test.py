#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""End to end on a real Slurm cluster: submit a sweep, lose a shard, resume, merge.

Usage: cluster_test.py CHSIM SOURCE_DIR [--keep]

Starts a private single-node cluster (cluster.py: munged, slurmctld, slurmd with their own
folder, key, socket and free ports), then:
  1. scripts/slurm-sweep refused by sbatch (an unknown partition): one line, exit 1;
  2. scripts/slurm-sweep over an 8-case scenario with 4 shards; the paths of the scenario, the
     output folder and chsim hold spaces, a quote and a %, and an sbatch option is passed
     through (--comment);
  3. array task 2 is cancelled while it runs (scancel JOBID_2): a wrapper given as --chsim
     holds shard 2 until it is cancelled, so the cancel cannot come too late; every other call
     goes straight to the real chsim;
  4. checks: the task ended CANCELLED, Slurm cancelled the merge job (DependencyNeverSatisfied),
     no merged result exists, parts 0, 1, 3 do, and `chsim merge --missing` names index 2
     (exit 3) while a plain merge refuses with the words for humans (exit 2);
  5. scripts/slurm-sweep --resume --wait: resubmits index 2 only (the wrapper's log shows
     each shard run once, shard 2 twice), then the merge;
  6. the merged file's cases, nodes, transitions and deterministic rows and summary equal
     those of one `chsim run` of the same scenario, line for line, byte for byte.
Every daemon is stopped by its PID at the end, also on failure, timeout or a signal.
Fails (never skips) when Slurm or munge is missing: scripts/install-deps --test installs them.
"""
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, ClusterError  # noqa: E402

CHSIM = os.path.abspath(sys.argv[1])
SOURCE = os.path.abspath(sys.argv[2])
KEEP = "--keep" in sys.argv[3:]
SWEEP = os.path.join(SOURCE, "scripts", "slurm-sweep")
# Guards against a hang, far above the expected times (the whole test: about 25 s on 2 cores;
# a job starting: a few seconds). ctest's TIMEOUT is longer: this test fails and cleans up first.
DEADLINE_S = 600
WAIT_S = 300
HELD = 2

SCENARIO = {
    "schema_version": 1, "name": "slurm-e2e", "seed": 20240601, "trials": 2,
    "nodes": {"count": [8, 40]},
    "algorithms": [{"algorithm": "ring", "hasher": ["md5", "xxh3"], "points_per_node": 40},
                   {"algorithm": "jump"}, {"algorithm": "maglev"}],
    "workload": {"type": "file", "path": "keys list.txt"},
    "events": [{"op": "add", "count": 1}, {"op": "remove", "random": 1},
               {"op": "fail", "fraction": 0.2}, {"op": "restore"}],
    "on_unsupported": "rebuild",
    "metrics": ["balance", "remap", "throughput"],
    "throughput": {"keys": 1024, "min_time_ms": 1, "repetitions": 1},
    "output": {"per_node": "all", "transitions": True},
}


class TestFailure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise TestFailure(message)


def until(what, ready, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = ready()
        if got:
            return got
        time.sleep(0.2)
    raise TestFailure(f"hung: nothing after {timeout} s waiting for {what}")


def write_held_chsim(path, log, hold, reached):
    """A chsim that logs each call and holds shard HELD while `hold` exists (at most 120 s)."""
    with open(path, "w") as f:
        f.write(f"""#!/bin/bash
printf '%s\\n' "${{SLURM_JOB_ID:-}} $*" >> {shlex.quote(log)}
if [[ " $* " == *" --shard {HELD}/4 "* && -e {shlex.quote(hold)} ]]; then
  echo "$SLURM_JOB_ID" > {shlex.quote(reached + ".tmp")}
  mv {shlex.quote(reached + ".tmp")} {shlex.quote(reached)}
  for ((t = 0; t < 1200; t++)); do [[ -e {shlex.quote(hold)} ]] || break; sleep 0.1; done
fi
exec {shlex.quote(CHSIM)} "$@"
""")
    os.chmod(path, 0o755)


def tables(path):
    """Each array of a result file as its lines, as written (one element a line)."""
    out, name = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if name is None and line.startswith(' "') and line.endswith(": ["):
                name = json.loads(line[1:-3])
                out[name] = []
            elif name is not None and line in (" ]", " ],"):
                name = None
            elif name is not None:
                out[name].append(line[:-1] if line.endswith(",") else line)
    return out


def deterministic_lines(path):
    t = tables(path)
    keep = {}
    for name in ("cases", "nodes", "transitions"):
        keep[name] = t.get(name, [])
    for name in ("rows", "summary"):
        keep[name] = [l for l in t.get(name, []) if json.loads(l)["deterministic"]]
    keep["rows (not deterministic)"] = [l for l in t.get("rows", [])
                                        if not json.loads(l)["deterministic"]]
    return keep


def main():
    t0 = time.monotonic()
    top = tempfile.mkdtemp(prefix="chsim-slurm-")
    work = os.path.join(top, "w")  # the sweep's files: spaces, a quote, a % in every path
    scen_dir = os.path.join(work, "scenario dir")
    out = os.path.join(work, "sweep out 100%'s")
    bin_dir = os.path.join(work, "bin dir")
    for d in (scen_dir, bin_dir):
        os.makedirs(d)
    scenario = os.path.join(scen_dir, "e2e sweep.json")
    with open(scenario, "w") as f:
        json.dump(SCENARIO, f)
    with open(os.path.join(scen_dir, "keys list.txt"), "w") as f:
        f.writelines(f"user:{i}\n" for i in range(3000))
    name = "e2e sweep"
    log, hold, reached = (os.path.join(work, x) for x in ("calls.log", "hold", "reached"))
    open(hold, "w").close()
    # Not "chsim held": Slurm's proctrack/linuxproc cannot signal a process whose name holds
    # a space (slurm-sweep warns about such a chsim), so the cancel would never land.
    held_chsim = os.path.join(bin_dir, "chsim-held")
    write_held_chsim(held_chsim, log, hold, reached)

    cluster = Cluster(os.path.join(top, "cluster"))
    passed = False
    try:
        cluster.start()
        print(f"cluster up in {time.monotonic() - t0:.1f} s ({cluster.conf})", flush=True)

        def sweep(*args, expect=0):
            p = cluster.run([SWEEP, scenario, "--out", out, *args], check=False, timeout=WAIT_S)
            check(p.returncode == expect, f"slurm-sweep {' '.join(args)}: exit {p.returncode}, "
                  f"expected {expect}\nstdout: {p.stdout}\nstderr: {p.stderr}")
            return p

        # 1. sbatch refuses: one line naming sbatch and its reason, exit 1, nothing recorded.
        p = sweep("--shards", "4", "--chsim", held_chsim, "--partition", "no-such-partition",
                  expect=1)
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and "sbatch refused" in lines[0] and "partition" in lines[0],
              f"a refused submission should say so in one line, got {p.stderr!r}")

        # 2. The sweep.
        p = sweep("--shards", "4", "--threads", "1", "--time", "5", "--chsim", held_chsim,
                  "--", "--comment=chsim e2e 'sweep'")
        print(p.stdout, end="", flush=True)
        with open(os.path.join(out, "slurm", name + ".sweep.json")) as f:
            first = json.load(f)["submissions"][0]
        array, merge = first["array_job"], first["merge_job"]
        check(f"array job {array}" in p.stdout and f"merge job {merge}" in p.stdout
              and f"squeue -j {array},{merge}" in p.stdout,
              "slurm-sweep should print the job ids and how to follow them")
        check(cluster.job(array + "_0").get("Comment") == "chsim e2e 'sweep'" or
              cluster.job(array).get("Comment") == "chsim e2e 'sweep'",
              f"the pass-through --comment did not reach the job: {cluster.job(array)}")
        check(cluster.job(merge).get("Dependency", "").startswith(f"afterok:{array}"),
              f"merge job {merge} should depend afterok on {array}: {cluster.job(merge)}")

        # 3. Cancel task HELD while it runs.
        task = f"{array}_{HELD}"
        until(f"task {task} to start", lambda: os.path.exists(reached), WAIT_S)
        check(cluster.job(task).get("JobState") == "RUNNING",
              f"task {task} should be running: {cluster.job(task)}")
        cluster.run(["scancel", task])
        print(f"cancelled {task} while running, after {time.monotonic() - t0:.1f} s", flush=True)

        # 4. The array ends with a hole; Slurm cancels the merge job; nothing is merged.
        def settled():
            tasks = [cluster.job(f"{array}_{i}").get("JobState") for i in range(4)]
            m = cluster.job(merge)
            done = all(s in ("COMPLETED", "CANCELLED", "FAILED") for s in tasks)
            return done and m.get("JobState") != "PENDING" or \
                done and m.get("Reason") == "DependencyNeverSatisfied"
        until("the array to end and the merge job to be dropped", settled, WAIT_S)
        states = [cluster.job(f"{array}_{i}").get("JobState") for i in range(4)]
        expected = ["COMPLETED"] * 4
        expected[HELD] = "CANCELLED"
        check(states == expected, f"task states {states}, expected {expected}")
        m = cluster.job(merge)
        check(m.get("JobState") in ("CANCELLED", "PENDING") and
              m.get("Reason") == "DependencyNeverSatisfied",
              f"the merge job should never run: {m}")
        merged = os.path.join(out, name + ".json")
        check(not os.path.exists(merged), f"{merged} exists after a lost shard")
        parts = os.path.join(out, "parts")
        have = sorted(os.listdir(parts))
        check(have == [f"{name}.{i}.json" for i in (0, 1, 3)],
              f"parts after the cancel: {have} (no temporary file may remain)")
        part_paths = [os.path.join(parts, x) for x in have]
        p = subprocess.run([CHSIM, "merge", "--missing", "--shards", "4", "--scenario",
                            scenario, *part_paths], capture_output=True, text=True)
        check(p.returncode == 3, f"merge --missing: exit {p.returncode}, expected 3: {p.stderr}")
        listing = json.loads(p.stdout)
        check(listing["missing"] == [HELD] and listing["rerun"] == str(HELD)
              and not listing["complete"], f"merge --missing should name {HELD}: {listing}")
        p = subprocess.run([CHSIM, "merge", *part_paths, "-o", merged], capture_output=True,
                           text=True)
        check(p.returncode == 2 and f"shard(s) {HELD} of 4 missing" in p.stderr
              and not os.path.exists(merged), f"plain merge: exit {p.returncode} {p.stderr!r}")

        # 5. Resume: only index HELD, then the merge.
        os.remove(hold)
        p = sweep("--resume", "--wait")
        print(p.stdout, end="", flush=True)
        check(f"resubmitting {HELD}, then the merge" in p.stdout,
              f"the resume should resubmit {HELD} only: {p.stdout}")
        with open(log) as f:
            calls = [l.split(" ", 1)[1] for l in f.read().splitlines()]
        runs = {i: sum(f" --shard {i}/4 " in c and "--dry-run" not in c for c in calls)
                for i in range(4)}
        check(runs == {0: 1, 1: 1, 2: 2, 3: 1}, f"shard runs {runs}: a resume reruns only the hole")
        merges = [c for c in calls if c.startswith("merge ") and "--missing" not in c]
        check(len(merges) == 1, f"one merge expected: {calls}")

        # 6. Byte for byte against one uninterrupted run.
        single = os.path.join(work, "single.json")
        subprocess.run([CHSIM, "run", scenario, "-o", single, "--threads", "2", "--quiet"],
                       check=True)
        a, b = deterministic_lines(merged), deterministic_lines(single)
        for table in ("cases", "rows", "summary", "nodes", "transitions"):
            differ = next(((x, y) for x, y in zip(a[table], b[table]) if x != y), None)
            check(a[table] == b[table] and a[table],
                  f"{table}: the resumed sweep differs from one run ({len(a[table])} vs "
                  f"{len(b[table])} lines; first difference: {differ})")
        check(a["rows (not deterministic)"], "expected timed rows (excluded from the comparison)")
        with open(merged) as f:
            doc = json.load(f)
        check(len(doc["provenance"]["merged_from"]) == 4, "merged_from should list 4 parts")
        rows = sum(len(a[t]) for t in ("rows", "summary", "nodes", "transitions"))
        passed = True
        print(f"PASS: sweep of 4 shards, task {HELD} cancelled, resumed, merged; {rows} "
              f"deterministic lines equal one run's; {time.monotonic() - t0:.1f} s")
    except (TestFailure, ClusterError, subprocess.SubprocessError) as e:
        print(f"FAIL: {e}")
        logs = cluster.diagnostics().strip("\n")
        if logs:
            print("cluster logs:\n" + logs)
        logs = os.path.join(out, "slurm")
        if os.path.isdir(logs):
            for x in sorted(os.listdir(logs)):
                if x.endswith(".log"):
                    with open(os.path.join(logs, x), errors="replace") as f:
                        print(f"  {x}:\n    " + "    ".join(f.readlines()[-10:]))
    finally:
        signal.alarm(0)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)  # stop the daemons whatever comes
        cluster.stop()
        if KEEP or not passed:
            print(f"files kept in {top}" if KEEP else f"removing {top}")
        if not KEEP:
            subprocess.run(["rm", "-rf", "--one-file-system", top])
    return 0 if passed else 1


def on_signal(signum, frame):
    raise TestFailure(f"signal {signum}" if signum != signal.SIGALRM
                      else f"hung: still running after {DEADLINE_S} s")


if __name__ == "__main__":
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
        signal.signal(s, on_signal)
    signal.alarm(DEADLINE_S)
    sys.exit(main())
