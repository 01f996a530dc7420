#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""uhashring's side of the peer harness (bench/peers/run): HashRing(nodes, hash_fn='ketama')
builds and get_node lookups over the same files (Debian's python3-uhashring, /usr/bin/python3).
Times are the thread's CPU time, as chsim_peer's.
Usage: uhashring_peer.py KEYS_FILE SERVERS_FILE PASSES   Output: JSON lines as chsim_peer's."""
import json
import statistics
import sys
import time

from uhashring import HashRing


def report(op, ns, checksum):
    print(json.dumps({"op": op, "ns": statistics.median(ns), "samples": ns,
                      "checksum": str(checksum)}), flush=True)


def main():
    keys_path, servers_path, passes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(keys_path, "rb") as f:
        keys = f.read().decode("utf-8").split("\n")[:-1]
    with open(servers_path) as f:
        servers = [l for l in f.read().split("\n") if l]
    index = {s: i for i, s in enumerate(servers)}
    build = []
    for _ in range(max(1, passes)):
        t0 = time.thread_time_ns()
        ring = HashRing(nodes=servers, hash_fn="ketama")
        build.append(time.thread_time_ns() - t0)
    report("build", build, 0)
    ns, checksum = [], 0
    get = ring.get_node
    for _ in range(max(1, passes)):
        t0 = time.thread_time_ns()
        owners = [get(k) for k in keys]
        ns.append((time.thread_time_ns() - t0) / len(keys))
    checksum = 0
    for o in owners:
        checksum = (checksum * 1000003 + index[o]) & 0xFFFFFFFFFFFFFFFF
    report("lookup", ns, checksum)


if __name__ == "__main__":
    main()
