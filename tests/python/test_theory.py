# SPDX-License-Identifier: Apache-2.0
"""chsim.theory gives the theory.* rows chsim writes, and tune's analytic guess."""
import json
import math
from statistics import NormalDist

import pytest

import chsim
from conftest import cli


def test_theory_rows_equal_the_functions(tmp):
    (tmp / "s.json").write_text(json.dumps({
        "schema_version": 1, "name": "th", "nodes": {"count": [7, 100]},
        "algorithms": [{"algorithm": "ring", "points_per_node": [10, 160, 1000]}],
        "workload": {"type": "uniform", "keys": 100}, "metrics": ["balance"]}))
    cli("run", tmp / "s.json", "-o", tmp / "r.json", "-q")
    rows = json.loads((tmp / "r.json").read_text())["rows"]
    checked = 0
    for r in rows:
        v, n = r["params"]["points_per_node"], r["n"]
        want = {"theory.cv": chsim.theory.cv(v),
                "theory.max_over_mean": chsim.theory.max_over_mean(n, v),
                "theory.wh99_low": chsim.theory.wh_quantile(v, 0.005),
                "theory.wh99_high": chsim.theory.wh_quantile(v, 0.995)}.get(r["metric"])
        if want is not None:
            assert math.isclose(r["value"], want, rel_tol=1e-12), r
            checked += 1
    assert checked == 4 * 6


def test_quantiles():
    for q in (1e-12, 0.001, 0.02425, 0.3, 0.5, 0.9, 0.995, 1 - 1e-9):
        z = NormalDist().inv_cdf(q)
        a = 1 / (9 * 40)
        assert math.isclose(chsim.theory.wh_quantile(40, q), max(0, 1 - a + z * math.sqrt(a)) ** 3,
                            rel_tol=1e-12, abs_tol=1e-15)
    assert chsim.theory.max_ratio_quantile(100, 160, 0.95) == \
        chsim.theory.wh_quantile(160, 0.95 ** (1 / 100))
    rel = math.sqrt((2 + 6 / 160) / (4 * 99))
    assert math.isclose(chsim.theory.cv_quantile(100, 160, 0.9),
                        (1 + NormalDist().inv_cdf(0.9) * rel) / math.sqrt(160), rel_tol=1e-12)


def test_points_for_target_is_the_smallest_v_that_reaches_it():
    v = chsim.theory.points_for_target(200, 1.1, 0.95)
    assert chsim.theory.max_ratio_quantile(200, v, 0.95) <= 1.1 + 1e-9
    assert chsim.theory.max_ratio_quantile(200, v * 0.999, 0.95) > 1.1
    with pytest.raises(ValueError, match=r"max_over_mean must be a number > 1 \(found 1\)"):
        chsim.theory.points_for_target(200, 1)
    with pytest.raises(ValueError, match=r"q must be a number in \(0, 1\) \(found 1\)"):
        chsim.theory.wh_quantile(10, 1)
