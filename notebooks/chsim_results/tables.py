# SPDX-License-Identifier: Apache-2.0
"""Small helpers over the loaded tables: columns that may be missing, one row per key,
one metric, wide tables, the points per node of ring-like cases, natural sorting."""
from __future__ import annotations

import re

import pandas as pd


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


def natural_key(text: str):
    """Sort key that orders embedded numbers numerically (10.0.0.9 before 10.0.0.10)."""
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


def pick_spread(values, k: int) -> list:
    """At most `k` of the sorted distinct `values`, spread evenly (first and last kept)."""
    vals = sorted(set(values))
    if len(vals) <= k:
        return vals
    idx = sorted({round(i * (len(vals) - 1) / (k - 1)) for i in range(k)})
    return [vals[i] for i in idx]

