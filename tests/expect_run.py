#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs one command and checks its exit status and output, all of them (CTest's own
PASS_REGULAR_EXPRESSION ignores the exit status, and WILL_FAIL accepts any failure).

    expect_run.py --exit N [--stderr REGEX] [--stdout REGEX] [--stdout-file FILE] -- CMD ARGS...

--stderr / --stdout: a Python regex searched in that stream (repeatable: all must match).
--stdout-file: stdout must equal FILE's bytes exactly.
Exit 0 when everything holds; 1 with what differed otherwise."""
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exit", type=int, required=True)
    ap.add_argument("--stderr", action="append", default=[])
    ap.add_argument("--stdout", action="append", default=[])
    ap.add_argument("--stdout-file")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command after --")
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
        print(f"FAIL: {' '.join(cmd)}: hung: no exit within {a.timeout:.0f} s")
        return 1
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    problems = []
    if p.returncode != a.exit:
        problems.append(f"exit {p.returncode}, expected {a.exit}")
    for rx in a.stderr:
        if not re.search(rx, err):
            problems.append(f"stderr does not match /{rx}/")
    for rx in a.stdout:
        if not re.search(rx, out):
            problems.append(f"stdout does not match /{rx}/")
    if a.stdout_file:
        with open(a.stdout_file, "rb") as f:
            want = f.read()
        if p.stdout != want:
            got, exp = p.stdout.split(b"\n"), want.split(b"\n")
            first = next((i for i, (x, y) in enumerate(zip(got, exp)) if x != y),
                         min(len(got), len(exp)))
            problems.append(f"stdout differs from {a.stdout_file} at line {first + 1}: got "
                            f"{got[first] if first < len(got) else b'<end>'!r}, expected "
                            f"{exp[first] if first < len(exp) else b'<end>'!r}")
    if problems:
        print("FAIL: " + " ".join(cmd))
        for pr in problems:
            print("  " + pr)
        print("--- stderr:\n" + err[-2000:] + "--- stdout (head):\n" + out[:1000])
        return 1
    print("ok: " + " ".join(cmd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
