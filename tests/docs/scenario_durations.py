#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every committed scenario says how long it takes (label docs).

README.md promises that each scenario's `description` says how long it takes, so that a user
picks scenarios for `scripts/run-suite SCENARIOS=...` knowing the cost. Every scenarios/*.json
and scenarios/*/*.json but the schema must have, in its description, a duration: a number then
s, seconds, min or minutes ("about 30 s", "About 210 s of CPU"). A file without one is named.

Usage: scenario_durations.py ROOT
"""
import glob
import json
import os
import re
import sys

DURATION = re.compile(r"\b\d[\d,.]*\s*(?:s|seconds|min|minutes)\b")


def main():
    root = sys.argv[1]
    paths = sorted(glob.glob(os.path.join(root, "scenarios", "*.json")) +
                   glob.glob(os.path.join(root, "scenarios", "*", "*.json")))
    bad = []
    for p in paths:
        if os.path.basename(p) == "schema.json":
            continue
        with open(p, encoding="utf-8") as f:
            description = json.load(f).get("description", "")
        if not DURATION.search(description):
            bad.append(os.path.relpath(p, root))
    for b in bad:
        print(f"{b}: its description does not say how long the scenario takes "
              "(e.g. \"About 30 s on 2 cores.\"); README.md promises it")
    if len(paths) < 2:
        print("found no scenarios under", os.path.join(root, "scenarios"))
        return 1
    print(f"{len(paths) - 1 - len(bad)} of {len(paths) - 1} scenarios say how long they take")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
