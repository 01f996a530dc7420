#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The report's proxies answer and the scenario behind it.
Usage: proxies_answer_test.py CHSIM SOURCE_DIR

- scenarios/proxies.json maps with every profile that tests/compat/generate-proxies proves
  against a real program (golden-proxies/variants.tsv), so a new proxy profile cannot be left
  out of the suite.
- Run with 2 trials, its answer (report.proxy_profiles) gives each profile's structural
  max/mean at step 0 for every n, equal to the result file's summary, with the theory row
  beside it where the summary has one.
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

CHSIM, SOURCE = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SOURCE, "notebooks"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import chsim_results as cr  # noqa: E402
from chsim_results import report  # noqa: E402


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    with open(os.path.join(SOURCE, "scenarios", "proxies.json")) as f:
        scenario = json.load(f)
    listed = {p for a in scenario["algorithms"] if a["algorithm"] == "ketama"
              for p in (a["profile"] if isinstance(a["profile"], list) else [a["profile"]])}
    proven = set()
    for line in open(os.path.join(SOURCE, "tests", "compat", "golden-proxies", "variants.tsv")):
        args = shlex.split(line.split("\t", 1)[1])
        proven.add(args[args.index("--profile") + 1])
    if proven - listed:
        fail(f"scenarios/proxies.json leaves out the proven proxy profiles {sorted(proven - listed)}")
    with tempfile.TemporaryDirectory(prefix="chsim_proxies_") as tmp:
        path = os.path.join(tmp, "proxies.json")
        with open(path, "w") as f:
            # 2 trials over 20,000 keys: the answer is checked against this run's own rows,
            # at any size, and a smaller run keeps the sanitized runs short. Under a
            # sanitizer (CHSIM_TEST_SANITIZED, tests/notebooks/tests.cmake), 2,000 keys: every
            # profile still maps keys at n = 10 and 100 through every step, on 2 threads
            # (pymemcache's rendezvous hashes each key against every node, byte by byte under
            # TSan, and took most of the run).
            keys = 2000 if os.environ.get("CHSIM_TEST_SANITIZED") == "1" else 20000
            small = dict(scenario, trials=2, workload=dict(scenario["workload"], keys=keys))
            json.dump({k: v for k, v in small.items() if k != "$schema"}, f)
        out = os.path.join(tmp, "out", "proxies.json")
        subprocess.run([CHSIM, "run", path, "-o", out, "-q", "--threads", "2"], check=True,
                       timeout=600)
        R = cr.load_all(out)
    a = report.proxy_profiles(R)
    if a.missing:
        fail(f"the answer is missing over the proxies run: {a.text}")
    S = R["summary"]
    for p in listed:
        for n in sorted(S["n"].unique()):
            rows = S[(S["params.profile"] == p) & (S["n"] == n) & (S["step"] == 0)]
            exact = rows[rows["metric"] == "structural.max_over_mean"]["mean"]
            # No ring (pymemcache): the sampled max/mean instead.
            mom = (exact if len(exact) else
                   rows[rows["metric"] == "sampled.max_over_mean"]["mean"]).iloc[0]
            want = f"{p} n = {n} {mom:.3f}" if n == min(S["n"]) else f"n = {n} {mom:.3f}"
            if want not in a.text:
                fail(f"the answer lacks {want!r}: {a.text}")
            th = rows[rows["metric"] == "theory.max_over_mean"]["mean"]
            cell = a.table.loc[p, f"n = {n}"]
            if len(th) and f"(theory {th.iloc[0]:.3f})" not in cell:
                fail(f"{p} at n = {n}: the theory {th.iloc[0]:.3f} is not beside it: {cell}")
    if not re.search(r"mean of 2 name draws", a.text):
        fail(f"the answer does not say how many draws: {a.text}")
    print("ok")


if __name__ == "__main__":
    main()
