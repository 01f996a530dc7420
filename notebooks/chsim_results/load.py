# SPDX-License-Identifier: Apache-2.0
"""Loads chsim result files into pandas tables.

One entry point, ``load(path)``, reads any file chsim writes and returns a ``ResultFile``
whose tables are pandas DataFrames built with ``pandas.json_normalize`` (nested objects such
as ``params`` become dotted columns, e.g. ``params.hasher``):

=================  ==========================  ============================================
file kind          written by                  tables
=================  ==========================  ============================================
``chsim-results``  ``chsim run`` / ``merge``   cases, rows, summary, nodes, transitions,
                                               algorithms (the file's catalog, when present)
``tune``           ``chsim tune --json``       request (1 row), answer (1 row), estimates
``chsim-peers``    ``bench/peers/run``         rows, comparisons, agreement, targets
=================  ==========================  ============================================

Every kind carries a format version (``schema_version``; peers: ``schema`` =
``chsim-peers/N``). The loader reads only the versions in ``SUPPORTED`` and refuses any other
with ``UnsupportedResultFile`` naming the file, the version found and the versions it reads:
a newer chsim wrote the file and this module must learn the new format first (the field
meanings are in results/README.md).

``load_all(spec, kind)`` accepts a file, a directory (every ``*.json`` in it, recursively,
of the wanted kind; files of other kinds are skipped), a glob, several of those joined by
``,`` or ``:``, or a list (or a JSON list in an environment variable); it concatenates the
tables and adds ``source`` (the file's name) and ``run`` (the scenario's name; the file's
name too when two different runs share a scenario name). Files of one run (same resolved
scenario and seed: shards, or shards beside their merge) are joined case by case: a case
present in several of them is taken once, from the file holding the most cases; the
``inputs`` table says which file gave what.

Paths: the notebooks find their inputs through environment variables (``input_spec``),
defaulting under ``results/`` of this checkout, and write figures to ``figure_dir()``
(``CHSIM_FIGURES_DIR``, default ``$CHSIM_RESULTS_DIR/figures``).

Every table with case ids gains ``setting`` and ``label_case_id`` (labels.py: one setting
per algorithm and parameters as run), and the cases, rows and summary gain the workload's
fields (``workload.keys``, ``workload.requests``, ``workload.exponent``, ... as swept or
set) and ``workload.skewed``: whether its load units are keys of unequal popularity, from
the catalog's ``unit`` when it says (a request: skewed; a key: not), else from the results
(more units placed than keys, or weighted lines). Figures read that, not a workload's name.
"""
from __future__ import annotations

import glob as _glob
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import catalog as _catalog
from ._tables import tables as _t
from .labels import add_settings

# The tables of a result file are built by chsim.tables (sim/python/chsim/tables.py), which
# chsim.Results uses too: one place for both.
OPTIONAL_TABLES = _t.OPTIONAL_TABLES
TABLE_COLUMNS = _t.TABLE_COLUMNS
UnsupportedResultFile = _t.UnsupportedResultFile

# kind -> format versions this module reads.
SUPPORTED = {"chsim-results": (1,), "tune": (1,), "chsim-peers": (1,)}

ROOT = Path(__file__).resolve().parent.parent.parent


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
    {"chsim-results": _parse_results, "tune": _parse_tune,
     "chsim-peers": _parse_peers}[kind](doc, path, rf.tables)
    return rf


def _parse_results(doc, path, t):
    t.update(_t.result_tables(doc, path, _catalog.catalog()))


def _parse_tune(doc, path, t):
    t["request"] = _table([doc.get("request", {})])
    t["answer"] = _table([doc.get("answer", {})])
    scalars = {k: v for k, v in doc.get("request", {}).items() if not isinstance(v, (dict, list))}
    for k, v in scalars.items():
        t["answer"]["request." + k] = v
    est = _table(doc.get("estimates", []))
    if len(est):
        for k, v in scalars.items():
            est["request." + k] = v
    t["estimates"] = est


def _parse_peers(doc, path, t):
    for name in ("rows", "comparisons", "agreement", "targets"):
        t[name] = _table([{k: v for k, v in r.items() if k != "samples"}
                          for r in doc.get(name, [])])


