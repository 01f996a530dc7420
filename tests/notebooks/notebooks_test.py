#!/usr/bin/python3
"""End-to-end notebook test: the freshly built chsim runs the short scenarios beside this file,
then scripts/make-report (quick tune runs + every notebook, headless, Debian's python3 kernel)
turns them into figures and the report. Fails on any cell error, a missing or stale figure,
a report without its headline, or a loader whose theory disagrees with chsim's own numbers.

Usage: notebooks_test.py --chsim PATH --source DIR --work DIR
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

FIGURES = [
    "balance_max_over_mean_vs_points", "balance_cv_vs_points", "balance_structural_vs_sampled",
    "balance_node_loads", "balance_naming_vs_hasher", "balance_by_algorithm", "balance_zipf",
    "balance_weighted",
    "remap_moved_vs_minimal", "remap_excess", "remap_survivors", "remap_timeline",
    "remap_transitions",
    "throughput_ns_per_lookup", "throughput_build_memory",
    "tuning_points_vs_n", "tuning_default_and_cost", "tuning_estimates",
]


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chsim", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    src, work = Path(a.source), Path(a.work)
    here = src / "tests" / "notebooks"
    shutil.rmtree(work, ignore_errors=True)
    results = work / "results"
    results.mkdir(parents=True)
    started = time.time()

    # 1. Fresh result files from the chsim under test.
    for scen in sorted(here.glob("smoke-*.json")):
        out = results / scen.name
        p = subprocess.run([a.chsim, "run", str(scen), "-o", str(out), "--threads", "2", "-q"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0 or not out.exists():
            fail(f"chsim run {scen.name}: exit {p.returncode}\n{p.stdout[-2000:]}")
    print(f"chsim run: {len(list(results.glob('*.json')))} result files in {time.time() - started:.1f} s")

    # 2. The report script: quick tune runs and every notebook.
    env = dict(os.environ)
    for k in [k for k in env if k.startswith("CHSIM_")]:
        del env[k]  # the notebooks must find everything through --results
    t0 = time.time()
    p = subprocess.run([str(src / "scripts" / "make-report"), "--results", str(results),
                        "--chsim", a.chsim, "--quick"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    print(p.stdout[-3000:])
    if p.returncode != 0:
        fail(f"scripts/make-report exited {p.returncode}")
    print(f"make-report: {time.time() - t0:.1f} s")

    # 3. Every figure, fresh, non-trivial.
    figs = results / "figures"
    for name in FIGURES:
        f = figs / f"{name}.png"
        if not f.exists():
            fail(f"figure {f} missing")
        if f.stat().st_mtime < started - 1:
            fail(f"figure {f} is older than this test run")
        w, h = png_size(f)
        if w < 600 or h < 300 or f.stat().st_size < 15000:
            fail(f"figure {f}: {w}x{h} px, {f.stat().st_size} bytes: too small to be a real plot")
    print(f"figures: {len(FIGURES)} present and fresh")

    # 4. The report and the executed notebooks.
    report = results / "report.html"
    if not report.exists():
        fail("results/report.html missing")
    text = report.read_text(encoding="utf-8")
    for needle in ["At n = ", "over the mean", "bring it to", "Remapping", "Provenance"]:
        if needle not in text:
            fail(f"report.html lacks '{needle}'")
    for nb in ["balance", "remapping", "throughput", "tuning"]:
        h = results / "notebooks" / f"{nb}.html"
        if not h.exists():
            fail(f"{h} missing")
        if "Traceback (most recent call last)" in h.read_text(encoding="utf-8"):
            fail(f"{h} shows a traceback")

    # 5. The loader's theory equals chsim's (two implementations of DESIGN.md section 3).
    sys.path.insert(0, str(src / "notebooks"))
    import chsim_results as cr
    for tf in sorted((results / "tune").glob("*.json")):
        t = cr.load(tf)
        req, ans = t.doc["request"], t.doc["answer"]
        mine = cr.points_for_target(req["nodes"], req["max_over_mean"], req["confidence"])
        theirs = ans["analytic_points"]
        if abs(mine - theirs) > 0.01 * theirs:
            fail(f"{tf.name}: loader's analytic points {mine:.1f} vs chsim tune's {theirs:.1f}")
    rf = cr.load(results / "smoke-balance.json")
    th = rf.summary[rf.summary["metric"].isin(["theory.wh99_low", "theory.wh99_high", "theory.cv"])]
    if th.empty:
        fail("smoke-balance.json has no theory rows")
    for _, r in th.iterrows():
        v = float(r["params.points_per_node"])
        want = {"theory.wh99_low": cr.wh_quantile(v, 0.005), "theory.wh99_high": cr.wh_quantile(v, 0.995),
                "theory.cv": cr.theory_cv(v)}[r["metric"]]
        if abs(r["mean"] - want) > 1e-3 * want:
            fail(f"{r['metric']} at v={v}: chsim {r['mean']} vs loader {want}")
    raw = json.loads((results / "smoke-events.json").read_text())
    ev = cr.load(results / "smoke-events.json")
    for table in ("cases", "rows", "summary", "nodes", "transitions"):
        if len(getattr(ev, table)) != len(raw[table]):
            fail(f"{table}: loader has {len(getattr(ev, table))} rows, file {len(raw[table])}")
    print(f"PASS in {time.time() - started:.1f} s")


if __name__ == "__main__":
    main()
