"""Loads chsim result files into pandas tables, plus the theory the notebooks draw.

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

Theory (docs/design.md#balance-theory): a node of a ring with v random points owns a share whose ratio
to the mean is about Gamma(v, 1/v); by Wilson & Hilferty (1931) (X)^(1/3) ~ Normal(1 - a,
a) with a = 1/(9v). ``wh_quantile`` gives its quantiles, ``max_ratio_quantile`` those of the
largest of n such nodes (treated as independent), ``theory_cv``/``theory_max_over_mean`` the
closed forms chsim also writes as ``theory.*`` rows.
"""
from __future__ import annotations

import glob as _glob
import hashlib
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
            if t[name].empty:  # e.g. per_node "none": the usual columns, no rows
                t[name] = pd.DataFrame(columns=TABLE_COLUMNS[name])
        scen = doc.get("scenario", {})
        t["cases"]["scenario"] = scen.get("name", "")
        _add_workload_fields(t["cases"], scen)
        auto = _auto_params(scen)
        if auto:
            for name in ("cases", "rows", "summary", "nodes", "transitions"):
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


def _expand(spec) -> list[str]:
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
    for path in dict.fromkeys(_expand(spec)):
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
    for p in dict.fromkeys(_expand(spec)):  # each file once
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
                    "algorithms": req.get("algorithm") or req.get("profile"),
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


def _add_workload_fields(cases: pd.DataFrame, scen: dict):
    """Gives each case its workload's keys, requests and exponent (the swept value when the
    scenario sweeps it, else the scenario's), as workload.* columns."""
    wl = scen.get("workload") or {}
    if cases.empty:
        return
    for k in ("keys", "requests", "exponent"):
        col, axis = f"workload.{k}", f"axes.workload.{k}"
        v = wl.get(k)
        base = v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        if axis in cases:
            cases[col] = cases[axis].where(cases[axis].notna(), base)
        elif base is not None:
            cases[col] = base


# --- the algorithms catalog ---------------------------------------------------------------

CATALOG_COLUMNS = ["name", "summary", "paper", "year", "removals", "capabilities", "parameters"]


def algorithm_catalog(block) -> pd.DataFrame:
    """The result file's ``algorithms`` block as a table (one row per algorithm): name,
    summary, paper, year, removals (which nodes can be removed, from the capabilities),
    capabilities (the true ones, comma-separated) and parameters (names with defaults).

    Accepted shapes: a list of objects with ``name`` (or ``algorithm``), or an object keyed
    by name (chsim writes the list). ``capabilities``: an object (chsim: ``removal`` "any" or
    "last_added", ``incremental``, ``weights``, ... booleans; a boolean ``arbitrary_removal``
    is read too) or a list of names. ``parameters`` (or ``params``): a list of objects with ``name`` (and
    ``default``) or an object name -> default/spec. Anything else is ignored: an empty
    table when the block is absent (files from before the catalog)."""
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


