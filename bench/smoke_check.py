#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""CTest smoke run of one benchmark program: every benchmark once (--chsim_smoke),
JSON written to a temp file and parsed; fails on an error, a missing rate or an
empty run.  Usage: smoke_check.py BINARY [EXTRA_ARGS...]"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        cmd = [binary, "--chsim_smoke", "--benchmark_format=console",
               "--benchmark_out_format=json", "--benchmark_out=" + out] + sys.argv[2:]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            sys.stdout.write(proc.stdout)
            sys.exit(f"smoke: {binary} exited {proc.returncode}")
        with open(out) as f:
            doc = json.load(f)
    rows = doc.get("benchmarks", [])
    if not rows:
        sys.exit(f"smoke: {binary} ran no benchmark")
    bad = []
    for r in rows:
        if r.get("error_occurred"):
            bad.append(f"{r['name']}: {r.get('error_message')}")
        elif not r.get("items_per_second", 0) > 0:
            bad.append(f"{r['name']}: no items_per_second")
        elif "/" not in r["name"] or ":" not in r["name"]:
            bad.append(f"{r['name']}: not a 'group/param:value' name")
    if bad:
        sys.exit("smoke: " + "\n".join(bad))
    print(f"smoke: {len(rows)} benchmarks of {os.path.basename(binary)} ran, JSON parsed")


if __name__ == "__main__":
    main()
