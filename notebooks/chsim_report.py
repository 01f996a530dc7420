"""The report's headline answers, computed from whatever result files it is given.

``headline_table(T)`` lists every algorithm setting of the loaded results (``T`` from
``chsim_results.load_all``) side by side: year, max/mean, excess churn, ns per lookup, ns per
resize, bytes per node and supported removals, each at one reference node count. A column
whose data the inputs lack is "n/a" and a note says what would supply it. Sources:

- max/mean: ``structural.max_over_mean`` at step 0 (exact shares), else
  ``sampled.max_over_mean`` (uniform, sequential or file keys preferred), mean of trials;
- excess churn: ``remap.excess`` averaged over the events of the label's timeline (the run
  with the most events);
- ns per lookup: ``throughput.ns_per_lookup`` (key hash precomputed, independent lookups);
- ns per resize: every ``throughput.*`` metric with add, remove or resize as a word of its
  name (``RESIZE_PATTERN``: ``throughput.ns_per_add``, ``throughput.ns_per_remove``,
  ``throughput.resize_ms``; not ``..._removed_10pct``);
- bytes per node: ``throughput.memory_bytes_per_node``;
- year and supported removals: the result file's ``algorithms`` catalog (``year``,
  ``capabilities``); without it, removals as observed in the run (a removal that needed
  ``on_unsupported: rebuild``, a case skipped, or a removal done in place).
"""
from __future__ import annotations

import math
import re

import pandas as pd

import chsim_results as cr

RESIZE_PATTERN = re.compile(r"(?:^|[_.])(?:add|remove|resize)(?:$|[_.])", re.I)
COLUMNS = ["algorithm", "year", "max/mean", "excess churn", "ns per lookup", "ns per resize",
           "bytes per node", "supported removals"]
NA = "n/a"


def resize_metrics(metrics) -> list[str]:
    """The throughput metrics that time an add, a remove or a resize."""
    return sorted(m for m in set(metrics) if str(m).startswith("throughput.")
                  and RESIZE_PATTERN.search(str(m).split(".", 1)[1]))


def reference_n(summary: pd.DataFrame) -> int | None:
    """The node count to compare algorithms at: among those measured for at least half as
    many algorithm settings as the best covered one, the closest to 100."""
    if summary.empty:
        return None
    per_n = summary.assign(label=cr.case_label(summary)).groupby("n")["label"].nunique()
    cands = [int(n) for n, k in per_n.items() if 2 * k >= per_n.max()]
    return min(cands, key=lambda n: (abs(math.log(max(n, 1) / 100)), n))


def _at_n(df: pd.DataFrame, n_ref: int):
    """The row of `df` (one label, one metric) at n_ref, else at the closest n; with the n."""
    if df.empty:
        return None, None
    dist = (df["n"].clip(lower=1).astype(float) / max(n_ref, 1)).map(lambda r: abs(math.log(r)))
    df = df.assign(_d=dist).sort_values(["_d", "trials"], ascending=[True, False], kind="stable")
    r = df.iloc[0]
    return r, int(r["n"])


def _fmt(v, kind):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return NA
    if kind == "ratio":
        return f"{v:.3f}"
    if kind == "pct":
        return f"{v * 100:.2f}%"
    if kind == "bytes":
        return f"{v:,.0f}"
    return f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def _removals_observed(cases: pd.DataFrame, summary: pd.DataFrame) -> str | None:
    """What the run showed about removals for one label's cases, or None."""
    skipped = cases[cr.column(cases, "status", "ok") == "skipped"]
    if len(skipped):
        msg = str(skipped["message"].iloc[0])[:80]
        return f"refused in this run ({msg})"
    steps = cases["steps"].dropna() if "steps" in cases else pd.Series(dtype=object)
    removal_steps = sorted({i for s in steps if isinstance(s, list)
                            for i, e in enumerate(s) if i and str(e).startswith(("remove", "fail"))})
    if not removal_steps:
        return None
    rb = summary[(summary["metric"] == "remap.rebuilt") & summary["case_id"].isin(cases["case_id"])
                 & summary["step"].isin(removal_steps)]
    if len(rb) and (rb["mean"] > 0).any():
        return "last added only: others rebuilt (observed)"
    if len(rb):
        return "any node (observed)"
    return None


