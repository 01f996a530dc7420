"""Loads chsim result files into pandas tables, plus the theory the notebooks draw.

One entry point, ``load(path)``, reads any file chsim writes and returns a ``ResultFile``
whose tables are pandas DataFrames built with ``pandas.json_normalize`` (nested objects such
as ``params`` become dotted columns, e.g. ``params.hasher``):

=================  ==========================  ============================================
file kind          written by                  tables
=================  ==========================  ============================================
``chsim-results``  ``chsim run`` / ``merge``   cases, rows, summary, nodes, transitions
``tune``           ``chsim tune --json``       request (1 row), answer (1 row), estimates
``chsim-peers``    ``bench/peers/run``         rows, comparisons, agreement, targets
=================  ==========================  ============================================

Every kind carries a format version (``schema_version``; peers: ``schema`` =
``chsim-peers/N``). The loader reads only the versions in ``SUPPORTED`` and refuses any other
with ``UnsupportedResultFile`` naming the file, the version found and the versions it reads:
a newer chsim wrote the file and this module must learn the new format first (the field
meanings are in results/README.md).

``load_all(spec, kind)`` accepts a file, a directory (every ``*.json`` in it, recursively,
of the wanted kind; files of other kinds are skipped), a glob, or several of those joined by
``,`` or ``:``; it concatenates the tables and adds a ``source`` column.

Paths: the notebooks find their inputs through environment variables (``input_spec``),
defaulting under ``results/`` of this checkout, and write figures to ``figure_dir()``
(``CHSIM_FIGURES_DIR``, default ``$CHSIM_RESULTS_DIR/figures``).

Theory (DESIGN.md section 3): a node of a ring with v random points owns a share whose ratio
to the mean is about Gamma(v, 1/v); by Wilson & Hilferty (1931) (X)^(1/3) ~ Normal(1 - a,
a) with a = 1/(9v). ``wh_quantile`` gives its quantiles, ``max_ratio_quantile`` those of the
largest of n such nodes (treated as independent), ``theory_cv``/``theory_max_over_mean`` the
closed forms chsim also writes as ``theory.*`` rows.
"""
from __future__ import annotations

import glob as _glob
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

import pandas as pd

# kind -> format versions this module reads.
SUPPORTED = {"chsim-results": (1,), "tune": (1,), "chsim-peers": (1,)}

ROOT = Path(__file__).resolve().parent.parent


class UnsupportedResultFile(ValueError):
    """A file this module cannot read: unknown kind or unsupported format version."""


@dataclass
class ResultFile:
    path: str
    kind: str
    version: int
    doc: dict
    tables: dict = field(default_factory=dict)

    def __getattr__(self, name):
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(f"{self.kind} file {self.path} has no table '{name}' "
                             f"(tables: {', '.join(tables) or 'none'})")

    @property
    def provenance(self) -> dict:
        return self.doc.get("provenance", {})


def _kind_and_version(doc, path):
    if not isinstance(doc, dict):
        raise UnsupportedResultFile(f"{path}: /: found a JSON {type(doc).__name__}; accepted: "
                                    "an object written by chsim run, chsim tune or bench/peers")
    if "schema" in doc and isinstance(doc["schema"], str) and "/" in doc["schema"]:
        kind, _, ver = doc["schema"].partition("/")
        pointer = "/schema"
    else:
        kind, ver, pointer = doc.get("kind"), doc.get("schema_version"), "/schema_version"
    if kind not in SUPPORTED:
        raise UnsupportedResultFile(
            f"{path}: /kind: found {json.dumps(kind)}; accepted: "
            + ", ".join(json.dumps(k) for k in SUPPORTED))
    if pointer == "/schema":  # "chsim-peers/1": the version is text
        version = int(ver) if ver.isdigit() else None
    else:  # a JSON integer, not a string, float or boolean
        version = ver if isinstance(ver, int) and not isinstance(ver, bool) else None
    if version not in SUPPORTED[kind]:
        raise UnsupportedResultFile(
            f"{path}: {pointer}: found {json.dumps(ver)}; this loader reads {kind} format "
            f"version(s) {', '.join(map(str, SUPPORTED[kind]))} only. The file was written by "
            "a different chsim; update notebooks/chsim_results.py (results/README.md "
            "documents the format) or rerun the producer of this checkout.")
    return kind, version


