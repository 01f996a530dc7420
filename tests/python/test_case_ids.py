# SPDX-License-Identifier: Apache-2.0
"""chsim.case_id, parse_case_id and case_label against the ids `chsim run` writes: every
case of a sweep over algorithms, parameters, node counts, patterns and workload values reads
back to the file's algorithm, parameters and axes, and formats back to the same id; the
labels equal the notebooks' (chsim_results.label_from_case_id)."""
import json

import pytest

import chsim
import chsim_results
from conftest import cli

SWEEP = {
    "schema_version": 1, "name": "ids", "nodes": {"count": [5, 12], "pattern": ["h{i}", "n-{i}:1"]},
    "algorithms": [
        {"algorithm": "ring", "hasher": ["md5", "xxh3"], "points_per_node": [40, 160]},
        {"algorithm": "ketama", "profile": ["libmemcached", "uhashring"]},
        {"algorithm": "maglev", "table_size": ["auto", 1009]},
        {"algorithm": "bounded_load", "balance_factor": [1.25, 2]},
        {"algorithm": "jump"},
        {"algorithm": "multi_probe", "probes": 7, "key_hasher": "md5"},
    ],
    "workload": {"type": "zipf", "keys": [100, 200], "requests": 300, "exponent": [0.8, 1.1]},
    "metrics": ["balance"],
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    d = tmp_path_factory.mktemp("ids")
    (d / "s.json").write_text(json.dumps(SWEEP))
    cli("run", d / "s.json", "-o", d / "r.json", "-q")
    return json.loads((d / "r.json").read_text())["cases"]


def test_ids_read_back_and_format_back(cases):
    assert len(cases) == 2 * 2 * 2 * 2 * (4 + 2 + 2 + 2 + 1 + 1)
    for c in cases:
        parts = chsim.parse_case_id(c["case_id"])
        assert parts["algorithm"] == c["algorithm"]
        for name, value in parts["params"].items():
            assert c["params"][name] == value, (c["case_id"], name)
        assert parts["axes"] == c["axes"], c["case_id"]
        assert chsim.case_id(parts["algorithm"], parts["params"], parts["axes"]) == c["case_id"]
        # The parameters in any order: written in the spec's.
        reordered = dict(reversed(list(parts["params"].items())))
        assert chsim.case_id(c["algorithm"], reordered, c["axes"]) == c["case_id"]


def test_labels_equal_the_notebooks(cases):
    for c in cases:
        assert chsim.case_label(c["case_id"]) == chsim_results.label_from_case_id(c["case_id"])
        assert chsim.case_label(c["case_id"], drop=["hasher"]) == \
            chsim_results.label_from_case_id(c["case_id"], drop=("hasher",))
    assert chsim.case_label("ring(hasher=md5,points_per_node=40)/n=10") == "ring(md5, v=40)"


def test_bad_ids():
    for bad, match in [("consistent(x=1)", "unknown algorithm 'consistent'"),
                       ("ring(points=4)", "ring has no parameter 'points'"),
                       ("ring(points_per_node=4", r"no '\)'"),
                       ("ring(points_per_node=x)", "points_per_node is not a number"),
                       ("ring/oops", "found '/oops'")]:
        with pytest.raises(ValueError, match=match):
            chsim.parse_case_id(bad)
    with pytest.raises(ValueError, match="jump has no parameter 'hasher'"):
        chsim.case_id("jump", {"hasher": "md5"})
    with pytest.raises(TypeError, match="params must be a dict"):
        chsim.case_id("jump", ["x"])
