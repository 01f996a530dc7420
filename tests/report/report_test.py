#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The report on result files nobody wrote by hand.

Step `run` (CTest report_run): draws --count seeded random scenarios (tests/report/
scenarios.py, over the algorithms of `chsim list --json`), keeps those scenarios/schema.json
and `chsim validate` accept, runs each with the chsim under test, plus the notebook smoke
scenarios (tests/notebooks/smoke-*.json: every figure has its data there) and a wide one
(every algorithm of the catalog at its defaults plus a sweep, 25 settings or more), runs the
largest sweep again as 3 shards and merges them, and writes synthetic files for what chsim
does not write yet or what needs another tool: a result file with an `algorithms` catalog and
resize-time rows, and bench/peers/run files with and without end-to-end rows.

Step `report` (CTest report_make): scripts/make-report --each over every result (one report
per file, two processes; python_api.ipynb, which reads no input, runs once per process and
the other reports get its copy), over the shards beside their merge, and over everything
together (with quick tune runs), three make-report runs at a time; fails on any exit status
but 0, any notebook error, any figure that failed, any figure skipped without saying what it
needs. Every report: its sections in order (what was run, headline answers, side by side,
figures, inputs); no side-by-side row whose metric cells are all n/a, one row per compared
setting. Then it checks figure data against the raw rows, computed here without the loader:
the theory band and the points of the hottest-node figure, the bars of moved vs minimal, the
headline table (max/mean, excess churn, ns per lookup, bytes per node, resize times, year
and removals from the catalog), the end-to-end bars, the tune answers drawn; that the shards
and their merge load as the whole run does; and over everything (the wide run among it): one
colour per setting and one hue per algorithm across every figure's sidecar and the table, no
text under 8 pt at the report's width, no figure taller than about two screens. Prints which
figures each kind of input drew.

