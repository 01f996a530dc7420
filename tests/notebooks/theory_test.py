#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The notebooks' ring-balance theory (notebooks/chsim_results/theory.py) against chsim's own:
the theory.* rows `chsim run` writes for equal-weight rings (1/sqrt(v), 1 + sqrt(2 ln n / v),
the Wilson-Hilferty 99% band of one node) and the analytic points per node `chsim tune
--json` starts its search from (the least v whose Wilson-Hilferty quantile of the hottest of
n nodes meets the target). Two implementations of one model, each checked by the other.

Usage: theory_test.py CHSIM
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "notebooks"))
from chsim_results import theory  # noqa: E402

SCENARIO = {"schema_version": 1, "name": "theory", "seed": 1, "trials": 1,
            "nodes": {"count": [2, 10, 300]},
            "algorithms": [{"algorithm": "ring", "points_per_node": [1, 7, 40, 160, 1000]}],
            "workload": {"type": "uniform", "keys": 0}, "metrics": ["balance"],
            "output": {"per_node": "none"}}
ROWS = {"theory.cv": lambda n, v: theory.theory_cv(v),
        "theory.max_over_mean": theory.theory_max_over_mean,
        "theory.wh99_low": lambda n, v: theory.wh_quantile(v, 0.005),
        "theory.wh99_high": lambda n, v: theory.wh_quantile(v, 0.995)}


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def close(got, want, rel, what):
    if abs(got - want) > rel * max(abs(want), 1e-12):
        fail(f"{what}: chsim {got!r}, notebooks {want!r}")


def main(chsim):
    with tempfile.TemporaryDirectory() as d:
        scen, out = os.path.join(d, "theory.json"), os.path.join(d, "out.json")
        with open(scen, "w") as f:
            json.dump(SCENARIO, f)
        subprocess.run([chsim, "run", scen, "-o", out, "-q", "--threads", "1"], check=True)
        with open(out) as f:
            doc = json.load(f)
        checked = 0
        for r in doc["summary"]:
            if r["metric"] in ROWS and r["step"] == 0:
                v = r["params"]["points_per_node"]
                close(r["mean"], ROWS[r["metric"]](r["n"], v), 1e-9,
                      f"{r['metric']} at n = {r['n']}, v = {v}")
                checked += 1
        if checked != len(ROWS) * 3 * 5:
            fail(f"{checked} theory rows; the scenario has {len(ROWS) * 15}")
        answers = 0
        for n, target, conf in ((10, 1.5, 0.9), (50, 1.3, 0.95), (400, 1.2, 0.99)):
            js = os.path.join(d, f"tune-{n}.json")
            subprocess.run([chsim, "tune", "--nodes", str(n), "--max-over-mean", str(target),
                            "--confidence", str(conf), "--draws", "50", "--time-budget", "1",
                            "--quiet", "--json", js], check=True, stdout=subprocess.DEVNULL)
            with open(js) as f:
                got = json.load(f)["answer"]["analytic_points"]
            close(got, theory.points_for_target(n, target, conf), 1e-3,
                  f"analytic points per node for n = {n}, max/mean <= {target} at {conf:.0%}")
            answers += 1
    print(f"PASS: {checked} theory rows and {answers} analytic tune answers agree")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
