# SPDX-License-Identifier: Apache-2.0
"""Two Python threads calling locate_batch at once get the right answers; lookups and
add/remove from different threads never mix (the lookups wait for a change to finish)."""
import threading

import numpy as np

import chsim


def keys(n, seed):
    r = np.random.default_rng(seed)
    return np.char.add(b"key:", r.integers(0, 10**12, n).astype("S13"))


def test_two_threads_locate_batch_at_once():
    ring = chsim.Ring(["10.0.%d.%d:11211" % (i // 250, i % 250) for i in range(300)],
                      profile="libmemcached")
    algo = chsim.Algorithm("maglev", 300)
    inputs = [keys(400_000, 1), list(keys(200_000, 2).astype(str))]
    for target in (ring, algo):
        expected = [target.locate_batch(k) for k in inputs]
        barrier = threading.Barrier(2)
        got = [[], []]

        def work(i):
            barrier.wait()
            for _ in range(4):
                got[i].append(target.locate_batch(inputs[i]))

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)  # hung, if it takes this long
            assert not t.is_alive()
        for i in range(2):
            assert len(got[i]) == 4
            for g in got[i]:
                np.testing.assert_array_equal(g, expected[i])


def test_lookups_during_add_and_remove():
    algo = chsim.Algorithm("anchor", ["n%d:1" % i for i in range(50)], capacity=200)
    k = keys(50_000, 3)
    stop = threading.Event()
    errors = []

    def look():
        while not stop.is_set():
            idx = algo.locate_batch(k)
            if idx.max() >= len(idx.labels):
                errors.append("an id without a label")

    t = threading.Thread(target=look)
    t.start()
    for i in range(100):
        algo.add("x%d:1" % i)
        algo.remove("x%d:1" % i)
    stop.set()
    t.join(timeout=600)
    assert not errors
    assert len(algo) == 50