def _table(records, **kw):
    if not records:
        return pd.DataFrame()
    return pd.json_normalize(records, **kw)


def parse(doc: dict, path: str = "<memory>") -> ResultFile:
    """Turns a parsed result document into a ResultFile (raises UnsupportedResultFile)."""
    kind, version = _kind_and_version(doc, path)
    rf = ResultFile(path=str(path), kind=kind, version=version, doc=doc)
    t = rf.tables
    if kind == "chsim-results":
        for name in ("cases", "rows", "summary", "nodes", "transitions"):
            if name not in doc or not isinstance(doc[name], list):
                raise UnsupportedResultFile(f"{path}: /{name}: missing or not an array; "
                                            "accepted: a chsim-results file (results/README.md)")
            t[name] = _table(doc[name])
        scen = doc.get("scenario", {})
        t["cases"]["scenario"] = scen.get("name", "")
        for name in ("rows", "summary"):
            if len(t[name]):
                t[name]["scenario"] = scen.get("name", "")
        # Rows and summary get the case's workload; per-node rows carry only the case, so
        # give them the algorithm, its parameters and the workload too.
        wl = [c for c in t["cases"].columns if c.startswith("workload.")]
        for name in ("rows", "summary"):
            if len(t[name]) and wl:
                t[name] = t[name].merge(t["cases"][["case_index"] + wl], on="case_index",
                                        how="left")
        if len(t["nodes"]) and len(t["cases"]):
            keep = [c for c in t["cases"].columns
                    if c in ("case_index", "algorithm", "n") or c.startswith("params.")
                    or c.startswith("workload.") or c.startswith("axes.")]
            t["nodes"] = t["nodes"].merge(t["cases"][keep], on="case_index", how="left")
    elif kind == "tune":
        t["request"] = _table([doc.get("request", {})])
        t["answer"] = _table([doc.get("answer", {})])
        for k, v in doc.get("request", {}).items():
            if not isinstance(v, (dict, list)):
                t["answer"]["request." + k] = v
        est = _table(doc.get("estimates", []))
        if len(est):
            for k, v in doc.get("request", {}).items():
                if not isinstance(v, (dict, list)):
                    est["request." + k] = v
        t["estimates"] = est
    else:  # chsim-peers
        for name in ("rows", "comparisons", "agreement", "targets"):
            t[name] = _table([{k: v for k, v in r.items() if k != "samples"}
                              for r in doc.get(name, [])])
    return rf


