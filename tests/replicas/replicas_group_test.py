#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The replicas metric group and `chsim tune --replicas` against independent Python readings.

Usage: replicas_group_test.py CHSIM TEST, TEST one of:
  churn  a scenario over a server list and a key file (ring, 40 points per node, K = 3 by
         walk; rendezvous by topk) with a named removal, an add and a restore; its rows against
         counts made here from `chsim locate --replicas 3` before and after each event (run on
         the same lists): keys whose copies changed, whose primary changed, copies moved, the
         forced minimum, fan-in and fan-out, copies per node (max/mean, CV), the distinct
         copysets and every node's scatter width.
  loss   the same scenario with 25% of the 12 nodes failing (F = 3, C(12,3) = 220 failure
         sets, so the group enumerates them all): the probability that some key loses every
         copy, and that some key loses its quorum, and the mean keys lost, computed here by
         brute force over every 3-subset of the nodes from locate's copies; the Copysets
         formula from the copysets counted here. Then with failure_sets 100 (drawn): within
         4.5 binomial standard deviations of the exact figure.
  tune   `chsim tune --servers LIST --algorithm ring --replicas 3 --json`: the hottest node's
         share of all copies that the file gives for the answer and for the current value,
         against the exact shares computed here over the research ring's arcs (its points
         rebuilt in Python, each arc's keys walked clockwise for 3 distinct nodes); the
         copysets and scatter width against the same arcs; Lynch and Snyder's neighbour count.