_CACHE: dict = {}


def load(path) -> ResultFile:
    """Reads one result file of any supported kind. A file read before in this process and
    unchanged since (same size and modification time) is not parsed again: notebooks run one
    after another in one kernel share the work. Treat the tables as read-only."""
    path = str(path)
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    if key in _CACHE:
        return _CACHE[key]
    rf = _load(path)
    if key is not None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[key] = rf
    return rf


def _load(path: str) -> ResultFile:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such result file (run the scenario first, e.g. "
                                "scripts/run-suite, or point the environment variable at one)")
    except json.JSONDecodeError as e:
        raise UnsupportedResultFile(f"{path}: line {e.lineno}: not valid JSON ({e.msg})")
    return parse(doc, path)


def _parts(spec) -> list[str]:
    """The paths of a spec: a list, a JSON list, or text joined by ',' or ':'."""
    if isinstance(spec, (list, tuple)):
        return [str(p) for p in spec]
    text = str(spec).strip()
    if text.startswith("["):
        return [str(p) for p in json.loads(text)]
    return [p for chunk in text.split(",") for p in chunk.split(":")]


def expand_spec(spec) -> list[str]:
    """The files a spec names (see load_all): folders searched recursively for *.json
    (figures/ and hidden files left out), globs expanded."""
    out = []
    for part in _parts(spec):
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


def load_algorithm_benchmark(spec) -> pd.DataFrame:
    """The lookup rows of chsim_algorithm_benchmark's Google Benchmark JSON among the files
    of `spec` (``--benchmark_out=FILE --benchmark_out_format=json``; other files are skipped).
    Names ``algo/lookup/<algorithm>/removed:<pct>/mode:<tput|lat>/nodes:<n>``. Columns:
    algorithm, removed (fraction of the nodes removed at random before timing), mode, nodes,
    ns_per_lookup (1e9 / items_per_second, median over repetitions), bytes_per_node (memory
    per live node after the removals), source. Rows that failed (error_occurred, e.g. a size
    an algorithm refuses) are left out; empty when there are none."""
    cols = ["algorithm", "removed", "mode", "nodes", "ns_per_lookup", "bytes_per_node", "source"]
    rows = []
    for path in dict.fromkeys(expand_spec(spec)):
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
            continue
        for b in doc["benchmarks"]:
            parts = str(b.get("name", "")).split("/")
            if parts[:2] != ["algo", "lookup"] or len(parts) < 3 or b.get("error_occurred") \
                    or b.get("run_type") == "aggregate" or not b.get("items_per_second"):
                continue
            kv = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
            try:
                removed, nodes = int(kv.get("removed", 0)) / 100, int(kv["nodes"])
            except (KeyError, ValueError):
                continue
            rows.append({"algorithm": parts[2], "removed": removed, "mode": kv.get("mode", "tput"),
                         "nodes": nodes, "ns_per_lookup": 1e9 / float(b["items_per_second"]),
                         "bytes_per_node": b.get("bytes_per_node", float("nan")),
                         "source": os.path.basename(path)})
    if not rows:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(rows)
    return df.groupby(["algorithm", "removed", "mode", "nodes"], as_index=False).agg(
        ns_per_lookup=("ns_per_lookup", "median"), bytes_per_node=("bytes_per_node", "median"),
        source=("source", "first"))[cols]


