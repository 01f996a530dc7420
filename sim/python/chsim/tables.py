# SPDX-License-Identifier: Apache-2.0
"""The pandas tables of a chsim result file: the one place they are built.

``chsim.Results`` (``chsim.run``) and the notebooks' ``chsim_results.load`` both build a
result's tables here, so a file read from disk and the same run in memory give the same
tables. It needs pandas, and nothing else of chsim (the notebooks load it from the source
tree when the module is not built):

    from chsim import tables
    t = tables.result_tables(doc, "<memory>", catalog)  # {"cases": DataFrame, "rows": ...}

``result_tables`` gives cases, rows, summary, nodes, transitions (every one with its usual
columns when empty), cache_nodes and cache_windows (empty when the file has none) and
algorithms (the file's ``algorithms`` block, ``algorithm_catalog``). Nested objects become
dotted columns (``params.hasher``). Every table with case ids gains ``setting`` and
``label_case_id`` (one setting per algorithm and parameters as run: ``add_settings``), and
the cases, rows and summary gain the workload's fields (``workload.keys``, ... as swept or
set) and ``workload.skewed``.

`catalog` is anything with ``parameter(algorithm, name) -> dict | None`` (the spec of a
parameter: its ``symbol`` and ``bare`` name it in labels) and ``workload_skewed(name) ->
bool | None`` (from the workload's ``unit``); ``Catalog`` below builds one from
``chsim list --json``'s lists, and None means an empty one.
"""
from __future__ import annotations

import json
import math

import pandas as pd


class UnsupportedResultFile(ValueError):
    """A file this module cannot read: unknown kind or unsupported format version."""


class Catalog:
    """The two questions the tables ask of the registry, from ``chsim list --json``'s
    ``algorithms`` and ``workloads`` lists (or chsim.algorithms(), chsim.workloads())."""

    def __init__(self, algorithms=(), workloads=()):
        self._params = {(a.get("name"), p.get("name")): p for a in algorithms or []
                        for p in a.get("parameters", []) or [] if isinstance(p, dict)}
        self._units = {w.get("name"): w.get("unit") for w in workloads or []}

    def parameter(self, algorithm: str, name: str) -> dict | None:
        return self._params.get((algorithm, name))

    def workload_skewed(self, name: str) -> bool | None:
        """True for a workload whose unit is a request, False for a key, else None."""
        return {"request": True, "key": False}.get(self._units.get(name))


_EMPTY = Catalog()


# Tables only some metrics write (results/README.md): the cache metric's per-node caches and
# windowed miss ratios. A file without them gets empty ones.
OPTIONAL_TABLES = ("cache_nodes", "cache_windows")
# The columns of the `algorithms` table (algorithm_catalog).
CATALOG_COLUMNS = ["name", "summary", "paper", "year", "removals", "capabilities", "parameters"]


def result_tables(doc: dict, path: str = "<memory>", catalog=None) -> dict:
    """{name: DataFrame} of a chsim-results document (see the module docstring); raises
    UnsupportedResultFile when a table is missing."""
    t: dict = {}
    _parse_results(doc, path, t, catalog or _EMPTY)
    return t


# --- the result file's tables --------------------------------------------------------------

def _table(records, **kw):
    if not records:
        return pd.DataFrame()
    return pd.json_normalize(records, **kw)


def _parse_results(doc, path, t, catalog):
    for name in TABLES:
        if name not in doc or not isinstance(doc[name], list):
            raise UnsupportedResultFile(f"{path}: /{name}: missing or not an array; "
                                        "accepted: a chsim-results file (results/README.md)")
        t[name] = _table(doc[name])
        if t[name].empty:  # e.g. per_node "none": the usual columns, no rows
            t[name] = pd.DataFrame(columns=TABLE_COLUMNS[name])
    for name in OPTIONAL_TABLES:  # written only by some metrics (cache): empty otherwise
        rows = doc.get(name)
        t[name] = _table(rows) if isinstance(rows, list) and rows else pd.DataFrame()
    scen = doc.get("scenario", {})
    t["cases"]["scenario"] = scen.get("name", "")
    _add_workload_fields(t["cases"], scen, t["rows"], catalog)
    auto = _auto_params(scen)
    if auto:
        for name in TABLES:
            if "case_id" in t[name] and len(t[name]):
                alg = t[name]["case_id"].str.split(r"[(/]", n=1, regex=True).str[0]
                t[name]["auto_params"] = alg.map(auto).fillna("")
    t["algorithms"] = algorithm_catalog(doc.get("algorithms"))
    for name in ("rows", "summary"):
        if len(t[name]):
            t[name]["scenario"] = scen.get("name", "")
    # Rows and summary get the case's workload; per-node rows carry only the case, so
    # give them the algorithm, its parameters and the workload too.
    wl = [c for c in t["cases"].columns if c.startswith("workload.")]
    for name in ("rows", "summary"):
        if len(t[name]) and wl:
            t[name] = t[name].merge(t["cases"][["case_index"] + wl], on="case_index", how="left")
    if len(t["nodes"]) and len(t["cases"]):
        keep = [c for c in t["cases"].columns
                if c in ("case_index", "algorithm", "n") or c.startswith("params.")
                or c.startswith("workload.") or c.startswith("axes.")]
        t["nodes"] = t["nodes"].merge(t["cases"][keep], on="case_index", how="left")
    add_settings(t, catalog)


