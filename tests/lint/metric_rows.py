#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every catalog row of a metric group is written by its file (label lint).

A group's file (sim/run/group_*.cc) holds its catalog rows (`{"name", "unit", "group", bool,
"meaning"}`) and the hooks that write them, each through `Metric("name")` (the group's
`MetricIn(kRows, "name")`, checked at compile time). A metric whose row is there but that no
hook writes would be documented in results/README.md and `chsim list` and never appear in a
result, with every test passing. So each row's name must appear in a `Metric("...")` or
`MetricIn(..., "...")` of the same file; a row that does not is named with its file and line.

Usage: metric_rows.py ROOT
"""
import glob
import os
import re
import sys

ROW = re.compile(r'\{\s*"([\w.]+)",\s*"[^"]*",\s*"[^"]*",\s*(?:true|false)\s*,', re.S)
WRITTEN = re.compile(r'\bMetric(?:In)?\((?:\s*\w+\s*,)?\s*"([\w.]+)"\s*\)')


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    files = sorted(glob.glob(os.path.join(root, "sim", "run", "group_*.cc")))
    if not files:
        print("sim/run/group_*.cc: no group files; this check has nothing to hold")
        return 1
    errors = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        written = set(WRITTEN.findall(text))
        rel = os.path.relpath(path, root)
        for m in ROW.finditer(text):
            if m.group(1) not in written:
                line = text.count("\n", 0, m.start()) + 1
                print(f"{rel}:{line}: metric {m.group(1)} has a catalog row that no hook of this "
                      f"file writes; add x.emit(Metric(\"{m.group(1)}\"), value) where it is "
                      "measured, or drop the row")
                errors += 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
