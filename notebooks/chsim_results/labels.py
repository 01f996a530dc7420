# SPDX-License-Identifier: Apache-2.0
"""Names of algorithm settings, as the figures and tables show them.

A *setting* is an algorithm with the parameters it ran with (the case's ``params``, defaults
filled in by chsim), those the scenario left to "auto" (a maglev table sized from n) counted
as "auto": ``ketama`` and ``ketama(profile=spymemcached)`` are one setting, and so are
``ring`` and ``ring(hasher=xxh3,points_per_node=160)``. ``add_settings`` gives every table of
the loaded results a ``setting`` key and ``label_case_id``: the case id of the setting that
names the most parameters ("auto" where the scenario said so, and, where two settings would
read alike, the parameters that tell them apart). Its label (``label_from_case_id``) is what
every figure and table shows: ``ring(hasher=md5,points_per_node=40)/n=20`` ->
``ring(md5, v=40)``, each parameter written as its spec says (the catalog's ``symbol`` and
``bare``), as chsim's own labels are (``chsim.case_label``).
"""
from __future__ import annotations

import json
import math

import pandas as pd

from . import catalog as _catalog

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


def _param_text(alg: str, name: str, value: str) -> str:
    """One parameter as its spec writes it: the value alone where ``bare`` (hashers,
    profiles), ``symbol=value`` where it has a symbol (v, M, c), else ``name=value``."""
    spec = _catalog.catalog().parameter(alg, name) or {}
    return value if spec.get("bare") else f"{spec.get('symbol') or name}={value}"


def label_from_case_id(case_id: str, drop=()) -> str:
    """A short name for a case: its algorithm with the parameters the case id names, each as
    its spec writes it (see _param_text), those in `drop` left out.
    ``ring(hasher=md5,points_per_node=40)/n=20`` -> ``ring(md5, v=40)``."""
    alg = algorithm_of(case_id)
    parts = [_param_text(alg, k, v) for k, v in case_params(case_id) if k not in drop]
    return f"{alg}({', '.join(parts)})" if parts else alg


def label_params(label: str) -> list[str]:
    """The parameter parts of a label: ``ring(md5, v=40)`` -> ["md5", "v=40"]."""
    _, _, rest = str(label).partition("(")
    return [p.strip() for p in rest.rsplit(")", 1)[0].split(",") if p.strip()] if rest else []


def case_label(df: pd.DataFrame, drop=()) -> pd.Series:
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
            cache[key] = label_from_case_id(cid, tuple(drop) + (tuple(a.split(",")) if a else ()))
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


def _representatives(c: pd.DataFrame) -> dict:
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
        by_label.setdefault(label_from_case_id(cid), []).append(setting)
    for group in (g for g in by_label.values() if len(g) > 1):
        ps = [params[s] for s in group]
        differ = sorted({k for p in ps for k in p if len({str(q.get(k)) for q in ps}) > 1})
        for s in group:
            given = dict(case_params(rep[s]))
            rep[s] = _case_id(algorithm_of(rep[s]), list(given.items()) +
                              [(k, params[s].get(k)) for k in differ if k not in given])
    return rep


def add_settings(tables: dict) -> None:
    """Adds ``setting`` and ``label_case_id`` to every table of `tables` that has case ids,
    from its cases table (see the module docstring); in place."""
    cases = tables.get("cases")
    if cases is None or cases.empty or "case_id" not in cases:
        return
    on = ["run", "case_id"] if "run" in cases else ["case_id"]
    c = cases.assign(setting=setting_keys(cases))
    c["label_case_id"] = c["setting"].map(_representatives(c))
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