def _add_workload_fields(cases: pd.DataFrame, scen: dict, rows: pd.DataFrame, catalog):
    """Gives each case its workload's scalar fields (the swept value when the scenario
    sweeps one, else the scenario's) as workload.* columns, and workload.skewed: whether its
    load units are keys of unequal popularity, from the catalog's unit when it says (a
    request: skewed; a key: not), else from the results (more units placed than keys, or
    weighted lines)."""
    wl = scen.get("workload") or {}
    if cases.empty:
        return
    for k, v in wl.items():
        col, axis = f"workload.{k}", f"axes.workload.{k}"
        if k == "type" or isinstance(v, (dict, list)) and axis not in cases:
            continue
        base = None if isinstance(v, (dict, list)) else v
        if axis in cases:
            cases[col] = cases[axis].where(cases[axis].notna(), base)
        elif base is not None:
            cases[col] = base
    wtype = cases["workload.type"] if "workload.type" in cases else \
        pd.Series(wl.get("type"), index=cases.index)
    said = wtype.map(lambda w: catalog.workload_skewed(str(w)))
    units = pd.Series(dtype=float)
    if len(rows) and "metric" in rows:
        u = rows[(rows["metric"] == "sampled.units") & (rows["step"] == 0) & (rows["trial"] == 0)]
        units = u.groupby("case_index")["value"].max()
    keys = pd.to_numeric(cases.get("workload.keys", pd.Series(index=cases.index, dtype=float)),
                         errors="coerce")
    placed = cases["case_index"].map(units)
    seen = (placed > keys).fillna(False) | (cases.get("workload.weighted", False) == True)  # noqa: E712
    cases["workload.skewed"] = said.where(said.notna(), seen).astype(bool)


def _auto_params(scen: dict) -> dict:
    """{algorithm: "param,param"}: the parameters a scenario sets to "auto"."""
    out = {}
    for entry in scen.get("algorithms", []) or []:
        if not isinstance(entry, dict):
            continue
        names = [k for k, v in entry.items() if v == "auto" or (isinstance(v, list) and "auto" in v)]
        if names:
            out.setdefault(entry.get("algorithm"), set()).update(names)
    return {k: ",".join(sorted(v)) for k, v in out.items()}


TABLE_COLUMNS = {
    "cases": ["case_id", "case_index", "algorithm", "n", "status", "message", "steps"],
    "rows": ["case_id", "case_index", "algorithm", "n", "trial", "step", "event", "metric",
             "value", "unit", "deterministic"],
    "summary": ["case_id", "case_index", "algorithm", "n", "step", "event", "metric", "trials",
                "mean", "stddev", "ci95_low", "ci95_high", "unit", "deterministic"],
    "nodes": ["case_id", "case_index", "trial", "step", "node", "label", "weight", "load",
              "expected", "ratio", "share", "moved_in", "moved_out", "algorithm", "n"],
    "transitions": ["case_id", "case_index", "trial", "step", "from", "to", "units"],
    "algorithms": CATALOG_COLUMNS,
}


# --- settings and labels -------------------------------------------------------------------

TABLES = ("cases", "rows", "summary", "nodes", "transitions")


def algorithm_of(label: str) -> str:
    """The algorithm of a label or case id: ``ring(md5, v=40) n=100`` -> ``ring``."""
    return str(label).split("(")[0].split("/")[0].split(" ")[0]


def case_params(case_id: str) -> list[tuple[str, str]]:
    """The (name, value) pairs a case id names: ``ring(hasher=md5,points_per_node=40)/n=20``
    -> [("hasher", "md5"), ("points_per_node", "40")]."""
    head = str(case_id).split("/n=")[0]
    _, _, rest = head.partition("(")
    if not rest.endswith(")"):
        return []
    return [(k, v) for k, _, v in (kv.partition("=") for kv in rest[:-1].split(",")) if k]


