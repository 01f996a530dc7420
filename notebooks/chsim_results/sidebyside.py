# SPDX-License-Identifier: Apache-2.0
"""The report's side-by-side table: one row per algorithm setting the inputs compare, one
column per figure of merit, each at one reference node count.

Rows. A setting is an algorithm with its parameters (labels.py). A run that gives one
algorithm ``SWEEP_MIN`` or more settings sweeps its parameters (points per node x hasher):
those settings are summarised by one line under the table (and by their own figures), not
by rows, unless another run compares them with other algorithms. A row whose metric cells
are all "n/a" is left out. Rows follow the registry's order, then the settings' order
(style.py); the page sorts by any column.

Columns come from ``COLUMNS``, a registry: a notebook or module adds one with
``@column(name, needs=...)`` over a function ``(ctx, setting) -> Cell | None``; ``None``
shows as "n/a". ``Context.pick`` finds a metric's value for a setting at the reference n
(else the closest n, said in the cell), and names the runs only where two runs disagree.
"""
from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from . import catalog as _catalog
from . import style
from .labels import algorithm_of, case_label
from .tables import column as _col

SWEEP_MIN = 4
NA = "n/a"
RESIZE_PATTERN = re.compile(r"(?:^|[_.])(?:add|remove|resize)(?:$|[_.])", re.I)


@dataclass
class Cell:
    """One table cell: the text shown, the number it sorts by, where it came from."""
    text: str
    value: float | None = None
    meta: dict = field(default_factory=dict)


@dataclass
class Column:
    name: str
    cell: Callable
    needs: str        # what would supply it, said when no row has it
    about: str = ""   # a note under the table when some row has it
    metric: bool = True  # a figure of merit (a row with none of them is left out)
    shows: tuple = ()    # the exact metric names its cells show (the report's generic table
                         # leaves them out)


COLUMNS: list[Column] = []


def column(name: str, needs: str, about: str = "", metric: bool = True,
           before: str | None = None, shows=()):
    """Registers a column computed by the decorated ``fn(ctx, setting) -> Cell | None``,
    at the end or before the column named `before`; `shows`: the exact metric names its
    cells show."""
    def add(fn):
        col = Column(name, fn, needs, about, metric, tuple(shows))
        names = [c.name for c in COLUMNS]
        if name in names:
            COLUMNS[names.index(name)] = col
        elif before in names:
            COLUMNS.insert(names.index(before), col)
        else:
            COLUMNS.append(col)
        return fn
    return add


def resize_metrics(metrics) -> list[str]:
    """The throughput metrics that time an add, a remove or a resize."""
    return sorted(m for m in set(metrics) if str(m).startswith("throughput.")
                  and RESIZE_PATTERN.search(str(m).split(".", 1)[1]))


def reference_n(summary: pd.DataFrame) -> int | None:
    """The node count to compare algorithms at: among those measured for at least half as
    many settings as the best covered one, the closest to 100."""
    if summary.empty:
        return None
    per_n = summary.groupby("n")["setting" if "setting" in summary else "case_id"].nunique()
    cands = [int(n) for n, k in per_n.items() if 2 * k >= per_n.max()]
    return min(cands, key=lambda n: (abs(math.log(max(n, 1) / 100)), n))


def fmt(v, kind: str) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return NA
    if kind == "ratio":
        return f"{v:.3f}"
    if kind == "pct":
        return f"{v * 100:.2f}%"
    if kind == "bytes":
        return f"{v:,.0f}"
    return f"{v:.1f}" if v < 100 else f"{v:,.0f}"


def _distance(n, n_ref):
    return abs(math.log(max(float(n), 1.0) / max(n_ref, 1)))


def _agree(a, b) -> bool:
    """Two runs' values of one setting, metric and n agree: within either's 95% CI, else
    within 2% (deterministic metrics) or 25% (timings)."""
    rel = 0.02 if bool(a.get("deterministic", True)) else 0.25
    x, y = float(a["mean"]), float(b["mean"])
    half = max([abs(float(r["ci95_high"]) - float(r["mean"])) for r in (a, b)
                if r.get("ci95_high") is not None and r.get("ci95_high") == r.get("ci95_high")]
               or [0.0])
    return abs(x - y) <= max(half, rel * max(abs(x), abs(y), 1e-300))


