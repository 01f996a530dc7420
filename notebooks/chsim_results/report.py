# SPDX-License-Identifier: Apache-2.0
"""The report's sections, computed from whatever files it is given (notebooks/report.ipynb
shows them in this order):

1. ``what_was_run``: one paragraph on the inputs.
2. ``answers``: the headline answers the inputs support (points per node, the hasher's
   effect, the sampling floor, remapping, lookup speed, the real clients), each a sentence
   with the numbers, or a line saying what would supply it.
3. The side-by-side table (sidebyside.py).
4. The figures the notebooks flagged for the report (``report_figures``), then
   ``other_metrics``: every metric no figure or table names, in a generic table per
   catalog group (``chsim list --json``'s ``group``; "uncatalogued" for a metric the
   catalog does not list), so a new metric shows up with no new figure, whatever its name.
5. ``inputs``: one table per kind of input (results, tune, peers, benchmark) with its own
   columns, and their provenance.

Every function takes the loaded tables (``load.load_all``) and returns text or tables; the
notebook displays them and writes ``report.json``.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import catalog as _catalog
from . import sidebyside as _side
from . import theory
from .labels import case_label
from .sidebyside import NA, reference_n, resize_metrics  # noqa: F401 - the report's names
from .tables import best_per_key, column, ring_points


@dataclass
class Answer:
    key: str
    text: str                       # markdown; for a missing answer, why
    table: pd.DataFrame | None = None
    note: str = ""
    missing: bool = False


def _missing(key, why) -> Answer:
    return Answer(key, why, missing=True)


def _labelled(R: dict) -> pd.DataFrame:
    S = R["summary"]
    return S.assign(label=case_label(S)) if len(S) else S.assign(label=pd.Series(dtype=object))


# --- 1. what was run -------------------------------------------------------------------------

def _span(values, unit=""):
    v = sorted({int(x) for x in values if x == x})
    if not v:
        return ""
    return f"{v[0]:,}{unit}" if len(v) == 1 else f"{v[0]:,} to {v[-1]:,}{unit}"


def _some(items, most: int = 12, sep: str = ", ") -> str:
    """The items joined by commas; past `most`, the first and the last few with how many lie
    between (a sentence stays readable at any number of runs or settings)."""
    items = list(items)
    if len(items) <= most:
        return sep.join(items)
    tail = max(1, most // 4)
    return sep.join(items[:most - tail] + [f"... {len(items) - most} more ..."] + items[-tail:])


def what_was_run(R: dict, tune=None, peers=None, bench=None) -> str:
    """One paragraph: the runs, algorithms and settings, node counts, trials, workloads,
    timelines and metrics, plus the tune, peers and benchmark files."""
    cases = R["cases"]
    parts = []
    if len(cases):
        runs = list(dict.fromkeys(cases["run"]))
        algs = cases["algorithm"].nunique()
        settings = cases["setting"].nunique() if "setting" in cases else len(cases)
        trials = sorted({int(d.get("scenario", {}).get("trials", 1)) for d in
                         (rf.doc for rf in R["files"])})
        wl = column(cases, "workload.type", "?").astype(str)
        skew = column(cases, "workload.skewed", False).fillna(False).astype(bool)
        kinds = sorted(set(wl[~skew])) + [f"{w} (skewed)" for w in sorted(set(wl[skew]))]
        timelines = sum(1 for rf in R["files"] if rf.doc.get("scenario", {}).get("events"))
        metrics = metric_groups_of(R["summary"]["metric"].unique())
        parts.append(
            f"**What was run.** {len(runs)} run(s) ({_some(runs, 8)}) compare {algs} "
            f"algorithm(s) in {settings} setting(s) at n = {_span(cases['n'])} nodes, "
            f"{'-'.join(map(str, (trials[0], trials[-1]) if len(trials) > 1 else trials))} "
            f"trial(s) each, over {', '.join(kinds)} workloads; {timelines} run(s) with an "
            f"events timeline; metric groups: {', '.join(metrics)}.")
    else:
        parts.append("**What was run.** No chsim result file among the inputs.")
    if tune is not None and len(tune["answer"]):
        parts.append(f"{len(tune['answer'])} chsim tune answer(s).")
    if peers is not None:
        parts.append(f"{len(peers['files'])} run(s) of the real clients (bench/peers).")
    if bench is not None and len(bench):
        parts.append(f"Lookup benchmarks of {bench['algorithm'].nunique()} algorithm(s).")
    return " ".join(parts)


# --- 2. the headline answers ----------------------------------------------------------------

def _doubt_text(r) -> str:
    """The candidates an unsettled answer leaves in doubt: 'A..B', '≤ B' or '≥ A'."""
    def num(x):
        return x is not None and x == x
    lo, hi = r.get("doubt_low"), r.get("doubt_high")
    if num(hi) and num(lo) and lo > 4:
        return f"{int(lo)}..{int(hi)}"
    if num(hi):
        return f"≤ {int(hi)}"
    return f"≥ {int(lo)}" if num(lo) else "unknown"


def _tune_answers(tune) -> pd.DataFrame:
    A = tune["answer"].copy()
    A["n"] = column(A, "request.nodes", 0).fillna(0).astype(int)
    A = A[(A["n"] > 0) & (column(A, "parameter", "points_per_node").fillna("points_per_node")
                          == "points_per_node")]
    if len(A):
        A["target"] = A["request.max_over_mean"].astype(float)
        A["settled"] = column(A, "settled", True).fillna(True).astype(bool)
    return A


def tuning(tune) -> Answer:
    key = "points per node"
    if tune is None:
        return _missing(key, "no chsim tune files (scripts/make-report runs them unless --no-tune)")
    A = _tune_answers(tune)
    if A.empty:
        return _missing(key, "no ring tune answer over drawn names")
    n0 = int(A.iloc[(A["n"] - 200).abs().argsort()].iloc[0]["n"])
    g = A[A["n"] == n0].sort_values("target")
    cur = g.iloc[0]
    v0 = int(cur["current.points_per_node"])
    med = (cur["current.median_max_over_mean"] - 1) * 100
    p95 = (cur["current.p95_max_over_mean"] - 1) * 100
    conf = float(cur["request.confidence"])

    def answer(r):
        pct = f"{(r['target'] - 1) * 100:.0f}%"
        if not r["met"] and r["settled"]:
            return f"no v up to the limit brings it to {pct}"
        if not r["settled"]:
            return (f"**{_doubt_text(r)} points** bring it to {pct} (not settled within the "
                    "time budget" + (f"; {int(r['value'])} meets it)" if r["met"] else ")"))
        return f"**{int(r['value'])} points** bring it to {pct}"
    text = (f"**Points per node.** At n = {n0}, {v0} points per node ({cur['request.profile']}) "
            "leaves your hottest "
            f"server **{med:.0f}% over the mean** (median over server-name draws; {p95:.0f}% "
            "at the 95th percentile). " + "; ".join(answer(r) for _, r in g.iterrows())
            + f", with {conf:.0%} confidence.")
    rows = []
    for n, h in A.groupby("n"):
        r = {"servers n": n, f"hottest at {v0} points (median)":
             f"{(h['current.median_max_over_mean'].iloc[0] - 1) * 100:.0f}% over"}
        for _, x in h.sort_values("target").iterrows():
            r[f"points for ≤ {(x['target'] - 1) * 100:.0f}% over"] = (
                _doubt_text(x) if not x["settled"] else int(x["value"]) if x["met"] else "not met")
        rows.append(r)
    note = ("Points per node grow like ln n / ε² for a target of ε over the mean: halving the "
            "allowed excess costs four times the points (and the ring memory). The answer is "
            "the least candidate whose exact check (real rings over drawn names) meets the "
            "target in at least the stated share of draws; *in doubt* means the time budget ran "
            "out first.")
    return Answer(key, text, pd.DataFrame(rows).set_index("servers n"), note)


def hasher_effect(R: dict) -> Answer:
    key = "hasher effect"
    S = _labelled(R)
    if S.empty:
        return _missing(key, "no chsim result files")
    V = ring_points(R["summary"])
    b = S[(S["metric"] == "structural.max_over_mean") & (S["step"] == 0) & (S["n"] >= 2)].copy()
    b["v"] = [V.get((r, c), np.nan) for r, c in zip(b["run"], b["case_id"])] if len(V) else np.nan
    b = b[b["v"].notna()]
    b["series"] = case_label(b, drop=("points_per_node",))
    pats = column(b, "axes.nodes.pattern", None)
    if pats.notna().any():
        b = b[pats.isna() | (pats == pats.dropna().mode().iat[0])]
    best = None  # the most ring series (hashers, profiles), v = 160 if present, the largest n
    for (n, v), g in b.groupby(["n", "v"]):
        k = g["series"].nunique()
        if k >= 2 and (best is None or (k, v == 160, n) > best[0]):
            best = ((k, v == 160, n), n, v, g)
    if best is None:
        return _missing(key, "needs two or more ring hashers or profiles at one points-per-node "
                        "value (balance metric, equal weights)")
    _, n, v, g = best
    g = g.groupby("series")["mean"].mean().sort_values()
    ideal = (theory.max_ratio_quantile(n, v, 0.5) - 1) * 100
    return Answer(key, (
        f"**Hasher matters.** At n = {n} and {v:g} points, the hottest server is "
        f"{(g.iloc[0] - 1) * 100:.0f}% over the mean with {g.index[0]} (theory for ideal random "
        f"points: {ideal:.0f}%), but {(g.iloc[-1] - 1) * 100:.0f}% with {g.index[-1]}. "
        + ", ".join(f"{h}: {(x - 1) * 100:.0f}%" for h, x in g.items()) + "."))


def sampling_floor(R: dict) -> Answer:
    key = "sampling floor"
    S = R["summary"]
    f = S[(S["metric"] == "sampled.floor_cv") & (S["step"] == 0)] if len(S) else S
    if f.empty:
        return _missing(key, "needs sampled balance rows (workload keys)")
    n = reference_n(f.assign(setting=f["case_id"]))
    k = f[f["n"] == n].sort_values("mean", kind="stable").iloc[0]  # the most keys there
    keys = pd.to_numeric(pd.Series([k.get("workload.keys")]), errors="coerce").iloc[0]
    many = f"{int(keys):,} keys" if keys == keys and not k.get("workload.skewed") else "these keys"
    return Answer(key, (
        f"**Sampling hides small imbalances.** With {many} at n = {n} ({k['run']}), sampled "
        f"CV cannot fall below ≈ {k['mean']:.3f} (√(n/K)); the "
        "structural figures (exact arc lengths) are the ones to read for well-balanced "
        "schemes."))


def _surv(r) -> str:
    v = r.get("remap.moved_between_survivors")
    return f", {v * 100:.1f}% between survivors" if v is not None and v == v else ""


def remapping(R: dict) -> Answer:
    key = "remapping"
    S = _labelled(R)
    m = S[S["metric"].isin(["remap.moved", "remap.minimal", "remap.moved_between_survivors"])
          & (S["step"] >= 1)] if len(S) else S
    if m.empty:
        return _missing(key, "needs an events timeline with the remap metric")
    run = m.groupby("run")["label"].nunique().sort_values(ascending=False, kind="stable").index[0]
    m = m[m["run"] == run]
    n = min(m["n"].unique(), key=lambda x: (abs(math.log(max(x, 1) / 100)), x))
    m = m[m["n"] == n]
    rem = m[m["event"].astype(str).str.startswith("remove")]
    st = int(rem["step"].min()) if len(rem) else int(m["step"].min())
    t = best_per_key(m[m["step"] == st], ["label", "metric"]).pivot_table(
        index="label", columns="metric", values="mean")
    ev = m[m["step"] == st]["event"].iloc[0]
    if "remap.moved" not in t or "remap.minimal" not in t:
        return _missing(key, "no moved / minimal rows at the first event")
    t["excess"] = t["remap.moved"] - t["remap.minimal"]
    good = t[t["excess"] < 0.001].index.tolist()
    bad = t[t["excess"] >= 0.001].sort_values("excess")
    lo, hi = t["remap.minimal"].min() * 100, t["remap.minimal"].max() * 100
    least = f"{lo:.1f}%" if hi - lo < 0.05 else f"{lo:.1f}-{hi:.1f}% (it depends on each scheme's loads)"
    more = _some((f"{l} {r['remap.moved'] * 100:.1f}% (minimum "
                  f"{r['remap.minimal'] * 100:.1f}%{_surv(r)})" for l, r in bad.iterrows()),
                 8, "; ")
    return Answer(key, (
        f"**Remapping ({run}, step {st}: {ev}, n = {n}).** The least any scheme must move is "
        f"{least} of keys. Moving only that: {_some(good, 16) or 'none'}."
        + (f" More: {more}." if len(bad) else "")))


def lookup_speed(R: dict) -> Answer:
    key = "lookup speed"
    S = _labelled(R)
    t = S[S["metric"] == "throughput.ns_per_lookup_with_hash"] if len(S) else S
    if t.empty:
        return _missing(key, "needs the throughput metric")
    n = reference_n(t)
    g = t[t["n"] == n].groupby("label")["mean"].min().sort_values()
    return Answer(key, f"**Lookup speed at n = {n}** (key hash included, one thread): "
                  + _some((f"{l} {v:.0f} ns" for l, v in g.items()), 20) + ".")


def _replica_rows(R: dict) -> pd.DataFrame:
    """The replicas.* summary rows with the label, strategy and factor K of their case."""
    S = R["summary"]
    S = S[S["metric"].astype(str).str.startswith("replicas.")] if len(S) else S
    if S.empty:
        return S
    dom = S["case_id"].str.extract(r"/replication\.domain=([^/]+)")[0]
    strategy = S["case_id"].str.extract(r"/replication\.strategy=([^/]+)")[0]
    S = S.assign(label=case_label(S),
                 strategy=strategy.where(dom.isna() | (dom == "none"),
                                         strategy + " over " + dom.fillna("") + "s"),
                 factor=pd.to_numeric(S["case_id"].str.extract(r"/replication\.factor=([^/]+)")[0],
                                      errors="coerce"))
    return S[S["strategy"].notna() & S["factor"].notna()]


def _by_strategy(series, strategy_of: pd.Series) -> str:
    """The strategies of `series`, each with how many of its series (one per algorithm
    setting) are among them: "walk over racks (all 5 settings)", "random (2 of 5 settings)"."""
    series = list(series)
    if not series:
        return ""
    have = pd.Series(series).map(strategy_of).value_counts()
    total = strategy_of.value_counts()

    def count(st):
        k, m = int(have[st]), int(total[st])
        return (f"{k} of {m} settings" if k < m else f"all {m} settings" if m > 1
                else "its one setting")
    return _some(f"{st} ({count(st)})" for st in sorted(have.index))


def _excess_by_strategy(excess: pd.Series, strategy_of: pd.Series) -> str:
    """Each strategy's range of churn above the minimum over its series, in points."""
    g = excess.groupby(excess.index.map(strategy_of))
    return _some(f"{st} +{lo * 100:.2g}" + (f" to +{hi * 100:.2g}" if hi - lo > 1e-12 else "")
                 + " points" for st, lo, hi in
                 sorted(zip(g.min().index, g.min(), g.max()), key=lambda r: r[1]))