def _param_text(alg: str, name: str, value: str, catalog=None) -> str:
    """One parameter as its spec writes it: the value alone where ``bare`` (hashers,
    profiles), ``symbol=value`` where it has a symbol (v, M, c), else ``name=value``."""
    spec = (catalog or _EMPTY).parameter(alg, name) or {}
    return value if spec.get("bare") else f"{spec.get('symbol') or name}={value}"


def label_from_case_id(case_id: str, drop=(), catalog=None) -> str:
    """A short name for a case: its algorithm with the parameters the case id names, each as
    its spec writes it (see _param_text), those in `drop` left out.
    ``ring(hasher=md5,points_per_node=40)/n=20`` -> ``ring(md5, v=40)``."""
    alg = algorithm_of(case_id)
    parts = [_param_text(alg, k, v, catalog) for k, v in case_params(case_id) if k not in drop]
    return f"{alg}({', '.join(parts)})" if parts else alg


def label_params(label: str) -> list[str]:
    """The parameter parts of a label: ``ring(md5, v=40)`` -> ["md5", "v=40"]."""
    _, _, rest = str(label).partition("(")
    return [p.strip() for p in rest.rsplit(")", 1)[0].split(",") if p.strip()] if rest else []


def case_label(df: pd.DataFrame, drop=(), catalog=None) -> pd.Series:
    """The label of every row's setting (see the module docstring), stable across node
    counts, files and figures; parameters left to "auto" and those in `drop` left out."""
    if "case_id" not in df:
        return df.get("algorithm", pd.Series("?", index=df.index)).astype(str)
    named = "label_case_id" in df and df["label_case_id"].notna().all()
    ids = df["label_case_id"] if named else df["case_id"]
    auto = df["auto_params"].fillna("") if "auto_params" in df and not named else \
        pd.Series("", index=df.index)
    cache: dict = {}

    def one(cid, a):
        key = (cid, a)
        if key not in cache:
            cache[key] = label_from_case_id(cid, tuple(drop) + (tuple(a.split(",")) if a else ()),
                                            catalog)
        return cache[key]
    return pd.Series([one(c, a) for c, a in zip(ids, auto)], index=df.index, dtype=object)


def _plain(v):
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        return int(v)
    return v


def _params(cases: pd.DataFrame) -> list[dict]:
    """Per case: the parameters it ran with (params.* columns), "auto" where the scenario
    said so."""
    pcols = [c for c in cases.columns if c.startswith("params.")]
    auto = cases["auto_params"].fillna("") if "auto_params" in cases else \
        pd.Series("", index=cases.index)
    out = []
    for (_, r), a in zip(cases.iterrows(), auto):
        skip = set(a.split(",")) if a else set()
        p = {c[7:]: _plain(r[c]) for c in pcols
             if not (isinstance(r[c], float) and math.isnan(r[c])) and r[c] is not None}
        out.append({k: ("auto" if k in skip else v) for k, v in p.items()} |
                   {k: "auto" for k in skip})
    return out


def setting_keys(cases: pd.DataFrame) -> pd.Series:
    """Per case: its algorithm and parameters (see _params) as one JSON text."""
    keys = [json.dumps([str(alg), p], sort_keys=True, default=str)
            for alg, p in zip(cases.get("algorithm", pd.Series("?", index=cases.index)),
                              _params(cases))]
    return pd.Series(keys, index=cases.index, dtype=object)


def _case_id(alg: str, params) -> str:
    return f"{alg}({','.join(f'{k}={v}' for k, v in params)})" if params else alg


def _representatives(c: pd.DataFrame, catalog=None) -> dict:
    """{setting: label case id}: the case id naming the most parameters, with "auto" for
    the auto ones; settings that would read alike name what tells them apart."""
    params = dict(zip(c["setting"], _params(c)))
    named = c.assign(_k=c["case_id"].map(lambda i: len(case_params(i))))
    rep = {}
    for setting, cid in (named.sort_values("_k", ascending=False, kind="stable")
                         .drop_duplicates("setting")[["setting", "case_id"]].values):
        given = dict(case_params(cid))
        auto = {k for k, v in params[setting].items() if v == "auto"}
        rep[setting] = _case_id(algorithm_of(cid),
                                [(k, "auto" if k in auto else v) for k, v in given.items()]
                                + [(k, "auto") for k in sorted(auto - set(given))])
    by_label: dict = {}
    for setting, cid in rep.items():
        by_label.setdefault(label_from_case_id(cid, catalog=catalog), []).append(setting)
    for group in (g for g in by_label.values() if len(g) > 1):
        ps = [params[s] for s in group]
        differ = sorted({k for p in ps for k in p if len({str(q.get(k)) for q in ps}) > 1})
        for s in group:
            given = dict(case_params(rep[s]))
            rep[s] = _case_id(algorithm_of(rep[s]), list(given.items()) +
                              [(k, params[s].get(k)) for k in differ if k not in given])
    return rep


