# SPDX-License-Identifier: Apache-2.0
"""Seeded random scenarios for the report test: valid by scenarios/schema.json, small enough
to run in a second or two, and as varied as the format allows: algorithms and their
parameters (swept or not), Ketama profiles, node counts 1..2,000, naming patterns, weights,
node files, uniform / sequential / Zipf / key-file workloads (0 keys too), event timelines
(add, remove random / last / by name, fail, restore, reweight), metric subsets, trial counts,
per-node and transition output, on_unsupported, the cache metric (policies, capacities,
events placed on the request stream, object sizes).

draw(seed, directory, catalog) returns a scenario (a dict) and writes the node or key files it
names into `directory`. The algorithms, their parameters, hashers, profiles and workload types
come from `catalog` (the JSON of `chsim list --json`), so a new algorithm is drawn without an
edit here. The same seed and catalog give the same scenario.

Usage: scenarios.py SEED CHSIM (prints one scenario)
"""
import json
import math
import random

# Hashers, profiles, algorithms and their parameters come from the catalog (the JSON of
# `chsim list --json`) given to draw(); what follows is about scenario shapes only.
PATTERNS = ["10.{i/65536%256}.{i/256%256}.{i%256}:11211", "cache-{i}.example.com:11211",
            "node{hex:8}:11311", "h{i*7+3}"]
SHAPES = ["user:{n}", "{alnum:8-32}", "{bytes:16}", "k{i:08}"]


def _one_or_list(rng, values, k_max=2):
    k = rng.randint(1, k_max)
    picks = rng.sample(values, min(k, len(values)))
    return picks[0] if len(picks) == 1 else picks


def weighted_algorithms(catalog):
    return {a["name"] for a in catalog["algorithms"] if a.get("capabilities", {}).get("weights")}


def _param_value(rng, p, n_max):
    """A value (or a swept list, when the parameter is sweepable) for catalog parameter `p`:
    one of its choices, or numbers around its default inside its bounds; "auto" where it
    accepts that. A parameter named capacity gets room for the timeline's adds."""
    name, default = p.get("name"), p.get("default")
    if name == "capacity":
        return 2 * n_max + 40
    pick = (lambda vs: _one_or_list(rng, vs)) if p.get("sweepable") else rng.choice
    if p.get("choices"):
        return pick(list(p["choices"]))
    if not isinstance(default, (int, float)) or isinstance(default, bool) or not default:
        return None
    lo, hi = p.get("minimum", -math.inf), p.get("maximum", math.inf)
    if p.get("type") == "integer":
        vals = sorted({int(round(default * f)) for f in (0.25, 0.5, 1, 2)})
        vals = [v for v in vals if lo <= v <= hi] or [default]
    else:
        vals = [v for v in (round(default * f, 4) for f in (0.9, 1, 1.2, 1.6)) if lo < v <= hi] \
            or [default]
    if p.get("auto") or "auto" in str(p.get("accepted", "")):
        vals = ["auto", default]
    return pick(vals)


def _algorithm(rng, catalog, n_max, weighted):
    pool = [a for a in catalog["algorithms"]
            if not weighted or a.get("capabilities", {}).get("weights")]
    spec = rng.choice(pool)
    a = {"algorithm": spec["name"]}
    for p in spec.get("parameters", []):
        if p.get("name") == "capacity" or rng.random() < 0.35:
            v = _param_value(rng, p, n_max)
            if v is not None:
                a[p["name"]] = v
    return a