Usage: report_test.py run|report --chsim PATH --source DIR --work DIR [--count N]
"""
import argparse
import concurrent.futures as cf
import copy
import functools
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from statistics import NormalDist, mean

HERE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=None)
def _parsed(path):
    return json.loads(Path(path).read_text())


def raw_doc(p):
    """The result file `p`, parsed once per run of this script (the checks only read it: a
    figure's points look up the same raw files hundreds of times)."""
    return _parsed(str(Path(p).resolve()))


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def sh(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kw)


# --- step 1: scenarios and runs ------------------------------------------------------------

def catalog_of(chsim):
    p = sh([chsim, "list", "--json"])
    if p.returncode != 0:
        fail(f"chsim list --json: exit {p.returncode}: {p.stdout[-500:]}")
    return json.loads(p.stdout)


def wide_scenario(catalog, extra=10):
    """Every algorithm of the catalog at its defaults, plus `extra` settings of the first one
    with a sweepable integer parameter: the report at 25 settings and more, with a small
    cache replay (its figures at that many settings)."""
    algs = [{"algorithm": a["name"]} for a in catalog["algorithms"]]
    for a in catalog["algorithms"]:
        p = next((p for p in a.get("parameters", []) if p.get("type") == "integer"
                  and p.get("sweepable") and isinstance(p.get("default"), int)
                  and p["default"] >= 8), None)
        if p:
            lo, hi = p.get("minimum", 1), p.get("maximum", 10**9)
            vals = sorted({max(lo, min(hi, p["default"] * (k + 2) // 4)) for k in range(extra + 3)}
                          - {p["default"]})[:extra]
            algs.append({"algorithm": a["name"], p["name"]: vals})
            break
    return {"schema_version": 1, "name": "wide", "seed": 99, "trials": 1,
            "nodes": {"count": [10, 100]}, "algorithms": algs,
            "workload": {"type": "uniform", "keys": 2000},
            "events": [{"op": "remove", "last": 1, "at": {"fraction": 0.4}},
                       {"op": "add", "count": 1, "at": {"fraction": 0.7}}],
            "on_unsupported": "rebuild", "metrics": ["balance", "remap", "throughput", "cache"],
            "throughput": {"keys": 1024, "min_time_ms": 1, "repetitions": 1},
            "cache": {"policy": "lru", "capacity": {"objects_fraction": 0.3}}}


def copies_scenario(catalog):
    """Two copies per key over a ring-like algorithm (the first of the catalog with
    points_per_node and a replica strategy) at three settings of its points, through a
    removal and an add: the replicas figures that need a points sweep are drawn whatever the
    random draws hold (each draw asks for replicas only sometimes)."""
    a = next(a for a in catalog["algorithms"] if a.get("replica_strategies")
             and any(p["name"] == "points_per_node" for p in a.get("parameters", [])))
    return {"schema_version": 1, "name": "copies", "seed": 7, "trials": 1,
            "nodes": {"count": [8, 16]},
            "algorithms": [{"algorithm": a["name"], "points_per_node": [4, 16, 64]}],
            "workload": {"type": "uniform", "keys": 2000},
            "events": [{"op": "remove", "last": 1}, {"op": "add", "count": 1}],
            "metrics": ["replicas"],
            "replication": {"factor": 2, "strategy": a["replica_strategies"][0],
                            "failure_sets": 200}}


def run_step(a, src, work):
    sys.path.insert(0, str(HERE))
    import jsonschema
    import scenarios as gen
    schema = json.loads((src / "scenarios/schema.json").read_text())
    catalog = catalog_of(a.chsim)
    shutil.rmtree(work, ignore_errors=True)
    (work / "scenarios").mkdir(parents=True)
    (work / "results").mkdir()
    t0 = time.time()
    accepted, refused, seed = [], [], 0
    while len(accepted) < a.count:
        seed += 1
        if seed > 20 * a.count:
            fail(f"only {len(accepted)} of {a.count} generated scenarios were valid")
        sc = gen.draw(seed, str(work / "scenarios"), catalog)
        jsonschema.validate(sc, schema)  # the generator must stay inside the schema
        path = work / "scenarios" / f"{sc['name']}.json"
        path.write_text(json.dumps(sc, indent=1) + "\n")
        v = sh([a.chsim, "validate", path])
        if v.returncode != 0:
            refused.append(f"{path.name}: validate: {v.stdout.strip().splitlines()[0]}")
            continue
        accepted.append(path)
    for smoke in sorted((src / "tests/notebooks").glob("smoke-*.json")):
        dest = work / "scenarios" / smoke.name
        shutil.copy(smoke, dest)
        accepted.append(dest)
    wide = work / "scenarios" / "wide.json"
    wide.write_text(json.dumps(wide_scenario(catalog), indent=1) + "\n")
    accepted.append(wide)
    copies = work / "scenarios" / "copies.json"
    copies.write_text(json.dumps(copies_scenario(catalog), indent=1) + "\n")
    accepted.append(copies)

    def run(path):
        out = work / "results" / path.name
        t = time.time()
        p = sh([a.chsim, "run", path, "-o", out, "--threads", "1", "-q"])
        return path, out, p, time.time() - t

    ran = []
    with cf.ThreadPoolExecutor(2) as ex:
        for path, out, p, dt in ex.map(run, accepted):
            if p.returncode == 2:  # refused at run time though validate passed: not ours
                refused.append(f"{path.name}: run: {p.stdout.strip().splitlines()[-1]}")
                continue
            if p.returncode != 0 or not out.exists():
                fail(f"chsim run {path.name}: exit {p.returncode}\n{p.stdout[-2000:]}")
            ran.append((path, out, dt))
    generated = [r for r in ran if r[0].name.startswith("gen-")]
    if len(generated) < min(30, a.count):
        fail(f"{len(generated)} generated scenarios ran; wanted {min(30, a.count)}")
    for r in refused:
        print(f"redrawn: {r}")
    print(f"chsim run: {len(ran)} scenarios ({len(generated)} generated) in "
          f"{time.time() - t0:.1f} s; slowest {max(r[2] for r in ran):.2f} s")
    describe_set([json.loads(p.read_text()) for p, _, _ in generated])

    # The largest generated sweep again, as 3 shards, and their merge.
    cases = {out: len(json.loads(out.read_text())["cases"]) for _, out, _ in generated}
    big = max(cases, key=lambda o: (cases[o], o.name))
    if cases[big] < 3:
        fail("no generated sweep has 3 cases to shard")
    shards = work / "shards"
    shards.mkdir()
    parts = []
    for i in range(3):
        part = shards / f"part{i}.json"
        p = sh([a.chsim, "run", work / "scenarios" / big.name, "--shard", f"{i}/3", "-o", part,
                "--threads", "1", "-q"])
        if p.returncode != 0:
            fail(f"shard {i}/3 of {big.name}: exit {p.returncode}\n{p.stdout[-1000:]}")
        parts.append(part)
    p = sh([a.chsim, "merge", *parts, "-o", shards / "merged.json"])
    if p.returncode != 0:
        fail(f"chsim merge: exit {p.returncode}\n{p.stdout[-1000:]}")
    (work / "whole.txt").write_text(str(big))

    synthetic(work, src)
    print(f"run step done in {time.time() - t0:.1f} s")


def describe_set(docs):
    """One line on what the generated scenarios cover."""
    ns = sorted({n for d in docs if "count" in d["nodes"] for n in (d["nodes"]["count"] if isinstance(
        d["nodes"]["count"], list) else [d["nodes"]["count"]])})
    algs = sorted({a["algorithm"] for d in docs for a in d["algorithms"]})
    ops = sorted({e["op"] for d in docs for e in d.get("events", [])})
    wl = sorted({d["workload"]["type"] for d in docs})
    print(f"generated: n {ns[0]}..{ns[-1]}; algorithms {', '.join(algs)}; workloads "
          f"{', '.join(wl)}; events {', '.join(ops)}; trials "
          f"{sorted({d['trials'] for d in docs})}; metric sets "
          f"{len({tuple(sorted(d['metrics'])) for d in docs})}; weighted "
          f"{sum('weights' in d['nodes'] for d in docs)}; node files "
          f"{sum('file' in d['nodes'] for d in docs)}")


CATALOG = [  # the shape of chsim's `algorithms` block (results/README.md)
    {"name": "ring", "summary": "Ketama ring", "paper": "Karger et al.", "year": 1997,
     "capabilities": {"weights": True, "removal": "any", "incremental": False},
     "parameters": [{"name": "points_per_node", "default": 160}, {"name": "hasher"}]},
    {"name": "jump", "summary": "jump consistent hash", "paper": "Lamping & Veach", "year": 2014,
     "capabilities": {"weights": False, "removal": "last_added", "incremental": True},
     "parameters": []},
]


def synthetic(work, src):
    """Files chsim does not write (yet) or another tool writes: a catalog and resize-time rows;
    peers files; a chsim_algorithm_benchmark JSON file."""
    extra = work / "extra"
    extra.mkdir()
    smoke = json.loads((work / "results" / "smoke-zipf.json").read_text())
    doc = copy.deepcopy(smoke)
    doc["scenario"]["name"] = "synthetic-catalog"
    doc["algorithms"] = CATALOG + [{"name": "rendezvous", "year": 1998,
                                    "capabilities": {"removal": "any", "incremental": True}}]
    add = []
    for c in doc["cases"]:
        for metric, base in (("throughput.ns_per_add", 1000.0), ("throughput.ns_per_remove", 700.0),
                             ("throughput.ns_per_lookup_removed_10pct", 9.0)):
            row = {k: c[k] for k in ("case_id", "case_index", "algorithm", "params", "n", "axes")}
            value = base + c["case_index"] + c["n"] / 10
            add.append(dict(row, trial=0, step=0, event="initial", metric=metric, value=value,
                            unit="ns", deterministic=False))
            doc["summary"].append(dict(row, step=0, event="initial", metric=metric, trials=1,
                                       mean=value, stddev=None, ci95_low=None, ci95_high=None,
                                       unit="ns", deterministic=False))
    doc["rows"] += add
    (extra / "synthetic-catalog.json").write_text(json.dumps(doc))
    peers = {"schema": "chsim-peers/1", "command": "bench/peers/run (synthetic)",
             "started": "2026-12-01T00:00:00+00:00", "machine": {"cpu": "test", "nproc": 2},
             "rows": [], "agreement": [
                 {"peer": "libmemcached", "variant": "weighted", "profile": "libmemcached",
                  "servers": 100, "agree": True}],
             "comparisons": [], "targets": []}
    for n in (100, 1000):
        for op, pns, cns in (("lookup", 250.0, 25.0), ("build", 3e6, 1e5)):
            peers["rows"] += [{"peer": "libmemcached", "variant": "weighted", "servers": n,
                               "op": op, "ns": pns, "samples": [pns], "status": "ok"},
                              {"peer": "chsim", "variant": "libmemcached", "servers": n,
                               "op": op, "ns": cns, "samples": [cns], "status": "ok"}]
            peers["comparisons"].append(
                {"servers": n, "peer": "libmemcached", "variant": "weighted", "op": op,
                 "chsim_op": op, "chsim_profile": "libmemcached", "peer_ns": pns,
                 "chsim_ns": cns, "speedup": pns / cns, "peer_status": "ok"})
    (extra / "peers-old.json").write_text(json.dumps(peers))
    e2e = copy.deepcopy(peers)
    e2e["started"] = "2026-12-02T00:00:00+00:00"
    e2e["rows"] += [
        {"op": "end_to_end", "peer": "chsim", "variant": "locate libmemcached", "servers": 100,
         "keys": 1000000, "median_s": 0.05, "runs_s": [0.049, 0.05, 0.052]},
        {"op": "end_to_end", "peer": "libmemcached", "variant": "weighted", "servers": 100,
         "keys": 1000000, "median_s": 0.24, "runs_s": [0.23, 0.24, 0.25]}]
    e2e["comparisons"].append({"op": "end_to_end", "servers": 100, "peer": "libmemcached",
                               "variant": "weighted", "peer_s": 0.24, "chsim_s": 0.05,
                               "ratio": 4.8})
    (extra / "peers.json").write_text(json.dumps(e2e))
    # chsim_algorithm_benchmark's Google Benchmark JSON: lookups after removals.
    bench = {"context": {"date": "2026-12-01"}, "benchmarks": []}
    for name, removed in (("anchor", (0, 10, 50)), ("jump", (0,))):
        for n in (1000, 10000):
            for r in removed:
                bench["benchmarks"].append(
                    {"name": f"algo/lookup/{name}/removed:{r}/mode:tput/nodes:{n}",
                     "run_type": "iteration", "items_per_second": BENCH_IPS(name, n, r),
                     "bytes_per_node": 24.0 * 100 / (100 - r)})
    (extra / "algorithm_benchmark.json").write_text(json.dumps(bench))


def BENCH_IPS(name, n, removed):  # noqa: N802 - the synthetic benchmark's lookups per second
    return 1e9 / ((10.0 if name == "anchor" else 40.0) + n / 1000 + removed / 10)


# --- step 2: reports and checks ------------------------------------------------------------

def make_report(src, args, label):
    t = time.time()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHSIM_")}
    p = sh([src / "scripts/make-report", *args], env=env)
    dt = time.time() - t
    if p.returncode != 0:
        fail(f"make-report ({label}) exited {p.returncode}:\n{p.stdout[-4000:]}")
    print(f"make-report {label}: {dt:.1f} s")
    return p.stdout


def check_report_dir(d, expect_inputs):
    """The report and every notebook of `d` ran; every figure drawn or saying what it needs."""
    rep = d / "report.html"
    if not rep.exists():
        fail(f"{rep} missing")
    text = rep.read_text(encoding="utf-8")
    order = ["What was run.", 'id="Headline-answers"', 'id="Algorithms-side-by-side"',
             'id="Figures"', 'id="Inputs-and-provenance"', "<strong>Every figure</strong>"]
    at = [text.find(needle) for needle in order]
    if -1 in at or at != sorted(at):
        fail(f"{rep}: sections {list(zip(order, at))}; wanted each once, in this order")
    for nb in ("balance", "remapping", "throughput", "tuning", "cache", "replicas"):
        h = d / "notebooks" / f"{nb}.html"
        if not h.exists():
            fail(f"{h} missing")
        if "Traceback (most recent call last)" in h.read_text(encoding="utf-8"):
            fail(f"{h} shows a traceback")
    figs = []
    for idx in sorted((d / "figures").glob("*.figures.json")):
        figs += json.loads(idx.read_text())["figures"]
    if len(figs) < 20:
        fail(f"{d}: {len(figs)} figure entries; expected every notebook's figures")
    for e in figs:
        if e["status"] == "error":
            fail(f"{d}: figure {e['name']} failed: {e['reason']}")
        if e["status"] == "skipped" and not e["reason"].startswith("needs "):
            fail(f"{d}: figure {e['name']} skipped without saying what it needs: {e['reason']}")
        if e["status"] == "drawn":
            for f in e.get("files", []):
                png = d / "figures" / f
                if not png.exists() or png.stat().st_size < 2000:
                    fail(f"{png}: missing or too small")
                if not png.with_suffix(".json").exists():
                    fail(f"{png}: no JSON sidecar")
                over = json.loads(png.with_suffix(".json").read_text())["overlapping_texts"]
                if over:  # a legend under a short figure once covered its footer
                    fail(f"{png}: texts drawn over each other: {over}")
    rj = json.loads((d / "report.json").read_text())
    for row in rj["headline_table"]:
        metrics = [v for k, v in row.items() if k not in ("algorithm", "year", "supported removals")]
        if metrics and all(v == "n/a" for v in metrics):
            fail(f"{d}: side-by-side row {row['algorithm']} has only n/a cells: {row}")
    listed = {os.path.basename(i["file"]) for i in rj["inputs"]}
    missing = {os.path.basename(str(x)) for x in expect_inputs} - listed
    if missing:
        fail(f"{d}/report.json does not list its inputs {sorted(missing)}")
    return figs, rj


def check_cache(path, figs, rj):
    """A file with cache rows after an event draws the cache figures and has the side-by-side
    column "extra misses per event" (the windows figure too when it kept cache_windows); a
    file without cache rows has neither."""
    doc = json.loads(path.read_text())
    after = any(r["metric"] == "cache.extra_misses" and r["step"] >= 1 and r["mean"] is not None
                for r in doc["summary"])
    drawn = {e["name"] for e in figs if e["status"] == "drawn"}
    cols = set().union(*[set(r) for r in rj["headline_table"]]) if rj["headline_table"] else set()
    want = {"cache_cost_table"} if after else set()
    if after and doc.get("cache_windows"):
        want.add("cache_miss_ratio_windows")
    got = drawn & {"cache_cost_table", "cache_miss_ratio_windows"}
    if after and got != want or not after and "cache_cost_table" in got:
        fail(f"{path.name}: cache figures drawn {sorted(got)}; wanted {sorted(want)}")
    if after != ("extra misses per event" in cols) and rj["headline_table"]:
        fail(f"{path.name}: side-by-side columns {sorted(cols)}; 'extra misses per event' "
             f"{'missing though' if after else 'present though no'} cache rows after an event")


def raw_summary(paths):
    """(run name, case_id, step, metric) -> (mean, trials) from the files, no loader; each case
    taken once per run (shards beside their merge)."""
    out, seen = {}, set()
    for p in paths:
        doc = raw_doc(p)
        if doc.get("kind") != "chsim-results":
            continue
        name = doc["scenario"]["name"]
        for s in doc["summary"]:
            key = (name, s["case_id"], s["step"], s["metric"])
            if key not in seen:
                seen.add(key)
                out[key] = (s["mean"], s["trials"])
    return out


def raw_mean_over_trials(paths, run, case_id, step, metric):
    vals = []
    for p in paths:
        doc = raw_doc(p)
        if doc.get("kind") != "chsim-results" or doc["scenario"]["name"] != run:
            continue
        vals = [r["value"] for r in doc["rows"] if r["case_id"] == case_id and r["step"] == step
                and r["metric"] == metric and r["value"] is not None]
        if vals:
            break
    return mean(vals) if vals else None


def wh_max_quantile(n, v, q):
    """Independent Wilson-Hilferty: the q-quantile of the largest of n Gamma(v,1/v) shares."""
    a = 1 / (9 * v)
    z = NormalDist().inv_cdf(q ** (1 / n))
    return max(0.0, 1 - a + z * math.sqrt(a)) ** 3


def close(x, y, rel=1e-6, what=""):
    if x is None or y is None or abs(x - y) > rel * max(abs(x), abs(y), 1e-12):
        fail(f"{what}: {x} vs {y}")


def check_figure_data(d, inputs):
    """Figures and headline of report dir `d` against the raw files `inputs`."""
    side = lambda name: json.loads((d / "figures" / f"{name}.json").read_text())
    checked = []
    # Hottest node vs v: theory band at every grid point, points from the raw rows.
    s = side("balance_max_over_mean_vs_points")
    for ax in s["axes"]:
        m = re.match(r"n = (\d+) nodes", ax["title"])
        if not m:
            continue
        n = int(m.group(1))
        band = next(b for b in ax["bands"] if b["label"] == "theory 99% band")
        for x, lo, hi in list(zip(band["x"], band["low"], band["high"]))[::17]:
            close(lo, max((wh_max_quantile(n, x, 0.005) - 1) * 100, 1e-3), 1e-6, f"band low n={n} v={x}")
            close(hi, (wh_max_quantile(n, x, 0.995) - 1) * 100, 1e-6, f"band high n={n} v={x}")
        med = next(l for l in ax["lines"] if l["label"] == "theory (median)")
        close(med["y"][0], (wh_max_quantile(n, med["x"][0], 0.5) - 1) * 100, 1e-6, "median")
    pts = s["data"]["points"]
    for p in pts[:: max(1, len(pts) // 12)]:
        want = raw_mean_over_trials(inputs, p["run"], p["case_id"], 0, "structural.max_over_mean")
        close(p["mean"], want, 1e-9, f"hottest-node point {p['case_id']}")
    drawn = {round(y, 9) for ax in s["axes"] for e in ax["errorbars"] for y in e["y"] if y is not None}
    for p in pts:
        if round(max((p["mean"] - 1) * 100, 1e-3), 9) not in drawn:
            fail(f"hottest-node figure does not draw {p['case_id']} at {(p['mean'] - 1) * 100}")
    checked.append(f"hottest node vs v: band at {len(s['axes'])} panels, {len(pts)} points")
    # Moved vs minimal: every bar is the raw mean of remap.moved of its setting, n and step.
    s = side("remap_moved_vs_minimal")
    run = s["data"]["run"]
    raw = raw_summary(inputs)
    docs = [raw_doc(p) for p in inputs]
    docs = [doc for doc in docs if doc.get("kind") == "chsim-results"]
    label_of = {k: lab for k, (_, lab) in settings(docs).items()}
    labels = s["data"]["labels"]
    bars = 0
    for ax in s["axes"]:
        m = re.match(r"(\d+): ", ax["title"])
        if not m or not ax["bars"]:
            continue
        step = int(m.group(1))
        for container in ax["bars"]:
            n = int(re.fullmatch(r"moved, n = ([\d,]+)", container["label"]).group(1).replace(",", ""))
            for lab, width in zip(labels, container["width"]):
                ids = [k for k in raw if k[0] == run and k[2] == step and k[3] == "remap.moved"
                       and label_of.get((run, k[1])) == lab and re.search(rf"/n={n}(/|$)", k[1])]
                if ids and width is not None:
                    close(width, raw[ids[0]][0] * 100, 1e-9, f"moved bar {lab} n={n} step {step}")
                    bars += 1
    if bars == 0:
        fail("moved vs minimal: no bar matched the raw rows")
    checked.append(f"moved vs minimal: {bars} bars")
    # The headline table against the raw rows.
    rj = json.loads((d / "report.json").read_text())
    vals = rj["headline_meta"]["values"]
    n_checked = 0
    for lab, cols in vals.items():
        for col, v in cols.items():
            if col in EVENT_METRICS.values():
                steps = [m_ for k, (m_, _) in raw.items() if k[0] == v["run"]
                         and k[1] == v["case_id"] and k[3] == v["metric"] and k[2] >= 1
                         and m_ is not None]
                if len(steps) != v["events"]:
                    fail(f"{col} {lab}: {v['events']} events averaged, {len(steps)} in the file")
                close(v["value"], mean(steps), 1e-9, f"{col} {lab}")
            else:
                want = raw_mean_over_trials(inputs, v["run"], v["case_id"], 0, v["metric"])
                close(v["value"], want, 1e-9, f"headline {col} {lab}")
            n_checked += 1
    # Year and removals from the first catalog entry of each algorithm among the inputs.
    catalog = {}
    for p in inputs:
        for entry in raw_doc(p).get("algorithms", []) or []:
            if isinstance(entry, dict):
                catalog.setdefault(entry.get("name"), entry)
    words = {"any": "any node", "last_added": "last added only"}
    n_cat = 0
    for r in rj["headline_table"]:
        alg = r["algorithm"].split("(")[0].split(" [")[0]
        entry = catalog.get(alg)
        if entry is None:
            continue
        year = "–" if entry.get("year") in (None, 0) else str(entry["year"])
        caps = entry.get("capabilities", {})
        removals = words[caps["removal"]] + (" (rebuilds)" if caps.get("incremental") is False else "")
        if (r["year"], r["supported removals"]) != (year, removals):
            fail(f"headline {r['algorithm']}: year {r['year']}, removals {r['supported removals']}; "
                 f"its catalog entry says {year}, {removals}")
        n_cat += 1
    if n_cat < 2:
        fail(f"headline: {n_cat} rows matched a catalog entry; the synthetic file has three")
    if not any("add" in r["ns per resize"] for r in rj["headline_table"]):
        fail("headline: no resize time although the synthetic file has throughput.ns_per_add")
    checked.append(f"headline: {n_checked} numbers, {n_cat} catalog years and removals, resize times")
    # End to end: bars are the medians of the synthetic peers file.
    s = side("throughput_end_to_end")
    heights = sorted(h for ax in s["axes"] for b in ax["bars"] for h in b["height"])
    if heights != [0.05, 0.24]:
        fail(f"end-to-end bars {heights}; the peers file says 0.05 and 0.24 s")
    if not any("4.80x" in t for ax in s["axes"] for t in ax["texts"]):
        fail("end-to-end figure does not state the ratio 4.80x")
    checked.append("end to end: bars and ratio")
    # Resize: drawn from the synthetic rows; lookups after removals go to the other panel.
    for name, metric in (("throughput_resize", "ns per add"), ("throughput_more", "ns per lookup removed 10pct")):
        s = side(name)
        if not any(metric in ax["title"] for ax in s["axes"]):
            fail(f"{name} has no panel for {metric}: {[ax['title'] for ax in s['axes']]}")
    # Lookups after removals: the benchmark file's rows, ns = 1e9 / items_per_second.
    rows = side("throughput_lookup_removed")["data"]["rows"]
    got = {(r["algorithm"], r["nodes"], round(r["removed"] * 100)): r["ns_per_lookup"] for r in rows}
    want = {(a, n, r): 1e9 / BENCH_IPS(a, n, r) for a, rs in (("anchor", (0, 10, 50)), ("jump", (0,)))
            for n in (1000, 10000) for r in rs}
    if got.keys() != want.keys() or any(abs(got[k] - want[k]) > 1e-9 * want[k] for k in want):
        fail(f"throughput_lookup_removed draws {got}; the benchmark file says {want}")
    checked.append("lookups after removals: the benchmark rows")
    # Tune answers drawn where the tune files say.
    s = side("tuning_points_vs_n")
    answers = {(a["n"], a["target"]): a for a in s["data"]["answers"]}
    for tf in sorted((d / "tune").glob("*.json")):
        t = json.loads(tf.read_text())
        a = answers.get((t["request"]["nodes"], t["request"]["max_over_mean"]))
        if a is None or a["value"] != t["answer"]["value"]:
            fail(f"tuning figure: {tf.name} answer {t['answer']['value']} drawn as {a}")
        est = [e for e in t["estimates"] if e["method"] == "exact" and
               e["points_per_node"] == t["answer"]["value"]]
        if t["answer"]["met"] and (not est or est[0]["probability"] < t["request"]["confidence"]):
            fail(f"{tf.name}: the answer's own exact check misses the confidence: {est}")
    checked.append(f"tuning: {len(list((d / 'tune').glob('*.json')))} answers")
    # Two implementations of docs/design.md#balance-theory agree: the loader's theory and chsim's rows.
    sys.path.insert(0, str(SRC / "notebooks"))
    import chsim_results as cr
    for tf in sorted((d / "tune").glob("*.json")):
        t = json.loads(tf.read_text())
        mine = cr.points_for_target(t["request"]["nodes"], t["request"]["max_over_mean"],
                                    t["request"]["confidence"])
        close(mine, t["answer"]["analytic_points"], 0.01, f"{tf.name}: analytic points")
    theory = 0
    for (run, case_id, step, metric), (value, _) in raw.items():
        if metric in ("theory.wh99_low", "theory.wh99_high", "theory.cv") and step == 0:
            m = re.search(r"points_per_node=(\d+)", case_id)
            if not m:
                continue
            v = float(m.group(1))
            want = {"theory.wh99_low": cr.wh_quantile(v, 0.005),
                    "theory.wh99_high": cr.wh_quantile(v, 0.995),
                    "theory.cv": cr.theory_cv(v)}[metric]
            close(value, want, 1e-3, f"{metric} of {case_id}: chsim vs loader")
            theory += 1
    checked.append(f"theory: {theory} chsim theory rows equal the loader's")
    # The loader keeps every row of every table.
    for p in inputs:
        doc = raw_doc(p)
        if doc.get("kind") == "chsim-results" and doc["scenario"]["name"].startswith("nb-smoke"):
            rf = cr.load(p)
            for table in ("cases", "rows", "summary", "nodes", "transitions"):
                if len(getattr(rf, table)) != len(doc[table]):
                    fail(f"{p}: {table}: loader has {len(getattr(rf, table))} rows, file {len(doc[table])}")
    checked.append(check_looks(d, rj))
    print("figure data: " + "; ".join(checked))


def _hue(color):
    import colorsys
    r, g, b = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)


def check_looks(d, rj):
    """Across every figure's sidecar and the side-by-side table: one colour per setting, the
    settings of one algorithm shades of one hue, different algorithms different colours; no
    text under 8 pt at the report's width (12.5 inches at their own size); no figure taller
    than about two screens (18 inches at that scale)."""
    colors, algs = {}, {}
    series = [(f.name, e) for f in sorted((d / "figures").glob("*.json"))
              if not f.name.endswith(".figures.json")
              for e in json.loads(f.read_text()).get("series", [])]
    series += [("table", {"label": lab, "algorithm": re.split(r"[( ]", lab)[0], "color": c})
               for lab, c in rj["headline_meta"]["colors"].items()]
    for where, e in series:
        if colors.setdefault(e["label"], (e["color"], where))[0] != e["color"]:
            fail(f"{e['label']}: colour {e['color']} in {where}, {colors[e['label']][0]} in "
                 f"{colors[e['label']][1]}")
        algs.setdefault(e["algorithm"], set()).add(e["color"])
    for alg, cs in algs.items():
        hues = [_hue(c) for c in cs]
        chromatic = [h for h, l, sat in hues if sat > 0.15]
        apart = max((min(abs(a - b), 1 - abs(a - b)) for a in chromatic for b in chromatic),
                    default=0.0)  # around the hue circle: red sits at both ends
        if apart > 0.02:
            fail(f"{alg}: its settings' colours {sorted(cs)} are not shades of one hue")
    bases = {}
    for alg, cs in algs.items():
        if len(cs) == 1:
            c = next(iter(cs))
            if c in bases:
                fail(f"{alg} and {bases[c]} share the colour {c}")
            bases[c] = alg
    if len(algs) < 15:
        fail(f"{len(algs)} algorithms in the figures; the wide run has every one of the catalog")
    small = []
    for f in sorted((d / "figures").glob("*.json")):
        if f.name.endswith(".figures.json"):
            continue
        side = json.loads(f.read_text())
        w, h = side["size_in"]
        scale = min(1.0, 12.5 / w)
        if side.get("min_font_pt") is not None and side["min_font_pt"] * scale < 8 - 1e-6:
            small.append(f"{f.stem}: {side['min_font_pt'] * scale:.1f} pt")
        if h * scale > 18.5:
            fail(f"{f.stem}: {h * scale:.1f} inches tall at the report's width; at most 18")
    if small:
        fail(f"text under 8 pt at the report's width: {small}")
    return (f"looks: {len(colors)} settings of {len(algs)} algorithms, one colour each; every "
            "text >= 8 pt, every figure <= 18 in tall")


def settings(docs):
    """{(run, case_id): (setting, label)} of the result documents `docs`, computed here as
    the report must: one setting per algorithm and parameters as run ("auto" where the
    scenario said so), labelled by its case id that names the most parameters."""
    sys.path.insert(0, str(SRC / "notebooks"))
    from chsim_results.labels import label_from_case_id
    keyed, best = {}, {}
    for doc in docs:
        run = doc["scenario"]["name"]
        auto = {}
        for e in doc["scenario"].get("algorithms", []):
            auto.setdefault(e.get("algorithm"), set()).update(
                k for k, v in e.items() if v == "auto" or (isinstance(v, list) and "auto" in v))
        for c in doc["cases"]:
            params = {k: ("auto" if k in auto.get(c["algorithm"], ()) else v)
                      for k, v in c["params"].items()}
            key = json.dumps([c["algorithm"], params], sort_keys=True)
            named = c["case_id"].split("/n=")[0]
            for k in auto.get(c["algorithm"], ()):
                named = re.sub(rf"\b{k}=[^,)]*", f"{k}=auto", named)
            keyed[(run, c["case_id"])] = key
            if key not in best or named.count("=") > best[key].count("="):
                best[key] = named
    return {k: (key, label_from_case_id(best[key])) for k, key in keyed.items()}


# The side-by-side columns' metrics; those of EVENT_METRICS are taken after an event.
EVENT_METRICS = {"remap.excess": "excess churn", "cache.extra_misses": "extra misses per event"}
METRIC_OF_ROW = ("structural.max_over_mean", "sampled.max_over_mean", *EVENT_METRICS,
                 "throughput.ns_per_lookup", "throughput.memory_bytes_per_node",
                 "throughput.ns_per_add", "throughput.ns_per_remove")


def expected_rows(doc):
    """The side-by-side rows of one file: its settings outside a sweep (4 or more settings of
    one algorithm) that have a figure of merit: a metric at step 0, or an event metric
    (EVENT_METRICS) at an event, step 1 and on (a run without events has a step 0 row of
    cache.extra_misses, 0, that no event column reads)."""
    st = settings([doc])
    per_alg = {}
    for (_, cid), (key, _) in st.items():
        per_alg.setdefault(json.loads(key)[0], set()).add(key)
    has = {st[(doc["scenario"]["name"], r["case_id"])][0] for r in doc["summary"]
           if r["metric"] in METRIC_OF_ROW and r["mean"] is not None
           and (r["step"] >= 1 if r["metric"] in EVENT_METRICS else r["step"] == 0)}
    return {lab for (key, lab) in st.values() if len(per_alg[json.loads(key)[0]]) < 4 and key in has}


def check_shards(work):
    """The shards beside their merge, and the merge alone, load as the whole run."""
    sys.path.insert(0, str(SRC / "notebooks"))
    import chsim_results as cr
    whole = Path((work / "whole.txt").read_text())
    parts = sorted((work / "shards").glob("part*.json"))
    det = lambda T: sorted((r.case_id, r.step, r.metric, r.mean) for r in
                           T["summary"].itertuples() if r.deterministic)
    want = det(cr.load_all([str(whole)]))
    for spec in ([str(p) for p in parts], [str(p) for p in parts] + [str(work / "shards/merged.json")],
                 [str(work / "shards/merged.json")]):
        got = cr.load_all(spec)
        if det(got) != want:
            fail(f"loading {[os.path.basename(s) for s in spec]} differs from the whole run")
    return parts


def coverage(reports):
    """Which figures each generated input drew; printed as a table."""
    names = {}
    for d, figs in reports:
        for e in figs:
            names.setdefault(e["name"], []).append(e)
    print(f"{'figure':34} drawn  not drawn: reasons")
    for name, es in names.items():
        drawn = sum(e["status"] == "drawn" for e in es)
        reasons = sorted({e["reason"].split("; ", 1)[-1][:70] for e in es if e["status"] != "drawn"})
        print(f"{name:34} {drawn:3}/{len(es):<3} {' | '.join(reasons[:3])}")
    return names


def check_bad_inputs(src, work):
    """Inputs make-report cannot read: exit 2 and one line naming the file, before any work."""
    cases = [([work / "no-such.json"], "no such file or folder"),
             ([src / "README.md"], "not valid JSON"),
             ([src / "scenarios"], "no chsim result file in this folder"),
             ([src / "scenarios/schema.json"], "/kind: found"),
             (["--dpi", "5", work / "results"], "--dpi: found '5'")]
    for args, needle in cases:
        p = sh([src / "scripts/make-report", *args, "--out", work / "bad", "--no-tune"])
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        if p.returncode != 2 or len(lines) != 1 or needle not in lines[0]:
            fail(f"make-report {args}: exit {p.returncode}, output {p.stdout!r}; wanted exit 2 "
                 f"and one line with '{needle}'")
    if (work / "bad").exists():
        fail("make-report wrote output for inputs it refused")


def report_step(a, src, work):
    t0 = time.time()
    check_bad_inputs(src, work)
    results = sorted((work / "results").glob("*.json"))
    extra = work / "extra"
    each = work / "each"
    shutil.rmtree(each, ignore_errors=True)
    # One report per generated file (two processes, one kernel each), at low resolution: the
    # figures' code and data are the same at any dpi. The smoke files, made to draw every
    # figure, go into the report over everything. Shards beside their merge in one report,
    # and everything together with quick tune runs, side by side. The four make-report runs
    # go three at a time, the longest (everything) first: one make-report keeps about one
    # core busy (its kernel and its HTML export take turns), so two cores stay busy until
    # the last one ends.
    inputs = [r for r in results if r.name.startswith("gen-")] + [extra / "peers-old.json"]
    halves = [inputs[0::2], inputs[1::2]]
    shard_inputs = sorted((work / "shards").glob("part*.json")) + [work / "shards/merged.json"]
    everything = results + [work / "shards/merged.json", extra / "synthetic-catalog.json",
                            extra / "peers.json"]
    jobs = [([*everything, extra / "algorithm_benchmark.json", "--out", work / "all", "--chsim",
              a.chsim, "--quick"], "all")]
    jobs += [([*h, "--each", "--out", each, "--no-tune", "--dpi", "40"], f"--each x {len(h)}")
             for h in halves]
    jobs += [([*shard_inputs, "--out", work / "shards-report", "--no-tune", "--dpi", "40"],
              "shards + merge")]
    with cf.ThreadPoolExecutor(3) as ex:
        list(ex.map(lambda j: make_report(src, *j), jobs))
    reports = []
    for p in inputs:
        figs, rj = check_report_dir(each / p.stem, [p])
        if p.suffix == ".json" and p.name.startswith(("gen-", "smoke-")):
            want = expected_rows(json.loads(p.read_text()))
            got = {r["algorithm"] for r in rj["headline_table"]}
            if got != want or len(rj["headline_table"]) != len(want):
                fail(f"{p.name}: side-by-side rows {sorted(got)}; wanted one per compared "
                     f"setting with a figure of merit: {sorted(want)}")
            reports.append((p.name, figs))
            check_cache(p, figs, rj)
    old = {e["name"]: e for e in check_report_dir(each / "peers-old", [])[0]}
    if old["throughput_peers"]["status"] != "drawn" or \
            "end-to-end" not in old["throughput_end_to_end"]["reason"]:
        fail(f"peers without end-to-end rows: {old['throughput_end_to_end']}")
    print(f"each: {len(inputs)} reports checked")
    names = coverage([r for r in reports if r[0].startswith("gen-")])
    parts = check_shards(work)  # the shards beside their merge load as the whole run
    figs, rj = check_report_dir(work / "shards-report", shard_inputs)
    used = {os.path.basename(i["file"]): i["used"] for i in rj["inputs"]}
    if not used["merged.json"] == "all" or not all(used[p.name].startswith("none") for p in parts):
        fail(f"shards beside their merge: each case must come once, from the merge: {used}")
    figs, rj = check_report_dir(work / "all", everything)
    never = [n for n in names if not any(e["name"] == n and e["status"] == "drawn" for e in figs)]
    if never:
        fail(f"figures never drawn, even over everything: {never}")
    check_figure_data(work / "all", everything)
    print(f"report step done in {time.time() - t0:.1f} s")


SRC = None


def main():
    global SRC
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=["run", "report"])
    ap.add_argument("--chsim", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--count", type=int, default=30)
    a = ap.parse_args()
    SRC = Path(a.source).resolve()
    work = Path(a.work).resolve()
    a.chsim = str(Path(a.chsim).resolve())
    if a.step == "run":
        run_step(a, SRC, work)
    else:
        if not (work / "extra").exists():
            fail(f"{work}: run the 'run' step first (CTest fixture report_results)")
        report_step(a, SRC, work)
    print("PASS")


if __name__ == "__main__":
    main()