def _replication_n(S: pd.DataFrame):
    """The node count the headline speaks of: the largest at which some failure set can hold
    a whole copyset (failed nodes >= copies), else the largest."""
    f = S[(S["step"] == 0) & (S["metric"] == "replicas.loss.failed_nodes")]
    ok = f[f["mean"] >= f["factor"]]["n"]
    return int(ok.max() if len(ok) else S["n"].max())


def replication(R: dict) -> Answer:
    """Which strategy keeps copies in distinct domains with the least churn and loss, at the
    inputs' n (the run with the most cases; the largest n at which data can be lost)."""
    key = "replicas"
    S = _replica_rows(R)
    if S.empty:
        return _missing(key, "needs the replicas metric (a scenario with \"replication\")")
    run = S.groupby("run")["case_id"].nunique().sort_values(ascending=False, kind="stable").index[0]
    S = S[S["run"] == run]
    n = _replication_n(S)
    S = S[S["n"] == n]
    S = S.assign(series=S["label"] + " · " + S["strategy"] + ", K=" + S["factor"].astype(int).astype(str))
    first = S[S["step"] == 0].pivot_table(index="series", columns="metric", values="mean")
    churn = S[S["step"] >= 1].groupby(["series", "metric"])["mean"].mean().unstack() \
        if (S["step"] >= 1).any() else pd.DataFrame()  # mean over the events
    t = pd.DataFrame(index=first.index)
    for col, src, m in (("copies in one domain", first, "replicas.placement.same_domain"),
                        ("short", first, "replicas.placement.short"),
                        ("churn", churn, "replicas.churn.sets_changed"),
                        ("churn minimum", churn, "replicas.churn.sets_minimal"),
                        ("loss P", first, "replicas.loss.p"),
                        ("copies max/mean", first, "replicas.balance.copies_max_over_mean"),
                        ("binomial max/mean", first,
                         "replicas.balance.copies_baseline_max_over_mean")):
        if m in src:
            t[col] = src[m].reindex(t.index)
    failed = S[(S["step"] == 0) & (S["metric"] == "replicas.loss.failed_nodes")]["mean"]
    f = f"{failed.median():.0f} of {n:,} nodes failed" if len(failed) else "nodes failed"
    by = S.drop_duplicates("series").set_index("series")["strategy"]  # series -> strategy
    pool = t
    if "copies in one domain" in t:
        pool = t[t["copies in one domain"] <= 0]
        domain = ("Copies always in distinct domains: "
                  f"{_by_strategy(pool.index, by) or 'no strategy'}.")
    else:
        domain = "No failure domain asked: every strategy places K distinct nodes."
    ks = sorted(S["factor"].dropna().astype(int).unique())
    parts = [f"**Replicas ({run}, n = {n:,}, K = {', '.join(map(str, ks))}).** {domain}"]
    if "churn" in pool and pool["churn"].notna().any():
        excess = (pool["churn"] - pool.get("churn minimum", 0)).dropna()
        at_min = sorted(excess[excess <= 1e-9].index)  # a minimal strategy: exactly
        above = excess[excess > 1e-9]
        parts.append(f"Churn per event at its minimum (only the keys with a copy on the node "
                     f"that left or joined change): {_by_strategy(at_min, by) or 'none'}"
                     + ("; above it: " + _excess_by_strategy(above, by) if len(above) else "")
                     + ".")
        pool = pool.loc[at_min] if at_min else pool
    if "loss P" in pool and pool["loss P"].notna().any():
        lp = pool["loss P"].dropna().sort_values()
        best = lp.index[0]
        bal = t.loc[best].get("copies max/mean", float("nan"))
        parts.append(f"Least data-loss probability with {f}: **{best}** ({lp.iloc[0]:.3g}; "
                     f"its hottest node holds {bal:.2f}x the mean of all copies); most: "
                     f"{lp.index[-1]} ({lp.iloc[-1]:.3g}).")
        if {"copies max/mean", "binomial max/mean"} <= set(t):
            # Balanced: the hottest node within 10% of what independent uniform placement
            # of these keys gives (its sampling noise).
            even = (t["copies max/mean"] <= 1.1 * t["binomial max/mean"]).reindex(lp.index)
            if even.any() and not even.iloc[0]:
                e = lp[even.fillna(False)]
                parts.append(f"Among those whose hottest node is within 10% of the binomial "
                             f"baseline: **{e.index[0]}** ({e.iloc[0]:.3g}).")
    return Answer(key, " ".join(parts), table=t.sort_index())