@dataclass
class Context:
    """What the columns read: the summary and cases with their settings and labels, the
    inputs' catalog, the reference n."""
    S: pd.DataFrame
    cases: pd.DataFrame
    catalog: pd.DataFrame
    n_ref: int | None
    _cache: dict = field(default_factory=dict)

    @property
    def s0(self):
        return self.S[self.S["step"] == 0]

    def run_rank(self, metric) -> dict:
        """{run: rank} for `metric`: runs covering more settings first, so that the table
        compares most settings under the same conditions (workload, keys, trials)."""
        key = ("rank", metric)
        if key not in self._cache:
            f = self.s0[self.s0["metric"] == metric]
            cover = f.groupby("run")["setting"].nunique().sort_values(ascending=False,
                                                                       kind="stable")
            self._cache[key] = {r: i for i, r in enumerate(cover.index)}
        return self._cache[key]

    def pick(self, setting, metric, kind, frame=None, most=None) -> Cell | None:
        """The value of `metric` for `setting` at the reference n (else the closest), mean
        over trials, from the run with the most of column `most` if given (keys: the least
        sampling noise), then the run comparing the most settings, then the most trials;
        other runs with a value there are named when they disagree."""
        f = self.s0 if frame is None else frame
        rows = f[(f["setting"] == setting) & (f["metric"] == metric) & f["mean"].notna()]
        if rows.empty:
            return None
        rank = self.run_rank(metric)
        more = pd.to_numeric(rows[most], errors="coerce").fillna(0) if most in rows else 0
        rows = rows.assign(_d=[_distance(n, self.n_ref) for n in rows["n"]],
                           _r=[rank.get(r, len(rank)) for r in rows["run"]], _m=-more)
        rows = rows.sort_values(["_d", "_m", "_r", "trials", "run"],
                                ascending=[True, True, True, False, True], kind="stable")
        best = rows.iloc[0]
        same_n = rows[rows["n"] == best["n"]]
        if metric.startswith("sampled.") and "workload.keys" in same_n:
            same_n = same_n[same_n["workload.keys"] == best["workload.keys"]]  # same noise
        same_n = same_n.drop_duplicates("run")
        others = [r for _, r in same_n.iloc[1:].iterrows() if not _agree(best, r)]
        n = int(best["n"])
        text = fmt(float(best["mean"]), kind)
        if others:
            text += f" ({best['run']}; " + "; ".join(
                f"{r['run']}: {fmt(float(r['mean']), kind)}" for r in others[:2]) + ")"
        if n != self.n_ref:
            text += f" at n = {n:,}"
        meta = {"value": float(best["mean"]), "n": n, "metric": metric, "run": best["run"],
                "case_id": best["case_id"]}
        if others:
            meta["disagree"] = [{"run": r["run"], "value": float(r["mean"])} for r in others]
        return Cell(text, float(best["mean"]), meta)


# --- the columns ---------------------------------------------------------------------------

def _catalog_entry(ctx, setting):
    alg = json.loads(setting)[0]
    cat = ctx.catalog
    if len(cat) and alg in set(cat["name"]):
        return cat[cat["name"] == alg].iloc[0].to_dict()
    e = _catalog.catalog().entry("algorithms", alg)
    if e is None:
        return None
    return _catalog.algorithm_catalog([e]).iloc[0].to_dict()


@column("year", metric=False, needs="year: from the `algorithms` block chsim writes into "
        "result files, or from its catalog (chsim list --json); these inputs have neither")
def _year(ctx, setting):
    e = _catalog_entry(ctx, setting)
    if e is None:
        return None
    y = e.get("year")
    return Cell(str(int(y)), float(y)) if y is not None and y == y else Cell("–", None)


@column("max/mean", needs="max/mean: needs the balance metric (scenario \"metrics\": "
        "[\"balance\"])", about="max/mean: the hottest node over the mean load; exact "
        "shares (structural) where the algorithm has them, else sampled from the run with the "
        "most keys (marked; skewed: keys of unequal popularity; at the noise floor: no better "
        "than the sampling noise of that many keys shows, see the sampling floor answer)",
        shows=["structural.max_over_mean", "sampled.max_over_mean",
               "sampled.floor_max_over_mean"])
