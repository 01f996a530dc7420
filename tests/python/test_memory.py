# SPDX-License-Identifier: Apache-2.0
"""Repeated calls do not grow memory: RSS stays bounded over 10^3 runs of a tiny scenario,
10^3 rings built and dropped, and 10^3 refusals."""
import os

import pytest

import chsim

TINY = {"schema_version": 1, "name": "tiny", "nodes": {"count": 8},
        "algorithms": [{"algorithm": "ring", "points_per_node": 40}, {"algorithm": "anchor"}],
        "workload": {"type": "uniform", "keys": 500},
        "events": [{"op": "remove", "random": 1}], "output": {"per_node": "all"}}


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def cycle(i):
    r = chsim.run(TINY, threads=1, progress=False)
    assert r.doc["rows"]
    if i % 50 == 0:
        assert len(r.rows) > 0  # the pandas tables too
    ring = chsim.Ring(["a:1", "b:1", "c:%d" % (i % 7 + 1)], profile="twemproxy")
    ring.locate_batch([b"k%d" % j for j in range(200)])
    ring.add("d:1")
    ring.remove("a:1")
    ring.points()
    with pytest.raises(chsim.ScenarioError):
        chsim.run(dict(TINY, trials=0))
    with pytest.raises(ValueError):
        ring.locate_batch(["\udc80"])


def test_rss_bounded_over_1000_runs():
    for i in range(100):  # warm up: caches, pandas, allocator arenas
        cycle(i)
    before = rss_mb()
    for i in range(1000):
        cycle(i)
    growth = rss_mb() - before
    assert growth < 20, f"RSS grew by {growth:.1f} MB over 1000 runs"
