# SPDX-License-Identifier: Apache-2.0
"""chsim from Python: the consistent-hashing core and the simulator, in-process.

    import chsim
    ring = chsim.Ring(["10.0.0.1:11211", "10.0.0.2:11211"], profile="libmemcached")
    ring.locate("user:1")                      # the server label, as libmemcached maps it
    idx = ring.locate_batch(numpy_keys)        # node ids (numpy uint32), GIL released
    idx.labels[idx]                            # the label of each key
    res = chsim.run({"schema_version": 1, ...})  # or a scenario file path
    res.summary                                # pandas (chsim.tables), as the notebooks load it
    chsim.tune(nodes=200, max_over_mean=1.1)   # the dict `chsim tune --json` writes

Everything is read from chsim's registries: chsim.profiles(), hashers(), algorithms(),
replica_strategies(), topology(), workloads() and metrics() list what the C++ offers, with the
parameters' ranges and defaults. Errors are exceptions with chsim's one-line messages: chsim.ScenarioError (a
ValueError) for a scenario chsim refuses, ValueError for a bad value, TypeError for a wrong
type. Ctrl-C (KeyboardInterrupt) stops run, validate and tune cleanly.
"""
import json as _json
import sys as _sys

import numpy as _np

from . import _chsim
from ._chsim import (Algorithm, Ring, ScenarioError, algorithms, case_id, case_label, hash,
                     hashers, metrics, parse_case_id, profiles, replica_strategies, theory,
                     topology, validate, workloads)

__version__ = _chsim.__version__
_sys.modules[__name__ + ".theory"] = theory  # from chsim.theory import cv

__all__ = ["Algorithm", "NodeIndices", "Results", "Ring", "ScenarioError", "algorithms",
           "case_id", "case_label", "hash", "hashers", "metrics", "parse_case_id", "profiles",
           "replica_strategies", "run", "theory", "topology", "tune", "validate", "workloads"]


class NodeIndices(_np.ndarray):
    """The node id of each key (numpy uint32), as Algorithm.locate_batch returns them.

    ``labels`` holds the label of every id the algorithm ever issued (removed nodes too),
    so ``idx.labels[idx]`` gives each key's label. Slices and copies keep ``labels``.
    """

    labels: _np.ndarray

    def __array_finalize__(self, obj):
        self.labels = getattr(obj, "labels", None)


_chsim._set_indices_type(NodeIndices)


class Results:
    """What chsim.run returns: the result file `chsim run` writes for the same scenario,
    in memory.

    ``rows``, ``summary``, ``per_node``, ``cases``, ``transitions`` and ``algorithms`` are
    the pandas tables of that file, built by ``chsim.tables`` as the notebooks'
    ``chsim_results.load`` builds them (needs pandas);
    ``doc`` is the document as a dict; ``to_json(path)`` writes the file, byte for byte
    what the CLI writes (whole or not at all).
    """

    def __init__(self, data: bytes):
        self._data = data
        self._doc = None
        self._tables = None

    @property
    def doc(self) -> dict:
        """The result document (results/README.md describes every field)."""
        if self._doc is None:
            self._doc = _json.loads(self._data)
        return self._doc

    def _table(self, name: str):
        if self._tables is None:
            from . import tables  # needs pandas
            self._tables = tables.result_tables(
                self.doc, "<chsim.run>", tables.Catalog(algorithms(), workloads()))
        return self._tables[name]

    @property
    def rows(self):
        """One metric value per row (pandas DataFrame)."""
        return self._table("rows")

    @property
    def summary(self):
        """Mean and 95% confidence interval across trials, per case, step and metric."""
        return self._table("summary")

    @property
    def per_node(self):
        """The per-node table: load, expected load, share, moves per node and step."""
        return self._table("nodes")

    @property
    def cases(self):
        """One row per case: id, algorithm, parameters, node count, status."""
        return self._table("cases")

    @property
    def transitions(self):
        """Remap transitions between nodes (when the scenario asks for them)."""
        return self._table("transitions")

    @property
    def algorithms(self):
        """The catalog entry of every algorithm the scenario names."""
        return self._table("algorithms")

    def to_json(self, path) -> None:
        """Writes the result file to path, as `chsim run -o path` would."""
        _chsim._write_file_atomically(path, self._data)

    def __repr__(self) -> str:
        d = self.doc
        return (f"<chsim.Results {d['scenario'].get('name', '?')}: {len(d['cases'])} cases, "
                f"{len(d['rows'])} rows>")


def run(scenario, threads=None, progress=True, seed=None, force=False) -> Results:
    """Runs a scenario, as `chsim run` does, and returns its Results.

    scenario  a dict (the JSON of a scenario file; relative paths in it are taken from the
              working directory) or a scenario file path.
    threads   worker threads (default: every core); the rows do not depend on it.
    progress  a progress line on stderr while it runs.
    seed      replaces the scenario's master seed.
    force     run beyond the work limit `chsim run` keeps without --force.

    The same scenario and seed give the same deterministic rows as the CLI. Raises
    chsim.ScenarioError for a scenario chsim refuses (the CLI's message), RuntimeError
    when a run fails (a key file unreadable mid-run); Ctrl-C stops it cleanly
    (KeyboardInterrupt, nothing kept).
    """
    return Results(_chsim._run(scenario, threads=threads, progress=progress, seed=seed,
                               force=force))


def tune(*, nodes=None, servers=None, max_over_mean=None, max_excess_churn=None,
         confidence=0.95, profile=None, algorithm=None, hasher=None, hash_algorithm=None,
         min_ring_size=None, max_ring_size=None, maglev_table_size=None, metric="structural",
         keys=1_000_000, draws=2000, time_budget=20.0, seed=1, threads=None,
         progress=False) -> dict:
    """The least points per node (ring), table size (maglev) or probes (multi_probe) that
    keep max/mean at or under a target with a confidence, as `chsim tune` finds it; returns
    the dict `chsim tune --json` writes (request, answer, estimates).

    Give nodes (a count: names are drawn) or servers (a server-list path, a list of
    server-list lines or a dict {label: weight}: tuned exactly), and max_over_mean (> 1)
    or max_excess_churn (maglev). The other options are the command's flags (chsim tune
    --help); min_ring_size, max_ring_size (envoy-ring) and maglev_table_size (envoy-maglev)
    are --min-ring-size, --max-ring-size and --maglev-table-size: the current setting and
    the bound, None for the configuration's or the program's default. progress: a line
    per candidate on stderr. Raises ValueError or TypeError with the command's messages;
    Ctrl-C stops it between candidates.
    """
    return _chsim._tune(nodes=nodes, servers=servers, max_over_mean=max_over_mean,
                        max_excess_churn=max_excess_churn, confidence=confidence,
                        profile=profile, algorithm=algorithm, hasher=hasher,
                        hash_algorithm=hash_algorithm, min_ring_size=min_ring_size,
                        max_ring_size=max_ring_size, maglev_table_size=maglev_table_size,
                        metric=metric, keys=keys, draws=draws,
                        time_budget=time_budget, seed=seed, threads=threads, progress=progress)