def _max_over_mean(ctx, setting):
    cell = ctx.pick(setting, "structural.max_over_mean", "ratio")
    if cell is not None:
        return cell
    s0 = ctx.s0
    skewed = _col(s0, "workload.skewed", False).fillna(False).astype(bool)
    for frame, mark in ((s0[~skewed], "sampled"), (s0[skewed], "sampled, skewed keys")):
        cell = ctx.pick(setting, "sampled.max_over_mean", "ratio", frame, most="workload.keys")
        if cell is not None:
            floor = s0[(s0["case_id"] == cell.meta["case_id"]) & (s0["run"] == cell.meta["run"])
                       & (s0["metric"] == "sampled.floor_max_over_mean")]["mean"]
            if len(floor) and cell.value <= 1.02 * float(floor.iloc[0]):
                mark += ", at the noise floor"
            cell.text += f" ({mark})"
            return cell
    return None


def per_event(ctx, setting, metric, kind) -> Cell | None:
    """The mean of `metric` over the events (steps 1 and on) of one case of `setting`: the
    closest to n_ref, then the longest timeline, then the most trials."""
    S = ctx.S
    ex = S[(S["setting"] == setting) & (S["metric"] == metric) & (S["step"] >= 1)
           & S["mean"].notna()]
    if ex.empty:
        return None
    by_case = ex.groupby(["run", "case_id", "n"]).agg(
        steps=("step", "nunique"), trials=("trials", "max")).reset_index()
    by_case["_d"] = [_distance(n, ctx.n_ref) for n in by_case["n"]]
    best = by_case.sort_values(["_d", "steps", "trials", "run", "case_id"],
                               ascending=[True, False, False, True, True], kind="stable").iloc[0]
    e = ex[(ex["run"] == best["run"]) & (ex["case_id"] == best["case_id"])]
    val = float(e["mean"].mean())
    text = fmt(val, kind) + (f" at n = {int(best['n']):,}" if int(best["n"]) != ctx.n_ref else "")
    return Cell(text, val, {"value": val, "n": int(best["n"]), "run": best["run"],
                            "case_id": best["case_id"], "events": int(len(e)),
                            "metric": metric})


@column("excess churn", needs="excess churn: needs an events timeline with the remap metric",
        shows=["remap.excess"])
def _excess(ctx, setting):
    return per_event(ctx, setting, "remap.excess", "pct")


@column("extra misses per event", needs="extra misses per event: needs the cache metric with "
        "events placed on the request stream (scenario \"metrics\": [\"cache\"])",
        about="extra misses per event: reads that missed beyond those of an undisturbed twin "
        "(the same stream and caches, no events), mean over the timeline's events "
        "(cache.extra_misses; docs/cache.md)", shows=["cache.extra_misses"])
def _extra_misses(ctx, setting):
    return per_event(ctx, setting, "cache.extra_misses", "count")


@column("ns per lookup", needs="ns per lookup: needs the throughput metric",
        about="ns per lookup: key hash precomputed, independent lookups, one thread "
        "(throughput.ns_per_lookup)", shows=["throughput.ns_per_lookup"])
def _lookup(ctx, setting):
    return ctx.pick(setting, "throughput.ns_per_lookup", "ns")


@column("ns per resize", needs="ns per resize: needs resize-time metrics (throughput.* rows "
        "naming add / remove / resize, e.g. throughput.ns_per_add and throughput.ns_per_remove)")
def _resize(ctx, setting):
    parts, metas = [], {}
    for m in resize_metrics(ctx.s0["metric"].unique()):
        c = ctx.pick(setting, m, "ns")
        if c is None:
            continue
        name = m.split(".", 1)[1]
        word = next((w for w in ("add", "remove") if re.search(rf"(?:^|[_.]){w}(?:$|[_.])",
                                                               name, re.I)), name)
        parts.append(f"{word} {c.text}")
        metas[m] = c.meta
    if not parts:
        return None
    first = next(iter(metas.values()))
    return Cell(" / ".join(parts), first["value"], {"parts": metas})


@column("bytes per node", needs="bytes per node: needs the throughput metric",
        shows=["throughput.memory_bytes_per_node"])
def _bytes(ctx, setting):
    return ctx.pick(setting, "throughput.memory_bytes_per_node", "bytes")


@column("supported removals", metric=False, needs="supported removals: from the `algorithms` "
        "block (capabilities), or observed when the timeline removes nodes; these inputs "
        "have neither")
def _removals(ctx, setting):
    e = _catalog_entry(ctx, setting)
    if e is not None and isinstance(e.get("removals"), str):
        return Cell(e["removals"])
    text = _removals_observed(ctx.cases[ctx.cases["setting"] == setting], ctx.S)
    return Cell(text) if text else None


