# SPDX-License-Identifier: Apache-2.0
"""The balance theory of a ring with v random points per node (docs/design.md#balance-theory);
chsim writes the same quantities as ``theory.*`` rows and its tune model uses them, and a test
(tests/notebooks/theory_test.py) holds the two implementations to each other.

A node's share of the key space over the mean share is about Gamma(v, 1/v). By Wilson &
Hilferty (1931), X^(1/3) is about Normal(1 - a, a) with a = 1/(9v). ``wh_quantile`` gives
the quantiles of one node, ``max_ratio_quantile`` those of the largest of n nodes (treated
as independent), ``theory_cv`` and ``theory_max_over_mean`` the closed forms, ``cv_band``
the spread of the sample CV, and ``points_for_target`` the least v meeting a target.
"""
from __future__ import annotations

import math
from statistics import NormalDist

Z99 = NormalDist().inv_cdf(0.995)  # 2.5758...


def theory_cv(v):
    """Coefficient of variation of the node shares: 1 / sqrt(v)."""
    return 1.0 / math.sqrt(v)


def theory_max_over_mean(n, v):
    """The closed form of the hottest node: 1 + sqrt(2 ln n / v)."""
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
