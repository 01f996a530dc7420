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

The functions live in ``chsim.tables`` (sim/python/chsim/tables.py), which the Python
module's ``Results`` uses too; here they read the catalog of ``catalog.catalog()``.
"""
from __future__ import annotations

import pandas as pd

from . import catalog as _catalog
from ._tables import tables as _t

TABLES = _t.TABLES
algorithm_of = _t.algorithm_of
case_params = _t.case_params
label_params = _t.label_params
setting_keys = _t.setting_keys


def label_from_case_id(case_id: str, drop=()) -> str:
    """A short name for a case: its algorithm with the parameters the case id names, each as
    its spec writes it, those in `drop` left out.
    ``ring(hasher=md5,points_per_node=40)/n=20`` -> ``ring(md5, v=40)``."""
    return _t.label_from_case_id(case_id, drop, _catalog.catalog())


def case_label(df: pd.DataFrame, drop=()) -> pd.Series:
    """The label of every row's setting (see the module docstring), stable across node
    counts, files and figures; parameters left to "auto" and those in `drop` left out."""
    return _t.case_label(df, drop, _catalog.catalog())


def add_settings(tables: dict) -> None:
    """Adds ``setting`` and ``label_case_id`` to every table of `tables` that has case ids,
    from its cases table (see the module docstring); in place."""
    _t.add_settings(tables, _catalog.catalog())