Exit 0 when every comparison agrees; otherwise each difference is printed and the exit is 1.
"""
import bisect
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "algorithms"))
import cli_locate_reference as ref  # noqa: E402  (xxh3 over libxxhash, the research ring)

CHSIM, TEST = sys.argv[1], sys.argv[2]
FAILURES = []
LABELS = [f"10.0.3.{i}:11211" for i in range(1, 13)]
KEYS = [f"item:{i}" for i in range(3000)]


def fail(message):
    FAILURES.append(message)
    print("FAIL: " + message)


def chsim(*args, stdin=None):
    p = subprocess.run([CHSIM, *map(str, args)], input=stdin, capture_output=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"chsim {' '.join(map(str, args))}: exit {p.returncode}: "
                 f"{p.stderr.decode().strip()}")
    return p.stdout.decode()


def close(what, got, want, tol=1e-9):
    if got is None or want is None or not math.isclose(got, want, rel_tol=tol, abs_tol=tol):
        fail(f"{what}: chsim {got}, Python {want}")


def copies_by_locate(folder, algorithm, live):
    """{key: [labels in replica order]} from chsim locate over the live servers."""
    servers = os.path.join(folder, "live.txt")
    with open(servers, "w") as f:
        f.writelines(lab + "\n" for lab in live)
    args = ["--algorithm", "ring", "--points", 40] if algorithm == "ring" else \
        ["--algorithm", algorithm]
    out = chsim("locate", "--servers", servers, *args, "--replicas", 3,
                os.path.join(folder, "keys.txt"))
    return {line.split("\t")[0]: line.split("\t")[1:] for line in out.splitlines()}


def scenario(folder, algorithm, strategy, events, failed=0.01, sets=10000):
    with open(os.path.join(folder, "servers.txt"), "w") as f:
        f.writelines(lab + "\n" for lab in LABELS)
    with open(os.path.join(folder, "keys.txt"), "w") as f:
        f.writelines(k + "\n" for k in KEYS)
    alg = {"algorithm": algorithm, "points_per_node": 40} if algorithm == "ring" else \
        {"algorithm": algorithm}
    doc = {"schema_version": 1, "name": "replicas-check", "seed": 3,
           "nodes": {"file": "servers.txt"}, "algorithms": [alg],
           "workload": {"type": "file", "path": "keys.txt"}, "events": events,
           "metrics": ["replicas"],
           "replication": {"factor": 3, "strategy": strategy, "failed": failed,
                           "failure_sets": sets}}
    path = os.path.join(folder, "scenario.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    out = os.path.join(folder, "out.json")
    chsim("run", path, "-o", out, "--threads", 2, "--quiet")
    with open(out) as f:
        rows = json.load(f)["summary"]
    return {(r["step"], r["metric"]): r["mean"] for r in rows}


def balance(counts, live):
    vals = [counts.get(lab, 0) for lab in live]
    mean = sum(vals) / len(vals)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
    return max(vals) / mean, sd / mean


def scatter(sets, live):
    peers = {lab: set() for lab in live}
    for s in sets:
        for a in s:
            peers[a].update(b for b in s if b != a)
    return [len(peers[lab]) for lab in live]


def check_step(rows, step, now, before, live, live_before):
    n = len(KEYS)
    counts, primaries = {}, {}
    for key in KEYS:
        for lab in now[key]:
            counts[lab] = counts.get(lab, 0) + 1
        primaries[now[key][0]] = primaries.get(now[key][0], 0) + 1
    mx, cv = balance(counts, live)
    close(f"step {step}: copies max/mean", rows.get((step, "replicas.balance.copies_max_over_mean")), mx)
    close(f"step {step}: copies cv", rows.get((step, "replicas.balance.copies_cv")), cv)
    close(f"step {step}: primaries max/mean",
          rows.get((step, "replicas.balance.primaries_max_over_mean")), balance(primaries, live)[0])
    sets = {frozenset(now[k]) for k in KEYS}
    close(f"step {step}: copysets", rows.get((step, "replicas.durability.copysets")), len(sets))
    widths = scatter(sets, live)
    close(f"step {step}: scatter width mean",
          rows.get((step, "replicas.durability.scatter_width_mean")), sum(widths) / len(widths))
    close(f"step {step}: scatter width max",
          rows.get((step, "replicas.durability.scatter_width_max")), max(widths))
    if before is None:
        return
    changed = [k for k in KEYS if set(now[k]) != set(before[k])]
    forced = [k for k in changed if any(lab not in live for lab in before[k])
              or any(lab not in live_before for lab in now[k])]
    moved = sum(len(set(now[k]) - set(before[k])) for k in KEYS)
    close(f"step {step}: sets changed", rows.get((step, "replicas.churn.sets_changed")),
          len(changed) / n)
    close(f"step {step}: sets minimal", rows.get((step, "replicas.churn.sets_minimal")),
          len(forced) / n)
    close(f"step {step}: primaries changed", rows.get((step, "replicas.churn.primaries_changed")),
          sum(now[k][0] != before[k][0] for k in KEYS) / n)
    close(f"step {step}: copies moved", rows.get((step, "replicas.churn.copies_moved")),
          moved / (3 * n))
    left = [lab for lab in live_before if lab not in live]
    joined = [lab for lab in live if lab not in live_before]
    for who, metric, nodes in (("left", "fan_out", left), ("joined", "fan_in", joined)):
        if not nodes:
            continue
        fans = []
        for x in nodes:
            peers = set()
            for k in changed:
                old, new = set(before[k]), set(now[k])
                if who == "left" and x in old - new:
                    peers |= new - old
                if who == "joined" and x in new - old:
                    peers |= old - new
            fans.append(len(peers))
        close(f"step {step}: {metric} mean", rows.get((step, f"replicas.churn.{metric}_mean")),
              sum(fans) / len(fans))


def test_churn(folder):
    gone = LABELS[4]
    events = [{"op": "remove", "nodes": [gone]}, {"op": "add", "nodes": ["10.0.9.9:11211"]},
              {"op": "remove", "nodes": [LABELS[0], LABELS[7]]}]
    for algorithm, strategy in (("ring", "walk"), ("rendezvous", "topk")):
        rows = scenario(folder, algorithm, strategy, events)
        lives = [list(LABELS), [lab for lab in LABELS if lab != gone]]
        lives.append(lives[1] + ["10.0.9.9:11211"])
        lives.append([lab for lab in lives[2] if lab not in (LABELS[0], LABELS[7])])
        before = None
        for step, live in enumerate(lives):
            now = copies_by_locate(folder, algorithm, live)
            check_step(rows, step, now, before, live, lives[step - 1] if step else None)
            before = now
        if not FAILURES:
            print(f"churn: {algorithm}/{strategy}: 4 steps agree with the counts from locate")


def brute_loss(copies, live, f):
    """Every f-subset of the live nodes: the share losing some key, and losing a quorum."""
    sets = [frozenset(c) for c in copies.values()]
    lost_sets = quorum_sets = lost_keys = 0
    total = 0
    for failed in itertools.combinations(live, f):
        failed = set(failed)
        total += 1
        lost = sum(1 for s in sets if s <= failed)
        quorum = sum(1 for s in sets if len(s - failed) < 2)
        lost_sets += lost > 0
        quorum_sets += quorum > 0
        lost_keys += lost
    return lost_sets / total, quorum_sets / total, lost_keys / total / len(sets)


def test_loss(folder):
    rows = scenario(folder, "ring", "walk", [], failed=0.25)
    copies = copies_by_locate(folder, "ring", LABELS)
    p, q, keys_lost = brute_loss(copies, LABELS, 3)
    close("exhaustive", rows.get((0, "replicas.loss.exhaustive")), 1)
    close("failure sets", rows.get((0, "replicas.loss.failure_sets")), math.comb(12, 3))
    close("loss p", rows.get((0, "replicas.loss.p")), p)
    close("quorum p", rows.get((0, "replicas.loss.quorum_p")), q)
    close("keys lost", rows.get((0, "replicas.loss.keys_lost")), keys_lost)
    m = len({frozenset(c) for c in copies.values()})
    formula = -math.expm1(math.comb(3, 3) * math.log1p(-m / math.comb(12, 3)))
    close("Copysets formula", rows.get((0, "replicas.loss.formula")), formula)
    drawn = scenario(folder, "ring", "walk", [], failed=0.25, sets=100)
    close("drawn: not exhaustive", drawn.get((0, "replicas.loss.exhaustive")), 0)
    sigma = math.sqrt(p * (1 - p) / 100)
    got = drawn.get((0, "replicas.loss.p"))
    if got is None or abs(got - p) > 4.5 * sigma + 1e-12:
        fail(f"drawn loss p {got}: more than 4.5 sigma ({sigma:.4f}) from the exact {p:.4f}")
    if not FAILURES:
        print(f"loss: exact over 220 failure sets agrees (p = {p:.4f}, quorum {q:.4f}); "
              f"100 drawn sets give {got:.4f}")


def arc_copies(points, owners, k):
    """[(arc length, [k owners clockwise])] over the research ring's arcs (first point >= h)."""
    out = []
    space = 1 << 32
    for j, p in enumerate(points):
        prev = points[j - 1] if j else points[-1] - space
        walk = []
        for step in range(len(points)):
            o = owners[(j + step) % len(points)]
            if o not in walk:
                walk.append(o)
                if len(walk) == k:
                    break
        out.append((p - prev, walk))
    return out