def real_clients(peers) -> list[Answer]:
    if peers is None:
        return [_missing("the real clients", "no bench/peers/run file (results/peers.json)")]
    P = max(peers["files"], key=lambda rf: str(rf.doc.get("started", "")))
    out = []
    c = P.comparisons
    if len(c) and {"op", "chsim_op", "speedup"} <= set(c.columns):
        c = c[(c["op"] == "lookup") & (c["chsim_op"] == "lookup") & c["speedup"].notna()]
        if len(c):
            out.append(Answer("the real clients", (
                "**Against the real clients** (same keys and servers, key hashing included): "
                + "; ".join(f"{r['peer']} {r['variant']} @ {r['servers']}: {r['peer_ns']:.0f} ns "
                            f"vs chsim {r['chsim_ns']:.0f} ns ({r['speedup']:.1f}x)"
                            for _, r in c.iterrows()) + ".")))
    e2e = [x for x in P.doc.get("comparisons", []) if x.get("op") == "end_to_end"]
    if e2e:
        out.append(Answer("end to end", "**End to end** (whole processes mapping one key file): "
                          + "; ".join(
            f"{x.get('peer')} {x.get('variant', '')} @ {x.get('servers')} servers: "
            f"{x.get('peer_s', float('nan')):.3f} s vs chsim {x.get('chsim_s', float('nan')):.3f} s "
            f"({x.get('ratio', float('nan')):.2f}x)" for x in e2e) + "."))
    else:
        out.append(_missing("end to end", "the peers file has no end-to-end rows"))
    if len(P.agreement):
        bad = P.agreement[~P.agreement["agree"].astype(bool)]
        out.append(Answer("agreement", (
            f"Agreement checks: {len(P.agreement) - len(bad)} of {len(P.agreement)} chsim "
            "profiles give every key the same server as the peer they reproduce.")))
    return out


