#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The Python module's batched lookups against the C++ LocateBatch and uhashring, timed side
by side in one process (ratios, so a loaded machine moves both sides alike).

Usage: PYTHONPATH=build/release/python bench/python_locate.py [--keys N] [--servers N]
                                                             [--repeats R] [--json FILE]

For each ring (the uhashring and spymemcached profiles) and a few algorithms, over N keys
"user:<random>" (default 10^6) and 100 servers, the least of R passes (default 5) of:
  native   the C++ lookup of the keys, views made beforehand: Ring::LocateBatch for rings,
           HashBatch + Algorithm::LocateBatch otherwise (Algorithm._native_seconds_per_key)
  S array  locate_batch on a numpy bytes array (dtype S)
  str list locate_batch on a Python list of str
and, for the uhashring profile, uhashring's HashRing.get_node over the same keys in a Python
loop (one pass; Debian's python3-uhashring), checked key for key against the ring first.
Prints ns per key and the ratios the module's targets are stated in (S array / native
<= 1.3, str list / native <= 2.5, uhashring / str list >= 100).
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import chsim


def best(f, repeats):
    t = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--servers", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="also write the figures here")
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    as_bytes = np.char.add(b"user:", rng.integers(0, 10**12, a.keys).astype("S12"))
    as_str = as_bytes.astype(str).tolist()
    servers = ["10.0.%d.%d:11211" % (i // 250, i % 250 + 1) for i in range(a.servers)]
    targets = [("ring uhashring", chsim.Ring(servers, profile="uhashring")),
               ("ring spymemcached", chsim.Ring(servers, profile="spymemcached")),
               ("ring xxh3 (algorithm)", chsim.Algorithm("ring", servers, hasher="xxh3")),
               ("jump", chsim.Algorithm("jump", servers)),
               ("maglev", chsim.Algorithm("maglev", servers))]
    rows = []
    print(f"{a.keys} keys, {a.servers} servers, best of {a.repeats} interleaved passes; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'':24} {'native':>8} {'S array':>8} {'str list':>8}   S/native  list/native")
    for name, t in targets:
        # Interleaved (native, S, list, native, ...): machine drift hits all three alike.
        native = s_array = s_list = float("inf")
        for _ in range(a.repeats):
            native = min(native, t._native_seconds_per_key(as_bytes, 1) * 1e9)
            s_array = min(s_array, best(lambda: t.locate_batch(as_bytes), 1) / a.keys * 1e9)
            s_list = min(s_list, best(lambda: t.locate_batch(as_str), 1) / a.keys * 1e9)
        row = {"target": name, "native_ns": native, "s_array_ns": s_array, "str_list_ns": s_list,
               "s_array_ratio": s_array / native, "str_list_ratio": s_list / native}
        print(f"{name:24} {native:8.1f} {s_array:8.1f} {s_list:8.1f}   {s_array / native:8.2f}"
              f"  {s_list / native:11.2f}")
        rows.append(row)
    try:
        from uhashring import HashRing
    except ImportError:
        print("uhashring: not installed (Debian python3-uhashring); skipped")
    else:
        hr = HashRing(nodes=servers, hash_fn="ketama")
        ring = targets[0][1]
        idx = ring.locate_batch(as_str[:10000])
        assert [hr.get_node(k) for k in as_str[:10000]] == list(idx.labels[idx]), \
            "uhashring and Ring(profile='uhashring') disagree"
        get = hr.get_node
        t0 = time.perf_counter()
        for k in as_str:
            get(k)
        u = (time.perf_counter() - t0) / a.keys * 1e9
        vs_list, vs_array = u / rows[0]["str_list_ns"], u / rows[0]["s_array_ns"]
        print(f"uhashring get_node loop: {u:.0f} ns per key = {vs_list:.0f}x locate_batch(str "
              f"list), {vs_array:.0f}x locate_batch(S array) of Ring(profile='uhashring')")
        rows.append({"target": "uhashring get_node", "ns": u, "vs_str_list": vs_list,
                     "vs_s_array": vs_array})
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"keys": a.keys, "servers": a.servers, "repeats": a.repeats,
                       "load_average": os.getloadavg()[0], "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
