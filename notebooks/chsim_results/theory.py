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


def replica_neighbours(peers, points, copies):
    """Lynch & Snyder's expected distinct replica neighbours of a node ("Cassandra
    Availability with Virtual Nodes", Netflix, 2018): a ring with `points` random tokens per
    node walked clockwise for `copies` copies, `peers` eligible peers (n - 1; 2n/3 with three
    equal racks): peers (1 - (1 - 1/peers)^(2 points (copies - 1))). chsim's tune writes the
    same figure (sim/run/copysets.h)."""
    return peers * -math.expm1(2 * points * (copies - 1) * math.log1p(-1 / peers))


def copysets_loss(nodes, failed, copies, copysets):
    """The Copysets paper's probability that some key loses every copy when `failed` of
    `nodes` fail at random, with `copysets` distinct copysets of `copies` nodes (Cidon et al.,
    ATC 2013): 1 - (1 - M / C(N,R))^C(F,R); as chsim's replicas.loss.formula."""
    if failed < copies or copysets <= 0:
        return 0.0
    share = copysets / math.comb(int(nodes), int(copies))
    if share >= 1:
        return 1.0
    return -math.expm1(math.comb(int(failed), int(copies)) * math.log1p(-share))