def _events(rng, n_min, weighted, lifo, labels_added):
    """A feasible timeline for every initial node count >= n_min (removals leave a node)."""
    events, live, failed = [], n_min, False
    for _ in range(rng.choice([0, 0, 1, 2, 3, 5])):
        ops = ["add"]
        if live >= 3:
            ops += ["remove", "remove", "fail"]
        if failed:
            ops += ["restore", "restore"]
        if weighted and live >= 3:
            ops.append("reweight")
        op = rng.choice(ops)
        if op == "add":
            if rng.random() < 0.3:
                label = f"extra-{len(labels_added)}.example.com:11211"
                labels_added.append(label)
                e = {"op": "add", "nodes": [label]}
            else:
                e = {"op": "add", "count": rng.randint(1, 3)}
            if weighted and rng.random() < 0.5:
                e["weight"] = rng.randint(1, 5)
            live += len(e.get("nodes", [])) or e.get("count", 0)
        elif op == "remove":
            k = rng.randint(1, max(1, min(3, live - 2)))
            how = rng.choice(["random", "last"] + (["nodes"] if labels_added else []))
            if how == "nodes":
                e = {"op": "remove", "nodes": [labels_added.pop()]}
                k = 1
            else:
                e = {"op": "remove", how: k}
            live -= k
        elif op == "fail":
            # Rings and tables rebuild per failed node: at most about 20 of them.
            e = {"op": "fail", "fraction": round(min(rng.choice([0.1, 0.2, 0.5]), 20 / live), 4)}
            failed = True
            live -= math.ceil(live * e["fraction"])  # at most the ceiling fails
        elif op == "restore":
            e = {"op": "restore"}
            failed = False
        else:
            e = {"op": "reweight", "random": 1, "weight": rng.randint(2, 8)}
        events.append(e)
    return events


def _sweep(v):
    return len(v) if isinstance(v, list) else 1


def _structure(a, spec, n):
    """About how many entries `a` builds for n nodes: n times its largest integer parameter
    (points per node, probes), or that parameter alone when it is a table size (> 10,000)."""
    size = n
    for p in spec.get("parameters", []) if spec else []:
        if p.get("type") != "integer" or p.get("name") == "capacity":
            continue
        v = a.get(p["name"], p.get("default"))
        v = max((x for x in v if isinstance(x, int)), default=0) if isinstance(v, list) else v
        if isinstance(v, int) and v > 0:
            size = max(size, v if v > 10_000 else n * v)
    return size


def cost_seconds(sc, catalog):
    """A rough single-thread cost of running `sc`: structures rebuilt per changed node, keys
    placed per step."""
    specs = {a["name"]: a for a in catalog["algorithms"]}
    nodes = sc["nodes"]
    ns = nodes.get("count", 100)
    ns = ns if isinstance(ns, list) else [ns]
    per_n = _sweep(nodes.get("pattern"))
    wl = sc.get("workload", {})
    keys = wl.get("requests", wl.get("keys", 3000))
    keys = max(keys) if isinstance(keys, list) else keys
    wl_cases = _sweep(wl.get("exponent")) * _sweep(wl.get("keys")) * _sweep(wl.get("shape"))
    events = sc.get("events", [])
    total = 0.0
    for n in ns:
        changed = sum(e.get("count", 0) + len(e.get("nodes", [])) + e.get("random", 0)
                      + e.get("last", 0) + e.get("fraction", 0) * n * 2 for e in events)
        for a in sc["algorithms"]:
            cases = math.prod(_sweep(v) for k, v in a.items() if k != "algorithm")
            rebuild = _structure(a, specs.get(a["algorithm"]), n) * 30e-9 * (1 + changed)
            place = keys * (1 + 3 * len(events)) * 60e-9
            thr = 0.05 if "throughput" in sc.get("metrics", []) else 0
            thr += keys * 2 * 100e-9 if "cache" in sc.get("metrics", []) else 0  # run + twin
            total += cases * per_n * wl_cases * (sc.get("trials", 1) * (rebuild + place) + thr)
    return total


def draw(seed, directory, catalog, budget=0.4):
    """A scenario over the algorithms of `catalog` (the JSON of `chsim list --json`) whose
    estimated cost fits `budget` seconds (redrawn with the same stream until one does)."""
    rng = random.Random(seed)
    for _ in range(50):
        sc = _draw(rng, seed, directory, catalog)
        if cost_seconds(sc, catalog) <= budget:
            return sc
    return sc