def load_all(spec, kind: str = "chsim-results") -> dict:
    """Loads every file of `kind` named by `spec`; returns {table: concatenated DataFrame},
    plus ``files`` (the ResultFiles used) and ``inputs`` (one row per file: what it holds
    and what was taken from it).

    A file named explicitly must be of `kind`; files found by directory or glob that are of
    another kind (or are not chsim files at all) are skipped. Raises FileNotFoundError when
    nothing of `kind` is found.
    """
    files = []
    explicit = set()
    for part in _parts(spec):
        part = part.strip()
        if part and not os.path.isdir(part) and not any(ch in part for ch in "*?["):
            explicit.add(part)
    for p in dict.fromkeys(expand_spec(spec)):  # each file once
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
        where = f"in '{spec}'" if _parts(spec) else "among the inputs"
        raise FileNotFoundError(f"no {kind} file {where}")
    keep, notes = _dedupe_runs(files) if kind == "chsim-results" else ({}, {})
    runs = _run_names(files) if kind == "chsim-results" else {}
    tables = {}
    for rf in files:
        drop = keep.get(rf.path)
        for name, df in rf.tables.items():
            df = df.copy()
            if drop is not None and "case_id" in df and name != "algorithms":
                df = df[~df["case_id"].isin(drop)]
            df["source"] = os.path.basename(rf.path)
            if runs:
                df["run"] = runs[rf.path]
            tables.setdefault(name, []).append(df)
    out = {name: pd.concat(dfs, ignore_index=True) for name, dfs in tables.items()}
    if kind == "chsim-results":
        add_settings(out)  # settings across the files: one label for one setting
    if "algorithms" in out and len(out["algorithms"]):
        out["algorithms"] = (out["algorithms"].drop(columns=["source", "run"], errors="ignore")
                             .drop_duplicates("name").reset_index(drop=True))
    out["files"] = files
    out["inputs"] = pd.DataFrame([input_row(rf, runs.get(rf.path), notes.get(rf.path, "all"))
                                  for rf in files])
    return out


def run_key(rf: ResultFile) -> str:
    """Identity of the run a result file belongs to: its resolved scenario and seed (shards
    and their merge share it)."""
    scen = json.dumps(rf.doc.get("scenario", {}), sort_keys=True)
    seed = str(rf.provenance.get("seed", ""))
    return hashlib.sha1((scen + "\0" + seed).encode()).hexdigest()[:12]


def _dedupe_runs(files):
    """{path: case ids to drop} and {path: note} so each case of a run is taken once, from
    the file of that run holding the most cases."""
    order = sorted(files, key=lambda rf: -len(rf.doc.get("cases", [])))
    seen, first, drop, notes = {}, {}, {}, {}
    for rf in order:
        key = run_key(rf)
        ids = [c.get("case_id") for c in rf.doc.get("cases", [])]
        have = seen.setdefault(key, set())
        dup = [i for i in ids if i in have]
        if dup:
            drop[rf.path] = set(dup)
            owner = os.path.basename(first[key])
            notes[rf.path] = (f"none: every case is also in {owner}" if len(dup) == len(ids)
                              else f"{len(ids) - len(dup)} of {len(ids)} cases (the rest are "
                                   f"in {owner})")
        have.update(ids)
        first.setdefault(key, rf.path)
    return drop, notes


def _run_names(files):
    """{path: run name}: the scenario name, with the file name when two runs share it."""
    by_name = {}
    for rf in files:
        by_name.setdefault(rf.doc.get("scenario", {}).get("name", "?"), set()).add(run_key(rf))
    out = {}
    for rf in files:
        name = rf.doc.get("scenario", {}).get("name", "?")
        out[rf.path] = name if len(by_name[name]) == 1 else \
            f"{name} ({os.path.splitext(os.path.basename(rf.path))[0]})"
    return out