def test_tune(folder):
    labels = [f"10.1.{i // 200}.{i % 200}:11211" for i in range(60)]
    servers = os.path.join(folder, "sixty.txt")
    with open(servers, "w") as f:
        f.writelines(lab + "\n" for lab in labels)
    out = os.path.join(folder, "tune.json")
    chsim("tune", "--servers", servers, "--algorithm", "ring", "--hasher", "xxh3",
          "--replicas", 3, "--max-over-mean", 1.5, "--json", out, "--quiet", "--threads", 2)
    with open(out) as f:
        doc = json.load(f)
    answer = doc["answer"]
    nodes = [(lab, 1) for lab in labels]
    for est in [e for e in doc["estimates"] if e["points_per_node"] == answer["value"]][:1] + \
            [answer["current"]]:
        v = est["points_per_node"]
        points, owners = ref.ring_points(nodes, v)
        load = [0] * len(labels)
        for length, walk in arc_copies(points, owners, 3):
            for o in walk:
                load[o] += length
        mean = sum(load) / len(load)
        close(f"tune: copies max/mean at {v} points", est["median_max_over_mean"],
              max(load) / mean, 1e-9)
    v = answer["value"]
    points, owners = ref.ring_points(nodes, v)
    sets = {frozenset(w) for _, w in arc_copies(points, owners, 3)}
    a = answer["availability"]
    close("tune: copysets over the arcs", a["copysets"], len(sets))
    widths = scatter(sets, range(len(labels)))
    close("tune: scatter width", a["scatter_width"], sum(widths) / len(widths))
    close("tune: Lynch-Snyder neighbours", a["expected_neighbours"],
          59 * -math.expm1(2 * v * 2 * math.log1p(-1 / 59)))
    if not a["exact"]:
        fail("tune: the walk's copies were not found constant over the ring's arcs")
    if not FAILURES:
        print(f"tune: {v} points per node; copy shares, copysets ({len(sets)}) and scatter width "
              "agree with the arcs walked here")


def main():
    tests = {"churn": test_churn, "loss": test_loss, "tune": test_tune}
    if TEST not in tests:
        sys.exit(f"unknown test {TEST!r}; accepted: {', '.join(tests)}")
    with tempfile.TemporaryDirectory() as folder:
        tests[TEST](folder)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