def _draw(rng, seed, directory, catalog):
    size = rng.choice(["one", "tiny", "small", "small", "medium", "large"])
    counts = {"one": [1], "tiny": [2, 3, 5], "small": [10, 20, 50, 100],
              "medium": [200, 500], "large": [1000, 2000]}[size]
    n = _one_or_list(rng, counts)
    n_list = n if isinstance(n, list) else [n]
    n_max, n_min = max(n_list), min(n_list)
    weighted = rng.random() < 0.25
    nodes = {"count": n}
    if rng.random() < 0.3:
        nodes["pattern"] = _one_or_list(rng, PATTERNS)
    if weighted:
        nodes["weights"] = rng.choice([{"min": 1, "max": 10}, {"choice": [1, 2, 4]}] +
                                      ([[rng.randint(1, 5) for _ in range(n)]]
                                       if isinstance(n, int) and n <= 50 else []))
    if rng.random() < 0.08 and not isinstance(n, list):  # a node file instead of a pattern
        with open(f"{directory}/nodes-{seed}.txt", "w") as f:
            for i in range(n_max):
                w = f" {rng.randint(1, 4)}" if weighted else ""
                f.write(f"10.1.{i // 256}.{i % 256}:11211{w}\n")
        nodes = {"file": f"nodes-{seed}.txt"}
    algs = [_algorithm(rng, catalog, n_max, weighted) for _ in range(rng.randint(1, 4))]
    algs = list({json.dumps(a, sort_keys=True): a for a in algs}.values())  # no twin entries
    # Entries of one algorithm must differ in a parameter the case id shows.
    seen = {}
    for a in algs:
        seen.setdefault(a["algorithm"], []).append(a)
    algs = [a for a in algs if len(seen[a["algorithm"]]) == 1 or len(a) > 1]
    algs = list({(a["algorithm"], json.dumps({k: v for k, v in a.items() if k != "algorithm"},
                                             sort_keys=True)): a for a in algs}.values())
    specs = {a["name"]: a for a in catalog["algorithms"]}
    lifo = any(not specs[a["algorithm"]].get("capabilities", {}).get("arbitrary_removal", True)
               for a in algs)
    # Work per key may grow with n (highest random weight): fewer keys at large n.
    key_cap = max(200, min(20_000, 400_000 // n_max))
    types = [w["name"] for w in catalog.get("workloads", [])]
    wtype = rng.choice(types + [t for t in types if t == "uniform"])
    if wtype == "uniform":
        workload = {"type": "uniform", "keys": rng.choice([0, 500, 5000, key_cap]) if
                    rng.random() < 0.2 else min(key_cap, rng.choice([2000, 10000, 20000])),
                    "shape": rng.choice(SHAPES[:3])}
    elif wtype == "sequential":
        workload = {"type": "sequential", "keys": min(key_cap, 10000), "shape": "user:{i}",
                    "start": rng.randint(0, 1000), "step": rng.choice([1, 7])}
    elif wtype == "zipf":
        workload = {"type": "zipf", "keys": min(key_cap, 5000),
                    "requests": min(key_cap * 2, 20000),
                    "exponent": _one_or_list(rng, [0.6, 0.99, 1.3])}
    elif wtype == "file":
        weighted_keys = rng.random() < 0.5
        with open(f"{directory}/keys-{seed}.txt", "w") as f:
            for i in range(min(key_cap, 3000)):
                f.write(f"key:{rng.getrandbits(40):x}" + (f" {rng.randint(1, 9)}" if weighted_keys
                                                          else "") + "\n")
        workload = {"type": "file", "path": f"keys-{seed}.txt", "weighted": weighted_keys}
    else:  # a workload this generator does not know: its catalog parameters, defaults first
        spec = next(w for w in catalog["workloads"] if w["name"] == wtype)
        workload = {"type": wtype}
        for p in spec.get("fields", []):
            if p.get("name") == "type" or not (p.get("required") or rng.random() < 0.5):
                continue
            v = p.get("example", p.get("default"))
            v = v if v is not None else _param_value(rng, p, n_max)
            if v is not None:
                workload[p["name"]] = min(v, key_cap) if p.get("name") == "keys" else v
    events = _events(rng, n_min, weighted and all(a["algorithm"] in weighted_algorithms(catalog)
                                                  for a in algs), lifo, [])
    metrics = rng.sample(["balance", "remap", "throughput"], rng.randint(1, 3))
    sc = {"schema_version": 1, "name": f"gen-{seed}", "seed": rng.randint(0, 2**32),
          "trials": rng.choice([1, 1, 2, 3]), "nodes": nodes, "algorithms": algs,
          "workload": workload, "metrics": metrics}
    if events:
        sc["events"] = events
        sc["on_unsupported"] = rng.choice(["rebuild", "skip"]) if lifo else \
            rng.choice(["error", "rebuild", "skip"])
    out = {}
    if rng.random() < 0.5:
        out["per_node"] = rng.choice(["none", "first_trial", "all", "auto"])
    if rng.random() < 0.4:
        out["transitions"] = True
    if out:
        sc["output"] = out
    if "throughput" in metrics:
        sc["throughput"] = {"keys": 1024, "min_time_ms": 1, "repetitions": 1}
    _add_cache(random.Random(seed * 7919 + 1), sc, catalog)
    _add_replicas(random.Random(seed * 7919 + 2), sc, catalog)
    return sc


def _add_replicas(rng, sc, catalog):
    """Sometimes the replicas metric (its own random stream): two copies per key by every
    strategy that applies, or by one of the registry's, when every algorithm named has one
    (so the report meets replicas rows, and files without them)."""
    strategies = {a["name"]: a.get("replica_strategies", []) for a in catalog["algorithms"]}
    names = [a.get("algorithm") for a in sc["algorithms"]] if isinstance(sc["algorithms"], list) \
        else []
    if rng.random() >= 0.35 or not names or any(not strategies.get(n) for n in names):
        return
    counts = sc["nodes"].get("count", 0)
    if min(counts if isinstance(counts, list) else [counts]) < 4:
        return
    common = set.intersection(*(set(strategies[n]) for n in names))
    sc["metrics"].append("replicas")
    sc["replication"] = {"factor": 2, "failure_sets": 200,
                         "strategy": rng.choice(["all"] + sorted(common))}


def _add_cache(rng, sc, catalog):
    """Sometimes the cache metric (its own random stream, so the rest of the scenario is the
    one this seed always drew): a policy of the catalog, a small capacity, the events placed
    on the request stream in order; Zipf requests sometimes get sizes."""
    if rng.random() >= 0.35 or sc["workload"].get("weighted"):  # weighted lines: no stream
        return
    sc["metrics"].append("cache")
    policies = [p["name"] for p in catalog.get("cache_policies", [])] or ["lru"]
    cap = rng.choice([{"objects": rng.choice([1, 20, 200])},
                      {"objects_fraction": rng.choice([0.05, 0.3, 2])}])
    sc["cache"] = {"policy": _one_or_list(rng, policies), "capacity": cap}
    if rng.random() < 0.3:
        sc["cache"]["window"] = rng.choice([50, 500])
    wl = sc["workload"]
    if wl["type"] == "zipf" and rng.random() < 0.5:
        wl["size"] = rng.choice([100, {"distribution": "uniform", "min": 1, "max": 5000},
                                 {"distribution": "lognormal", "mu": 6.5, "sigma": 1.0}])
    k = len(sc.get("events", []))
    for i, e in enumerate(sc.get("events", [])):
        e["at"] = {"fraction": round((i + 1) / (k + 1), 4)}


if __name__ == "__main__":
    import subprocess
    import sys
    listed = subprocess.run([sys.argv[2], "list", "--json"], stdout=subprocess.PIPE, check=True)
    print(json.dumps(draw(int(sys.argv[1]), ".", json.loads(listed.stdout)), indent=1))