PROXY_METRICS = ("structural.max_over_mean", "theory.max_over_mean", "sampled.max_over_mean",
                 "sampled.floor_max_over_mean")


def proxy_profiles(R: dict) -> Answer:
    """Each proxy and load-balancer profile's max/mean at its defaults, at every n of the
    proxies scenario (scenarios/proxies.json: 10 and 100), beside the Gamma theory for ideal
    random points with the same points per node (none where the rule is not Karger's ring of
    random points: nginx-hash's modulo, HAProxy's nearest point, PHP memcache's buckets, a
    Maglev table); a profile with no exact shares (pymemcache's rendezvous) gives its sampled
    max/mean beside the sampling floor."""
    key = "proxies"
    S = R["summary"]
    need = {"scenario", "params.profile", "metric", "step"}
    s = S[(S["scenario"] == "proxies") & (S["step"] == 0) & S["metric"].isin(PROXY_METRICS)] \
        if len(S) and need <= set(S.columns) else S.iloc[0:0]
    if s.empty:
        return _missing(key, "needs results/proxies.json (scenarios/proxies.json)")
    t = s.pivot_table(index=["params.profile", "n"], columns="metric", values="mean")
    trials = int(s["trials"].max())

    def cell(p, n):
        if (p, n) not in t.index:
            return NA
        r = t.loc[(p, n)]
        th = r.get("theory.max_over_mean", float("nan"))
        exact = r.get("structural.max_over_mean", float("nan"))
        if exact != exact:
            return (f"{r.get('sampled.max_over_mean', float('nan')):.3f} (sampled, no exact "
                    f"shares; sampling floor "
                    f"{r.get('sampled.floor_max_over_mean', float('nan')):.3f})")
        return (f"{exact:.3f}"
                + (f" (theory {th:.3f})" if th == th else " (no ring theory for its rule)"))
    ns = sorted(t.index.get_level_values(1).unique())
    profiles = list(dict.fromkeys(t.index.get_level_values(0)))
    table = pd.DataFrame([{"profile": p, **{f"n = {n}": cell(p, n) for n in ns}}
                          for p in profiles]).set_index("profile")
    return Answer(key, (
        f"**Proxies and load balancers at their defaults** (max/mean of the exact shares, mean "
        f"of {trials} name draws; theory: ideal random points, the Gamma model): "
        + "; ".join(f"{p} " + ", ".join(f"n = {n} {cell(p, n)}" for n in ns) for p in profiles)
        + "."), table)