def _removals_observed(cases: pd.DataFrame, summary: pd.DataFrame) -> str | None:
    """What the run showed about removals for one setting's cases, or None."""
    skipped = cases[_col(cases, "status", "ok") == "skipped"]
    if len(skipped):
        return f"refused in this run ({str(skipped['message'].iloc[0])[:80]})"
    steps = cases["steps"].dropna() if "steps" in cases else pd.Series(dtype=object)
    removal_steps = sorted({i for s in steps if isinstance(s, list)
                            for i, e in enumerate(s) if i and str(e).startswith(("remove", "fail"))})
    if not removal_steps:
        return None
    rb = summary[(summary["metric"] == "remap.rebuilt") & summary["case_id"].isin(cases["case_id"])
                 & summary["step"].isin(removal_steps)]
    if len(rb) and (rb["mean"] > 0).any():
        return "last added only: others rebuilt (observed)"
    return "any node (observed)" if len(rb) else None


# --- rows ----------------------------------------------------------------------------------

def sweeps(cases: pd.DataFrame) -> dict:
    """{(run, algorithm): [settings]} of the runs that sweep an algorithm's parameters."""
    g = cases.groupby(["run", "algorithm"])["setting"].unique()
    return {k: list(v) for k, v in g.items() if len(v) >= SWEEP_MIN}


def compared(cases: pd.DataFrame) -> list[str]:
    """The settings the table shows: those some run compares outside a sweep, in the
    registry's order, then their own."""
    swept = sweeps(cases)
    inside = {(r, a) for r, a in swept}
    keep = cases[[(r, a) not in inside for r, a in zip(cases["run"], cases["algorithm"])]]
    order = keep.assign(label=case_label(keep)).drop_duplicates("setting")
    return [s for _, _, s in sorted(
        ((style.algorithm_index(a), style.order_key(a, l), s)
         for a, l, s in zip(order["algorithm"], order["label"], order["setting"])),
        key=lambda x: (x[0], x[1]))]


def _sweep_line(ctx, run, alg, settings, shown) -> str:
    params = [json.loads(s)[1] for s in settings]
    varied, seen = [], []
    for k in sorted({k for p in params for k in p}):
        vals = sorted({p.get(k) for p in params if p.get(k) is not None}, key=str)
        col = [str(p.get(k)) for p in params]
        if len(vals) < 2 or col in seen:  # fixed, or the same as another (key_hasher = hasher)
            continue
        seen.append(col)
        nums = [v for v in vals if isinstance(v, (int, float))]
        varied.append(f"{k} {min(nums):g}..{max(nums):g}" if len(nums) == len(vals)
                      else f"{k} {', '.join(map(str, vals))}")
    line = (f"{alg}: {len(settings)} settings in {run} ({'; '.join(varied) or 'parameters'})"
            f", summarised by its figures")
    cells = [(s, _max_over_mean(ctx, s)) for s in settings]
    cells = [(s, c) for s, c in cells if c is not None and c.value is not None]
    if len(cells) >= 2:
        lab = dict(zip(ctx.cases["setting"], case_label(ctx.cases)))
        lo, hi = min(cells, key=lambda x: x[1].value), max(cells, key=lambda x: x[1].value)
        line += (f"; max/mean from {lo[1].text} ({lab[lo[0]]}) to {hi[1].text} ({lab[hi[0]]})")
    shared = [s for s in settings if s in shown]
    if shared:
        line += f"; {len(shared)} of them also in the table"
    return line + "."


@dataclass
class Table:
    rows: pd.DataFrame      # the text shown: algorithm, then one column per Column
    cells: dict             # label -> column -> Cell
    colors: dict            # label -> colour
    notes: list
    sweep_lines: list
    dropped: list           # labels left out for having no metric cell
    n_ref: int | None


