# SPDX-License-Identifier: Apache-2.0
"""The registry's catalog: every algorithm (in registry order, with its parameters,
capabilities, paper and year), workload, metric, Ketama profile and hasher chsim knows.

``catalog()`` is the one place the notebooks learn what exists. It reads, first found:

1. the file named by ``CHSIM_CATALOG`` (``scripts/make-report`` writes ``chsim list
   --json`` there once per report);
2. ``chsim list --json`` of the binary ``CHSIM`` names, or of this checkout's build
   (``scripts/chsimlib.find_chsim``);
3. the Python module's catalog functions (``import chsim``: the same document);
4. nothing: an empty catalog. Colours then follow the order of the result files'
   ``algorithms`` blocks, labels write parameters as ``name=value``, and
   ``Catalog.source`` says so.

Everything that depends on what exists (colours, the report test's scenario generator,
the fuzz dictionary) reads it from here rather than from a list of names.

``algorithm_catalog(block)`` turns a result file's own ``algorithms`` block (the same
per-algorithm shape) into a table for the report.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ._tables import tables as _t

ROOT = Path(__file__).resolve().parent.parent.parent


@dataclass
class Catalog:
    """What chsim knows, as ``chsim list --json`` prints it (lists of objects, each with a
    ``name``), in registry order; docs/extending.md documents the format."""
    algorithms: list = field(default_factory=list)
    workloads: list = field(default_factory=list)
    metrics: list = field(default_factory=list)
    profiles: list = field(default_factory=list)
    hashers: list = field(default_factory=list)
    metric_groups: list = field(default_factory=list)  # names, in the catalog's order
    source: str = "none"

    def names(self, kind: str = "algorithms") -> list[str]:
        return [e["name"] for e in getattr(self, kind)]

    def entry(self, kind: str, name: str) -> dict | None:
        return next((e for e in getattr(self, kind) if e["name"] == name), None)

    def parameter(self, algorithm: str, name: str) -> dict | None:
        a = self.entry("algorithms", algorithm) or {}
        return next((p for p in a.get("parameters", []) if p.get("name") == name), None)

    def workload_skewed(self, name: str) -> bool | None:
        """True when the workload's load units are not equally likely keys, from its `unit`:
        "request" (requests over keys that repeat: a popularity law) is skewed, "key"
        (distinct keys) is not; None for another unit ("line": a file, weighted or not) or
        an unknown workload (then the results decide: see load.py)."""
        unit = (self.entry("workloads", name) or {}).get("unit")
        return {"request": True, "key": False}.get(unit)

    def metric_group(self, metric: str) -> str:
        """The catalog's group of a metric (balance, remap, ...: ``chsim list --json``'s
        ``group``); UNGROUPED for a catalogued metric of no group (``nodes``), UNCATALOGUED
        for a metric the catalog does not list."""
        e = self.entry("metrics", metric)
        if e is None:
            return UNCATALOGUED
        return str(e.get("group") or UNGROUPED)

    def group_order(self) -> list[str]:
        """The catalog's metric groups in its order (``metric_groups``, else the order of
        the metrics), then UNGROUPED and UNCATALOGUED."""
        names = list(self.metric_groups) or [str(e["group"]) for e in self.metrics
                                             if e.get("group")]
        return list(dict.fromkeys(names + [UNGROUPED, UNCATALOGUED]))


UNGROUPED = "ungrouped"
UNCATALOGUED = "uncatalogued"


def from_json(doc: dict, source: str = "memory") -> Catalog:
    """A Catalog from the JSON of ``chsim list --json`` (objects with ``name``; a list of
    names or an object keyed by name is accepted too)."""
    def entries(v):
        if isinstance(v, dict):
            v = [dict(x, name=k) if isinstance(x, dict) else {"name": k, "doc": x}
                 for k, x in v.items()]
        out = []
        for e in v or []:
            if isinstance(e, str):
                e = {"name": e}
            if isinstance(e, dict):
                name = e.get("name", e.get("type", e.get("algorithm")))
                if name:
                    out.append(dict(e, name=str(name)))
        return out
    groups = doc.get("metric_groups")
    return Catalog(**{k: entries(doc.get(k)) for k in
                      ("algorithms", "workloads", "metrics", "profiles", "hashers")},
                   metric_groups=[str(g) for g in groups] if isinstance(groups, list) else [],
                   source=source)


def read_catalog(chsim: str) -> Catalog:
    """``chsim list --json`` of the binary `chsim`; raises RuntimeError when it fails."""
    p = subprocess.run([chsim, "list", "--json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{chsim} list --json: exit {p.returncode}: {p.stderr.strip()[:200]}")
    return from_json(json.loads(p.stdout), source=f"{chsim} list --json")


def _find_chsim() -> str | None:
    given = os.environ.get("CHSIM")
    if given:
        return given
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import chsimlib
        return chsimlib.find_chsim(None)
    except (ImportError, LookupError):
        return None
    finally:
        sys.path.remove(str(ROOT / "scripts"))


def _module_catalog() -> Catalog | None:
    """The catalog of the Python module (``import chsim``), when it is importable: the same
    document ``chsim list --json`` prints (an installed module finds no binary)."""
    try:
        import chsim
    except ImportError:
        return None
    kinds = ("algorithms", "workloads", "metrics", "profiles", "hashers")
    return from_json({k: getattr(chsim, k)() for k in kinds}, source="the chsim Python module")


_CACHE: dict = {}


def catalog() -> Catalog:
    """The catalog (see the module docstring for where it comes from); read once per
    process and source."""
    path = os.environ.get("CHSIM_CATALOG")
    key = ("file", path) if path else ("chsim", os.environ.get("CHSIM"))
    if key in _CACHE:
        return _CACHE[key]
    cat = Catalog(source="none: no CHSIM_CATALOG file and no chsim binary found")
    try:
        if path:
            cat = from_json(json.loads(Path(path).read_text(encoding="utf-8")), source=path)
        else:
            chsim = _find_chsim()
            cat = read_catalog(chsim) if chsim else _module_catalog() or cat
    except (OSError, ValueError, RuntimeError) as e:
        print(f"catalog: {e}; colours follow the result files instead", file=sys.stderr)
    _CACHE[key] = cat
    return cat


# --- a result file's `algorithms` block -----------------------------------------------------
# algorithm_catalog(block): the table of a result file's `algorithms` block, as chsim.tables
# builds it for every result file (sim/python/chsim/tables.py).
CATALOG_COLUMNS = _t.CATALOG_COLUMNS
algorithm_catalog = _t.algorithm_catalog
removals_text = _t.removals_text