def answers(R: dict, tune=None, peers=None) -> list[Answer]:
    """Every headline answer, in the report's order; missing ones say what they need."""
    return ([tuning(tune), hasher_effect(R), sampling_floor(R), remapping(R), lookup_speed(R),
             replication(R)] + real_clients(peers) + [proxy_profiles(R)])


# --- 4. figures and metrics no figure draws ---------------------------------------------------

def report_figures(figs: list[dict]) -> list[dict]:
    """The figure entries the notebooks flagged for the report, in their order."""
    keyed = [e for e in figs if e.get("report") is not None]
    return sorted(keyed, key=lambda e: (float(e["report"]), e["name"]))


# The exact metric names the headline answers show (and the live node count, which every
# table gives as n); with those the side-by-side table's columns declare (Column.shows).
ANSWERS_SHOW = ("nodes", "structural.max_over_mean", "sampled.floor_cv", "remap.moved",
                "remap.minimal", "remap.moved_between_survivors",
                "throughput.ns_per_lookup_with_hash", "replicas.placement.same_domain",
                "replicas.placement.short", "replicas.loss.p")
SHOWN_BY_REPORT = tuple(dict.fromkeys(ANSWERS_SHOW + tuple(m for c in _side.COLUMNS
                                                           for m in c.shows)))