def add_settings(tables: dict, catalog=None) -> None:
    """Adds ``setting`` and ``label_case_id`` to every table of `tables` that has case ids,
    from its cases table (see the module docstring); in place."""
    cases = tables.get("cases")
    if cases is None or cases.empty or "case_id" not in cases:
        return
    on = ["run", "case_id"] if "run" in cases else ["case_id"]
    c = cases.assign(setting=setting_keys(cases))
    c["label_case_id"] = c["setting"].map(_representatives(c, catalog))
    cases["setting"], cases["label_case_id"] = c["setting"], c["label_case_id"]
    m = c[on + ["setting", "label_case_id"]].drop_duplicates(on)
    for name in TABLES:
        t = tables.get(name)
        if name == "cases" or t is None or "case_id" not in t:
            continue
        t = t.drop(columns=["setting", "label_case_id"], errors="ignore")
        if len(t) and all(k in t for k in on):
            t = t.merge(m, on=on, how="left")
        else:
            t = t.assign(setting=pd.Series(dtype=object), label_case_id=pd.Series(dtype=object))
        tables[name] = t


# --- a result file's `algorithms` block ----------------------------------------------------

def algorithm_catalog(block) -> pd.DataFrame:
    """The result file's ``algorithms`` block as a table (one row per algorithm): name,
    summary, paper, year, removals (which nodes can be removed, from the capabilities),
    capabilities (the true ones, comma-separated) and parameters (names with defaults).

    Accepted shapes: a list of objects with ``name`` (or ``algorithm``), or an object keyed
    by name (chsim writes the list). ``capabilities``: an object (chsim: ``removal`` "any" or
    "last_added", ``incremental``, ``weights``, ... booleans; a boolean ``arbitrary_removal``
    is read too) or a list of names. ``parameters`` (or ``params``): a list of objects with
    ``name`` (and ``default``) or an object name -> default/spec. Anything else is ignored:
    an empty table when the block is absent (files from before the catalog)."""
    if isinstance(block, dict):
        block = [dict(v, name=k) if isinstance(v, dict) else {"name": k} for k, v in block.items()]
    if not isinstance(block, list):
        return pd.DataFrame(columns=CATALOG_COLUMNS)
    rows = []
    for a in block:
        if not isinstance(a, dict):
            continue
        name = a.get("name", a.get("algorithm"))
        if not name:
            continue
        caps = a.get("capabilities", {})
        rows.append({"name": str(name), "summary": a.get("summary"), "paper": a.get("paper"),
                     "year": a.get("year") if a.get("year") not in (0, "") else None,
                     "removals": removals_text(caps),
                     "capabilities": _capability_text(caps),
                     "parameters": _parameter_text(a.get("parameters", a.get("params")))})
    return pd.DataFrame(rows, columns=CATALOG_COLUMNS)


_REMOVAL_WORDS = {"any": "any node", "last_added": "last added only"}


def removals_text(caps) -> str | None:
    """Which nodes an algorithm can remove, in words, from its capabilities: ``removal``
    ("any" or "last_added", as chsim writes it; any text field named like removal is taken as
    written) or a boolean ``arbitrary_removal``; "(rebuilds)" when ``incremental`` is false."""
    if isinstance(caps, dict):
        text = None
        for k, v in caps.items():
            if "remov" in k and isinstance(v, str):
                text = _REMOVAL_WORDS.get(v, v.replace("_", " "))
        if text is None and isinstance(caps.get("arbitrary_removal"), bool):
            text = "any node" if caps["arbitrary_removal"] else "last added only"
        if text is not None and caps.get("incremental") is False:
            text += " (rebuilds)"
        return text
    if isinstance(caps, list):
        hits = [str(c).replace("_", " ") for c in caps if "remov" in str(c)]
        return ", ".join(hits) or None
    return None


def _capability_text(caps) -> str | None:
    if isinstance(caps, dict):
        return ", ".join(k.replace("_", " ") for k, v in caps.items() if v is True) or None
    if isinstance(caps, list):
        return ", ".join(str(c) for c in caps) or None
    return None


def _parameter_text(params) -> str | None:
    items = []
    if isinstance(params, dict):
        params = [dict(v, name=k) if isinstance(v, dict) else {"name": k, "default": v}
                  for k, v in params.items()]
    for p in params or []:
        if isinstance(p, dict) and p.get("name"):
            d = p.get("default")
            items.append(f"{p['name']}={d}" if d not in (None, "") else str(p["name"]))
        elif isinstance(p, str):
            items.append(p)
    return ", ".join(items) or None