def input_row(rf: ResultFile, run=None, used="all") -> dict:
    """One line of a report's input list: the file, what it holds and where it came from."""
    p, doc = rf.provenance, rf.doc
    row = {"file": rf.path, "kind": rf.kind, "used": used}
    if rf.kind == "chsim-results":
        scen, shard = doc.get("scenario", {}), doc.get("shard", {}) or {}
        cases = doc.get("cases", [])
        merged = p.get("merged_from") or []
        row.update({
            "run": run or scen.get("name"),
            "shard": (f"merged from {len(merged)}" if merged else
                      f"{shard.get('index', 0)}/{shard.get('count', 1)}"),
            "cases": len(cases),
            "algorithms": ", ".join(dict.fromkeys(c.get("algorithm", "?") for c in cases)),
            "n": ", ".join(str(n) for n in sorted({c.get("n") for c in cases
                                                    if c.get("n") is not None})),
            "trials": scen.get("trials"),
            "events": len(scen.get("events", []) or []),
            "metrics": ", ".join(scen.get("metrics", []) or []),
            "workload": (scen.get("workload") or {}).get("type"),
        })
    elif rf.kind == "tune":
        req, ans = doc.get("request", {}), doc.get("answer", {})
        row.update({"run": "chsim tune", "cases": 1,
                    "algorithms": req.get("profile") if req.get("profile") not in (None, "", "ring")
                    else req.get("algorithm"),
                    "n": str(req.get("nodes") or req.get("servers") or ""),
                    "metrics": f"{req.get('objective', 'max_over_mean')} <= {req.get('max_over_mean')}"
                               f" @ {req.get('confidence')}",
                    "events": None, "trials": req.get("draws"), "workload": None,
                    "shard": None})
        p = {"tool_version": None}
        row["settled"] = ans.get("settled")
    else:
        row.update({"run": "bench/peers/run", "cases": len(doc.get("rows", [])),
                    "algorithms": ", ".join(dict.fromkeys(r.get("peer", "?")
                                                          for r in doc.get("rows", []))),
                    "n": ", ".join(str(n) for n in sorted({r.get("servers") for r in
                                                           doc.get("rows", [])
                                                           if r.get("servers") is not None})),
                    "shard": None, "trials": None, "events": None, "metrics": None,
                    "workload": None})
        m = doc.get("machine", {})
        p = {"cpu": m.get("cpu"), "started_utc": doc.get("started"), "threads": m.get("nproc"),
             "command": doc.get("command")}
    row.update({
        "chsim": p.get("tool_version"),
        "git": (str(p.get("git_sha") or "")[:12] + (" (dirty)" if p.get("git_dirty") else ""))
               or None,
        "cpu": p.get("cpu"), "threads": p.get("threads"),
        "started (UTC)": p.get("started_utc"),
        "wall (s)": round(p["wall_seconds"], 1) if isinstance(p.get("wall_seconds"), (int, float))
                    else None,
        "command": " ".join(p["command"]) if isinstance(p.get("command"), list)
                   else p.get("command"),
    })
    return row


# --- paths -------------------------------------------------------------------------------

def results_dir() -> Path:
    return Path(os.environ.get("CHSIM_RESULTS_DIR", ROOT / "results"))


def input_spec(var: str, default: str | None = None) -> str:
    """The input named by environment variable `var` (a path, a comma list, or a JSON list of
    paths), else `default` under results_dir() (or results_dir() itself)."""
    v = os.environ.get(var)
    if v:
        return v
    return str(results_dir() / default) if default else str(results_dir())


def figure_dir() -> Path:
    d = Path(os.environ.get("CHSIM_FIGURES_DIR", results_dir() / "figures"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def empty_results() -> dict:
    """load_all's answer for inputs without chsim result files: every table empty, with
    its usual columns, so filters run and figures say what is missing."""
    out = {k: pd.DataFrame(columns=cols + ["source", "run"]) for k, cols in TABLE_COLUMNS.items()}
    out["files"] = []
    out["inputs"] = pd.DataFrame()
    return out


def load_results(spec) -> dict:
    """load_all(spec) for chsim-results, or empty_results() (with a printed line) when the
    inputs hold none."""
    from .labels import case_label
    from .style import OWN_SETTINGS, register
    register(OWN_SETTINGS)
    try:
        out = load_all(spec)
    except FileNotFoundError as e:
        print(f"{e}: every figure below says what it needs")
        return empty_results()
    cases = out["cases"]
    register(case_label(cases))
    for p in (c[7:] for c in cases.columns if c.startswith("params.")):
        register(case_label(cases, drop=(p,)))
    return out


def describe(rf_or_tables) -> str:
    """One line per table: its name and shape (for a notebook's first cell)."""
    tables = rf_or_tables.tables if isinstance(rf_or_tables, ResultFile) else rf_or_tables
    return "\n".join(f"{k}: {v.shape[0]} rows x {v.shape[1]} columns"
                     for k, v in tables.items() if isinstance(v, pd.DataFrame))