def headline_table(T: dict) -> tuple[pd.DataFrame, list[str], dict]:
    """(table, notes, meta): one row per algorithm setting of the inputs; see the module
    docstring for the sources. meta holds the reference n and, per column, the raw numbers
    and where they came from (for tests and report.json)."""
    S, cases, cat = T["summary"], T["cases"], T.get("algorithms", pd.DataFrame())
    notes: list[str] = []
    if S.empty:
        return pd.DataFrame(columns=COLUMNS), ["no chsim result files among the inputs"], {}
    S = S.assign(label=cr.case_label(S))
    cases = cases.assign(label=cr.case_label(cases))
    n_ref = reference_n(S)
    s0 = S[S["step"] == 0]
    wl = cr.column(s0, "workload.type", "uniform")
    labels = list(dict.fromkeys(cases.sort_values(["run", "case_index"])["label"]))
    catalog = cat.set_index("name") if len(cat) else pd.DataFrame()
    resize = resize_metrics(s0["metric"].unique())  # the step-0 medians, not the per-event rows
    meta = {"n_ref": n_ref, "values": {}, "resize_metrics": resize}
    rows = []
    for lab in labels:
        alg = cases.loc[cases["label"] == lab, "algorithm"].iloc[0]
        row, raw = {"algorithm": lab}, {}
        away = []

        def take(metric, frame, kind, col):
            r, n = _at_n(frame[(frame["label"] == lab) & (frame["metric"] == metric)], n_ref)
            if r is None:
                return None
            raw[col] = {"value": float(r["mean"]), "n": n, "metric": metric, "run": r["run"],
                        "case_id": r["case_id"]}
            if n != n_ref:
                away.append(f"{col} at n = {n}")
            return _fmt(float(r["mean"]), kind)

        mm = take("structural.max_over_mean", s0, "ratio", "max/mean")
        if mm is None:  # sampled: from uniform, sequential or file keys if any, else Zipf
            mm = take("sampled.max_over_mean", s0[wl != "zipf"], "ratio", "max/mean")
            mm = mm + " (sampled)" if mm is not None else None
        if mm is None:
            mm = take("sampled.max_over_mean", s0[wl == "zipf"], "ratio", "max/mean")
            mm = mm + " (sampled, Zipf)" if mm is not None else None
        row["max/mean"] = mm or NA
        ex = S[(S["label"] == lab) & (S["metric"] == "remap.excess") & (S["step"] >= 1)]
        if len(ex):
            # One case: closest to n_ref, then the longest timeline, then the most trials.
            by_case = ex.groupby(["run", "case_id", "n"]).agg(
                steps=("step", "nunique"), trials=("trials", "max")).reset_index()
            by_case["_d"] = (by_case["n"].clip(lower=1) / max(n_ref, 1)).map(
                lambda r: abs(math.log(r)))
            best = by_case.sort_values(["_d", "steps", "trials", "run", "case_id"],
                                       ascending=[True, False, False, True, True],
                                       kind="stable").iloc[0]
            e = ex[(ex["run"] == best["run"]) & (ex["case_id"] == best["case_id"])]
            val = float(e["mean"].mean())
            raw["excess churn"] = {"value": val, "n": int(best["n"]), "run": best["run"],
                                   "case_id": best["case_id"], "events": int(len(e)),
                                   "metric": "remap.excess"}
            if int(best["n"]) != n_ref:
                away.append(f"excess churn at n = {int(best['n'])}")
            row["excess churn"] = _fmt(val, "pct")
        else:
            row["excess churn"] = NA
        row["ns per lookup"] = take("throughput.ns_per_lookup", s0, "ns", "ns per lookup") or NA
        parts = []
        for m in resize:
            v = take(m, s0, "ns", m)
            if v is not None:
                name = m.split(".", 1)[1]
                word = lambda w: re.search(rf"(?:^|[_.]){w}(?:$|[_.])", name, re.I)
                what = "add" if word("add") else "remove" if word("remove") else name
                parts.append(f"{what} {v}")
        row["ns per resize"] = " / ".join(parts) or NA
        row["bytes per node"] = take("throughput.memory_bytes_per_node", s0, "bytes",
                                     "bytes per node") or NA
        year, removals = None, None
        if len(catalog) and alg in catalog.index:
            y = catalog.loc[alg, "year"]
            year = str(int(y)) if y is not None and y == y else "–"
            removals = catalog.loc[alg, "removals"]
            removals = removals if isinstance(removals, str) else None
        if removals is None:
            removals = _removals_observed(cases[cases["label"] == lab], S)
        row["year"] = year or NA
        row["supported removals"] = removals or NA
        if away:
            row["algorithm"] = f"{lab} [{'; '.join(away)}]"
        rows.append(row)
        meta["values"][lab] = raw
    table = pd.DataFrame(rows, columns=COLUMNS)
    notes.append(f"Figures at n = {n_ref} (of the node counts most settings share, the closest "
                 "to 100); where a setting lacks it, the closest n, named in brackets. Means "
                 "over trials.")
    need = {
        "year": "year: from the `algorithms` block chsim writes into result files (its "
                "algorithm catalog); these files have none: rerun them with a chsim that "
                "writes it",
        "max/mean": "max/mean: needs the balance metric (scenario \"metrics\": [\"balance\"])",
        "excess churn": "excess churn: needs an events timeline with the remap metric",
        "ns per lookup": "ns per lookup: needs the throughput metric",
        "ns per resize": "ns per resize: needs resize-time metrics (throughput.* rows naming "
                         "add / remove / resize, e.g. throughput.ns_per_add and "
                         "throughput.ns_per_remove)",
        "bytes per node": "bytes per node: needs the throughput metric",
        "supported removals": "supported removals: from the `algorithms` block (capabilities), "
                              "or observed when the timeline removes nodes; these inputs have "
                              "neither",
    }
    for col, text in need.items():
        if (table[col] == NA).all():
            notes.append(text)
        elif (table[col] == NA).any() and col not in ("year", "supported removals"):
            notes.append(f"{col}: n/a where a setting has no such rows")
    if (table["max/mean"].str.endswith("(sampled)")).any():
        notes.append("max/mean: exact shares (structural) where the algorithm has them, "
                     "else sampled from the workload's keys (marked)")
    if (table["excess churn"] != NA).any():
        runs = sorted({v["excess churn"]["run"] for v in meta["values"].values()
                       if "excess churn" in v})
        notes.append("excess churn: keys moved beyond the least any scheme must move, mean "
                     f"per event over the timeline of {', '.join(map(str, runs))}")
    if (table["ns per lookup"] != NA).any():
        notes.append("ns per lookup: key hash precomputed, independent lookups, one thread "
                     "(throughput.ns_per_lookup)")
    if len(catalog) == 0 and (table["supported removals"] != NA).any():
        notes.append("supported removals: observed in these runs (no `algorithms` block)")
    return table, notes, meta
