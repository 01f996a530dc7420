# SPDX-License-Identifier: Apache-2.0
"""uhashring 2.1 (Debian python3-uhashring) peer: HashRing(nodes, hash_fn='ketama').

Nodes are the list labels exactly as written.  A weighted list is passed as a dict
{label: {'weight': w}}; an unweighted one as a plain list, after checking that the dict form
with weight 1 builds the identical ring.  Keys are passed as str (decoded UTF-8).
"""

import uhashring
from uhashring import HashRing


def version():
    return getattr(uhashring, "__version__", "unknown")


def build(servers, weighted):
    labels = [s[0] for s in servers]
    if weighted:
        return HashRing({s[0]: {"weight": s[3]} for s in servers}, hash_fn="ketama")
    ring = HashRing(labels, hash_fn="ketama")
    twin = HashRing({label: {"weight": 1} for label in labels}, hash_fn="ketama")
    if ring.get_points() != twin.get_points():
        raise RuntimeError("uhashring: list and dict(weight=1) forms build different rings")
    return ring


def locate(ring, keys):
    return [ring.get_node(k.decode("utf-8")) for k in keys]


def points(ring):
    """Every point the peer keeps, in ring order (duplicates kept, each printed with the node
    the ring dict gives it): the runtime's `_keys` and `_ring`."""
    rt = ring.runtime
    return [(p, rt._ring[p]) for p in rt._keys]