def metric_groups_of(metrics) -> list[str]:
    """The catalog groups (catalog.Catalog.metric_group) of `metrics`, in the catalog's
    order; a catalogued metric of no group (``nodes``) names none."""
    cat = _catalog.catalog()
    have = {cat.metric_group(str(m)) for m in metrics} - {_catalog.UNGROUPED}
    return [g for g in cat.group_order() if g in have]


def other_metrics(R: dict, figs: list[dict]) -> list[tuple[str, pd.DataFrame]]:
    """[(group, table)]: every metric of the results that no figure declares (the exact
    names in its ``metrics``) and the report does not show (SHOWN_BY_REPORT, the resize
    metrics), under its catalog group (catalog.Catalog.metric_group), groups in the
    catalog's order; so a new metric shows up with no new figure, whatever its name. One
    row per setting, one column per metric: the step-0 mean at the reference n (else the
    closest), or, for metrics written only after events, their mean over the events."""
    S = _labelled(R)
    if S.empty:
        return []
    drawn = set(SHOWN_BY_REPORT) | set(resize_metrics(S["metric"].unique()))
    for e in figs:
        drawn.update(e.get("metrics") or [])
    cat = _catalog.catalog()
    left = sorted(m for m in S["metric"].unique() if m not in drawn)
    n_ref = reference_n(S)
    out = {g: {} for g in cat.group_order()}
    for m in left:
        d = S[S["metric"] == m]
        d0 = d[d["step"] == 0] if (d["step"] == 0).any() else d
        d0 = d0.assign(_d=[abs(math.log(max(n, 1) / max(n_ref, 1))) for n in d0["n"]])
        near = d0[d0["_d"] == d0.groupby("label")["_d"].transform("min")]
        val = near.groupby("label")["mean"].mean()
        unit = str(d["unit"].dropna().iloc[0]) if d["unit"].notna().any() else ""
        out.setdefault(cat.metric_group(m), {})[f"{m} ({unit})" if unit else m] = val
    return [(g, pd.DataFrame(cols).applymap(_fmt_any)) for g, cols in out.items() if cols]