def save(fig, name: str) -> Path:
    """Saves `fig` as figure_dir()/name.png (150 dpi, or CHSIM_FIGURE_DPI; no timestamp
    metadata)."""
    p = figure_dir() / f"{name}.png"
    try:
        dpi = int(os.environ.get("CHSIM_FIGURE_DPI", "150"))
    except ValueError:
        dpi = 150
    fig.savefig(p, dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    return p


# --- table helpers -----------------------------------------------------------------------

_SHORT = {"points_per_node": "v", "table_size": "M", "balance_factor": "c"}
_BARE = ("hasher", "profile")


def label_from_case_id(case_id: str, drop=()) -> str:
    """A short name for a case: its algorithm with the parameters the scenario gave (the
    case id before ``/n=``), hashers and profiles bare, points per node as v, table size as M,
    balance factor as c; parameters named in `drop` left out.
    ``ring(hasher=md5,points_per_node=40)/n=20`` -> ``ring(md5, v=40)``."""
    head = str(case_id).split("/n=")[0]
    alg, _, rest = head.partition("(")
    parts = []
    if rest.endswith(")"):
        for kv in rest[:-1].split(","):
            k, _, v = kv.partition("=")
            if not k or k in drop:
                continue
            parts.append(v if k in _BARE else f"{_SHORT.get(k, k)}={v}")
    return f"{alg}({', '.join(parts)})" if parts else alg


def case_label(df: pd.DataFrame, drop=()) -> pd.Series:
    """A short name per row (label_from_case_id), stable across node counts and files:
    parameters the scenario left to "auto" (a maglev table sized from n) are left out too."""
    if "case_id" not in df:
        return df.get("algorithm", pd.Series("?", index=df.index)).astype(str)
    if "auto_params" not in df:
        return df["case_id"].map(lambda c: label_from_case_id(c, drop))
    return pd.Series([label_from_case_id(c, tuple(drop) + tuple(a.split(",")) if a else drop)
                      for c, a in zip(df["case_id"], df["auto_params"].fillna(""))],
                     index=df.index, dtype=object)


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


def column(df: pd.DataFrame, name: str, default=float("nan")) -> pd.Series:
    """df[name], or a column of `default` when the inputs never wrote it."""
    return df[name] if name in df else pd.Series(default, index=df.index, dtype=object
                                                 if not isinstance(default, float) else float)


def best_per_key(df: pd.DataFrame, keys) -> pd.DataFrame:
    """One row per key: the one with the most trials (several files may repeat a case)."""
    if df.empty:
        return df
    return df.sort_values("trials", ascending=False, kind="stable").drop_duplicates(keys) \
             .sort_values(keys)


def ring_points(summary: pd.DataFrame) -> pd.Series:
    """Points per node v of every equal-weight ring-like case (rows with theory.cv, which
    chsim writes for unweighted rings and Ketama profiles at step 0): the parameter when
    given, else 1 / theory.cv^2. Indexed by (run, case_id)."""
    th = summary[(summary["metric"] == "theory.cv") & (summary["step"] == 0)]
    if th.empty:
        return pd.Series(dtype=float)
    v = column(th, "params.points_per_node").astype(float)
    v = v.where(v.notna(), (1.0 / th["mean"].astype(float) ** 2).round(1))
    return pd.Series(v.values, index=pd.MultiIndex.from_frame(th[["run", "case_id"]])) \
             .groupby(level=[0, 1]).first()


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
    try:
        return load_all(spec)
    except FileNotFoundError as e:
        print(f"{e}: every figure below says what it needs")
        return empty_results()


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


# --- theory (docs/design.md#balance-theory) ---------------------------------------------------------

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
            free = [c for c in _EXTRA + _PALETTE if c not in used]
            _FIXED[name] = free[0] if free else _spread_color(len(_FIXED))
    return _FIXED[name]


def _spread_color(i: int) -> str:
    """The i-th colour past the palettes: golden-ratio steps around the hue circle, two
    lightness levels, so many series stay apart."""
    import colorsys
    h = (i * 0.618033988749895) % 1.0
    r, g, b = colorsys.hls_to_rgb(h, 0.42 if i % 2 else 0.6, 0.75)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def reset_colors():
    """Forgets the colours handed out (a new report starts afresh)."""
    _FIXED.clear()
    _USED_BASES.clear()


def _plain_log_ticks():
    """Log and symlog axes label their ticks as plain text ("100", "1e+04") instead of
    matplotlib's default mathtext ("10^2"), whose parsing was most of the time spent
    drawing a figure."""
    from matplotlib import scale, ticker
    for cls in (scale.LogScale, scale.SymmetricalLogScale):
        if getattr(cls, "_chsim_plain", False):
            continue
        orig = cls.set_default_locators_and_formatters

        def plain(self, axis, _orig=orig):
            _orig(self, axis)
            axis.set_major_formatter(ticker.LogFormatter(self.base))
            axis.set_minor_formatter(ticker.LogFormatter(
                self.base, labelOnlyBase=getattr(self, "subs", None) is not None))
        cls.set_default_locators_and_formatters = plain
        cls._chsim_plain = True


def style():
    """Matplotlib defaults for every chsim figure."""
    _plain_log_ticks()
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


def legend_below(fig, axes, ncol: int | None = None, y: float = -0.02):
    """One legend for all panels, below them (entries of every panel, each label once).
    Columns fit the figure width and the longest label unless `ncol` is given; the font
    shrinks when there are many entries. Returns where a footer fits under it."""
    handles, labels = [], []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels and not l.startswith("_"):
                handles.append(h)
                labels.append(l)
    if not labels:
        return y
    size = 8 if len(labels) <= 24 else 7 if len(labels) <= 48 else 6
    if ncol is None:
        width_in = fig.get_size_inches()[0]
        longest = max(len(l) for l in labels)
        ncol = max(1, min(len(labels), int(width_in * 72 / (size * 0.6 * longest + 30))))
    rows = -(-len(labels) // ncol)
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, y), ncol=ncol,
               frameon=False, fontsize=size)
    height_in = fig.get_size_inches()[1]
    return y - rows * (size * 1.45 / 72) / height_in - 0.02


def panel_grid(k: int, width: float = 4.6, height: float = 4.0, max_cols: int = 4,
               **kw):
    """`k` panels (at least 1) wrapped into rows of at most `max_cols`; returns the figure
    and the k axes in reading order (unused cells are hidden)."""
    import matplotlib.pyplot as plt
    k = max(1, int(k))
    cols = min(k, max_cols)
    rows = -(-k // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False,
                             **kw)
    flat = list(axes.flat)
    for ax in flat[k:]:
        ax.set_visible(False)
    return fig, flat[:k]


def spans_decades(values, decades: float = 1.5) -> bool:
    """True when the positive finite `values` span more than `decades` powers of ten (a
    log scale then reads better)."""
    v = [float(x) for x in values if x is not None and math.isfinite(float(x)) and float(x) > 0]
    return len(v) >= 2 and math.log10(max(v) / min(v)) > decades


def pick_spread(values, k: int) -> list:
    """At most `k` of the sorted distinct `values`, spread evenly (first and last kept)."""
    vals = sorted(set(values))
    if len(vals) <= k:
        return vals
    idx = sorted({round(i * (len(vals) - 1) / (k - 1)) for i in range(k)})
    return [vals[i] for i in idx]


def describe(rf_or_tables) -> str:
    """One line per table: its name and shape (for a notebook's first cell)."""
    tables = rf_or_tables.tables if isinstance(rf_or_tables, ResultFile) else rf_or_tables
    return "\n".join(f"{k}: {v.shape[0]} rows x {v.shape[1]} columns"
                     for k, v in tables.items() if isinstance(v, pd.DataFrame))