def build(T: dict) -> Table:
    """The side-by-side table of the loaded results `T` (load.load_all)."""
    S, cases = T["summary"], T["cases"]
    cat = T.get("algorithms", pd.DataFrame())
    if S.empty or cases.empty:
        return Table(pd.DataFrame(columns=["algorithm"] + [c.name for c in COLUMNS]), {}, {},
                     ["no chsim result files among the inputs"], [], [], None)
    cases = cases.assign(label=case_label(cases))
    ctx = Context(S.assign(label=case_label(S)), cases, cat, reference_n(S))
    labels = dict(zip(cases["setting"], cases["label"]))
    shown = compared(cases)
    rows, cells, dropped = [], {}, []
    for s in shown:
        lab = labels[s]
        got = {c.name: c.cell(ctx, s) for c in COLUMNS}
        if not any(got[c.name] is not None for c in COLUMNS if c.metric):
            dropped.append(lab)
            continue
        cells[lab] = got
        rows.append({"algorithm": lab} | {k: (v.text if v is not None else NA)
                                          for k, v in got.items()})
    table = pd.DataFrame(rows, columns=["algorithm"] + [c.name for c in COLUMNS])
    # With no row, no column is "left out" for want of its data: the rows are.
    empty = [c.name for c in COLUMNS if (table[c.name] == NA).all()] if rows else []
    lines = [_sweep_line(ctx, run, alg, ss, set(shown)) for (run, alg), ss in
             sorted(sweeps(cases).items(), key=lambda kv: (style.algorithm_index(kv[0][1]),
                                                           kv[0][0]))]
    if rows:
        notes = [f"At n = {ctx.n_ref:,} (of the node counts most settings share, the closest "
                 "to 100); a cell from another n says so. Means over trials; where two runs "
                 "disagree, the cell names them."]
        notes += [c.about for c in COLUMNS if c.about and c.name not in empty]
        notes += [f"Column left out, {c.needs}" for c in COLUMNS if c.name in empty]
    else:
        notes = ["no setting has a figure of merit; what supplies one: " +
                 "; ".join(c.needs for c in COLUMNS if c.metric)]
    if dropped:
        notes.append(f"Left out, having no figure of merit here: {', '.join(dropped)}.")
    table = table.drop(columns=empty) if len(table) else table
    return Table(table, cells, {lab: style.color(lab) for lab in table["algorithm"]}, notes,
                 lines, dropped, ctx.n_ref)


# --- HTML ----------------------------------------------------------------------------------

SORT_SCRIPT = """<script>
document.querySelectorAll('table.chsim-sortable').forEach(function (t) {
  t.querySelectorAll('th').forEach(function (th, i) {
    th.style.cursor = 'pointer'; th.title = 'sort by this column';
    th.addEventListener('click', function () {
      var up = th.dataset.up !== '1'; th.dataset.up = up ? '1' : '0';
      var key = function (r) { return r.cells[i].dataset.sort; };
      Array.from(t.tBodies[0].rows).sort(function (a, b) {
        var x = key(a), y = key(b);
        if (x === '' || y === '') return (x === '') - (y === '');
        var d = isNaN(x) || isNaN(y) ? x.localeCompare(y) : x - y;
        return up ? d : -d;
      }).forEach(function (r) { t.tBodies[0].appendChild(r); });
    });
  });
});
</script>"""


def to_html(table: Table) -> str:
    """The table as HTML, sortable by any column (inline script, no external file)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.rows.columns)
    body = []
    for _, r in table.rows.iterrows():
        lab = r["algorithm"]
        cells = table.cells.get(lab, {})
        tds = [f'<td data-sort="{html.escape(lab)}" style="text-align:left;white-space:nowrap">'
               f'<span style="display:inline-block;width:0.9em;height:0.9em;margin-right:0.4em;'
               f'vertical-align:middle;background:{table.colors.get(lab, "#999")}"></span>'
               f"{html.escape(lab)}</td>"]
        for c in table.rows.columns[1:]:
            cell = cells.get(c)
            key = "" if cell is None else (f"{cell.value:.17g}" if cell.value is not None
                                          else cell.text)
            tds.append(f'<td data-sort="{html.escape(key)}">{html.escape(str(r[c]))}</td>')
        body.append("<tr>" + "".join(tds) + "</tr>")
    return (f'<table class="chsim-sortable"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(body) + "</tbody></table>" + SORT_SCRIPT)


def meta(table: Table) -> dict:
    """The numbers behind the cells, for report.json and tests: n_ref and, per label and
    column, the value and where it came from."""
    vals = {}
    for lab, cols in table.cells.items():
        v = {}
        for name, cell in cols.items():
            if cell is None or not cell.meta:
                continue
            if "parts" in cell.meta:
                v.update(cell.meta["parts"])
            else:
                v[name] = cell.meta
        vals[lab] = v
    return {"n_ref": table.n_ref, "values": vals, "colors": table.colors,
            "sweeps": table.sweep_lines, "dropped": table.dropped}