def load(path) -> ResultFile:
    """Reads one result file of any supported kind."""
    path = str(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such result file (run the scenario first, e.g. "
                                "scripts/run-suite, or point the environment variable at one)")
    except json.JSONDecodeError as e:
        raise UnsupportedResultFile(f"{path}: line {e.lineno}: not valid JSON ({e.msg})")
    return parse(doc, path)


def _expand(spec: str) -> list[str]:
    out = []
    for part in [p for chunk in str(spec).split(",") for p in chunk.split(":")]:
        part = part.strip()
        if not part:
            continue
        if os.path.isdir(part):
            out += sorted(str(p) for p in Path(part).rglob("*.json")
                          if "figures" not in p.parts and not p.name.startswith("."))
        elif any(ch in part for ch in "*?["):
            out += sorted(_glob.glob(part, recursive=True))
        else:
            out.append(part)
    return out


def load_all(spec, kind: str = "chsim-results") -> dict:
    """Loads every file of `kind` named by `spec`; returns {table: concatenated DataFrame}.

    A file named explicitly must be of `kind`; files found by directory or glob that are of
    another kind (or are not chsim files at all) are skipped. Raises FileNotFoundError when
    nothing of `kind` is found.
    """
    files = []
    explicit = set()
    for part in str(spec).replace(":", ",").split(","):
        part = part.strip()
        if part and not os.path.isdir(part) and not any(ch in part for ch in "*?["):
            explicit.add(part)
    for p in _expand(spec):
        if p in explicit:
            rf = load(p)
            if rf.kind != kind:
                raise UnsupportedResultFile(f"{p}: /kind: found {json.dumps(rf.kind)}; "
                                            f"accepted here: {json.dumps(kind)}")
        else:
            try:
                rf = load(p)
            except UnsupportedResultFile as e:
                if "/schema_version" in str(e) or "/schema:" in str(e):
                    raise  # one of ours, but a version we cannot read: say so
                continue
            if rf.kind != kind:
                continue
        files.append(rf)
    if not files:
        raise FileNotFoundError(f"no {kind} file in '{spec}'")
    tables = {}
    for rf in files:
        for name, df in rf.tables.items():
            df = df.copy()
            df["source"] = os.path.basename(rf.path)
            tables.setdefault(name, []).append(df)
    out = {name: pd.concat(dfs, ignore_index=True) for name, dfs in tables.items()}
    out["files"] = files
    return out


# --- paths -------------------------------------------------------------------------------

def results_dir() -> Path:
    return Path(os.environ.get("CHSIM_RESULTS_DIR", ROOT / "results"))


def input_spec(var: str, default: str | None = None) -> str:
    """The input named by environment variable `var`, else `default` under results_dir()
    (or results_dir() itself)."""
    v = os.environ.get(var)
    if v:
        return v
    return str(results_dir() / default) if default else str(results_dir())


def figure_dir() -> Path:
    d = Path(os.environ.get("CHSIM_FIGURES_DIR", results_dir() / "figures"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def save(fig, name: str) -> Path:
    """Saves `fig` as figure_dir()/name.png (150 dpi, no timestamp metadata)."""
    p = figure_dir() / f"{name}.png"
    fig.savefig(p, dpi=150, bbox_inches="tight", metadata={"Software": None})
    return p


# --- table helpers -----------------------------------------------------------------------

def case_label(df: pd.DataFrame) -> pd.Series:
    """A short name per row: algorithm plus its distinguishing parameters."""
    def one(r):
        a = r.get("algorithm", "?")
        parts = []
        for k in ("params.profile", "params.hasher", "params.points_per_node", "params.table_size",
                  "params.probes", "params.balance_factor"):
            v = r.get(k)
            if v is None or (isinstance(v, float) and math.isnan(v)):
                continue
            short = k.split(".", 1)[1].replace("points_per_node", "v").replace("table_size", "M")
            if short in ("profile", "hasher"):
                parts.append(str(v))
            else:
                parts.append(f"{short}={int(v) if float(v).is_integer() else v}")
        return f"{a}({', '.join(parts)})" if parts else a
    return df.apply(one, axis=1)


def natural_key(text: str):
    """Sort key that orders embedded numbers numerically (10.0.0.9 before 10.0.0.10)."""
    import re
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def metric(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """Rows (or summary rows) of one metric."""
    return df[df["metric"] == name].copy()


def wide(summary: pd.DataFrame, metrics, step: int = 0, value: str = "mean") -> pd.DataFrame:
    """Summary rows at `step` with one column per metric (its `value`: mean, ci95_low...)."""
    s = summary[(summary["step"] == step) & summary["metric"].isin(metrics)]
    idx = [c for c in s.columns if c in ("source", "case_id", "case_index", "algorithm", "n")
           or c.startswith("params.") or c.startswith("axes.")]
    return s.pivot_table(index=idx, columns="metric", values=value, dropna=False).reset_index()


# --- theory (DESIGN.md section 3) ---------------------------------------------------------

Z99 = NormalDist().inv_cdf(0.995)  # 2.5758...


def theory_cv(v):
    return 1.0 / math.sqrt(v)


def theory_max_over_mean(n, v):
    return 1.0 + math.sqrt(2.0 * math.log(max(n, 2)) / v)


def wh_quantile(v, q):
    """q-quantile of one node's share / mean with v points (Wilson-Hilferty on Gamma(v))."""
    a = 1.0 / (9.0 * v)
    return max(0.0, 1.0 - a + NormalDist().inv_cdf(q) * math.sqrt(a)) ** 3


def max_ratio_quantile(n, v, q):
    """q-quantile of the largest of n nodes' share / mean (independent WH normals)."""
    return wh_quantile(v, q ** (1.0 / n))


def cv_band(n, v, q):
    """q-quantile of the CV across n nodes with v points (normal approximation of the
    sample standard deviation, kurtosis of Gamma(v) included: var(s)/s^2 ~ (2 + 6/v)/(4(n-1)))."""
    rel = math.sqrt((2.0 + 6.0 / v) / (4.0 * max(n - 1, 1)))
    return theory_cv(v) * max(0.0, 1.0 + NormalDist().inv_cdf(q) * rel)


def points_for_target(n, target, confidence=0.95):
    """Least v (continuous) with P(max/mean <= target) >= confidence in the WH model."""
    lo, hi = 1.0, 1e7
    if max_ratio_quantile(n, hi, confidence) > target:
        return float("inf")
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if max_ratio_quantile(n, mid, confidence) <= target:
            hi = mid
        else:
            lo = mid
    return hi


# --- plotting conventions ------------------------------------------------------------------

_PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
            "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#843c39", "#7b4173"]
_FIXED = {}
_USED_BASES = set()
_EXTRA = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2",
          "#dbdb8d", "#9edae5", "#525252"]


def color(name: str) -> str:
    """A stable colour per series name (same algorithm or hasher, same colour everywhere)."""
    known = ["md5", "xxh3", "fnv1a_32", "crc32", "fnv1_32", "one_at_a_time", "murmur3_32",
             "ring", "ketama", "jump", "rendezvous", "maglev", "multi_probe", "bounded_load",
             "anchor", "memento", "modulo"]
    if name not in _FIXED:
        base = name.split("(")[0]
        key = name if name in known else (base if base in known else None)
        if key is not None and key not in _USED_BASES:
            _USED_BASES.add(key)
            _FIXED[name] = _PALETTE[known.index(key) % len(_PALETTE)]
        else:
            used = set(_FIXED.values()) | {_PALETTE[known.index(b) % len(_PALETTE)]
                                           for b in _USED_BASES}
            free = [c for c in _EXTRA + _PALETTE if c not in used] or _EXTRA
            _FIXED[name] = free[0]
    return _FIXED[name]


def style():
    """Matplotlib defaults for every chsim figure."""
    import matplotlib as mpl
    mpl.rcParams.update({
        "figure.figsize": (8, 5), "figure.dpi": 100, "axes.grid": True, "grid.alpha": 0.3,
        "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 8,
        "xtick.labelsize": 9, "ytick.labelsize": 9, "axes.spines.top": False,
        "axes.spines.right": False, "savefig.facecolor": "white",
    })


def provenance_line(files) -> str:
    """'chsim 0.1.0+sha, CPU, date' for figure footers and the report."""
    seen = []
    for rf in files:
        p = rf.provenance
        if not p:
            continue
        s = (f"{p.get('tool', 'chsim')} {p.get('tool_version', '?')}, {p.get('cpu', '?')}, "
             f"{p.get('threads', '?')} threads, {str(p.get('started_utc', ''))[:10]}")
        if s not in seen:
            seen.append(s)
    return "; ".join(seen[:2])


def footer(fig, text: str, y: float = -0.01):
    """Small grey source line under a figure."""
    if text:
        fig.text(0.01, y, text, fontsize=7, color="grey", ha="left", va="top")


def legend_below(fig, axes, ncol: int = 4, y: float = -0.02):
    """One legend for all panels, below them (entries of every panel, each label once)."""
    handles, labels = [], []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    rows = -(-len(labels) // ncol)
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, y), ncol=ncol,
               frameon=False)
    return y - 0.045 * rows - 0.02  # where a footer fits under the legend


def describe(rf_or_tables) -> str:
    """One line per table: its name and shape (for a notebook's first cell)."""
    tables = rf_or_tables.tables if isinstance(rf_or_tables, ResultFile) else rf_or_tables
    return "\n".join(f"{k}: {v.shape[0]} rows x {v.shape[1]} columns"
                     for k, v in tables.items() if isinstance(v, pd.DataFrame))