def _fmt_any(v) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return NA
    return f"{v:.4g}"


# --- 5. inputs -------------------------------------------------------------------------------

INPUT_COLUMNS = {
    "results": ["file", "run", "used", "shard", "cases", "algorithms", "n", "trials", "events",
                "metrics", "workload", "chsim", "git", "cpu", "threads", "started (UTC)",
                "wall (s)"],
    "tune": ["file", "algorithms", "n", "metrics", "trials", "settled"],
    "peers": ["file", "algorithms", "n", "cases", "cpu", "threads", "started (UTC)"],
    "benchmark": ["file", "algorithms", "n", "rows"],
}
KIND_TITLES = {"chsim-results": "results", "tune": "tune", "chsim-peers": "peers"}


def _clean(v):
    if v is None or (isinstance(v, float) and math.isnan(v)) or v == "":
        return "–"
    return v


def inputs(R: dict, tune=None, peers=None, bench=None) -> list[tuple[str, pd.DataFrame]]:
    """[(kind, table)]: each kind of input with its own columns and no empty cells."""
    frames = [R.get("inputs")] + [t["inputs"] for t in (tune, peers) if t is not None]
    rows = pd.concat([f for f in frames if f is not None and len(f)], ignore_index=True) \
        if any(f is not None and len(f) for f in frames) else pd.DataFrame()
    out = []
    if len(rows):
        rows = rows.assign(file=rows["file"].map(os.path.basename))
        for kind, title in KIND_TITLES.items():
            t = rows[rows["kind"] == kind]
            if len(t):
                cols = [c for c in INPUT_COLUMNS[title] if c in t]
                t = t[cols].rename(columns={"algorithms": "algorithm or profile"}
                                   if title == "tune" else {})
                if title == "tune":
                    t = t.rename(columns={"metrics": "target", "trials": "draws"})
                out.append((title, t.applymap(_clean)))
    if bench is not None and len(bench):
        b = bench.groupby("source").agg(algorithms=("algorithm", lambda a: ", ".join(sorted(set(a)))),
                                        n=("nodes", lambda n: _span(n)), rows=("nodes", "size"))
        out.append(("benchmark", b.reset_index().rename(columns={"source": "file"})))
    return out


def side_by_side(R: dict) -> _side.Table:
    """The side-by-side table (sidebyside.build)."""
    return _side.build(R)
