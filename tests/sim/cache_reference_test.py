#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The cache replay against an independent reference written here.

A plain LRU and FIFO (collections.OrderedDict, one per node, capacity in
objects or bytes) replays the same requests over the mapping `chsim locate`
gives for the same keys: before the event with the server list, after it with
`--remove LABEL`. Reads go through the node's cache (a miss inserts, an
object larger than the cache is never inserted, a hit keeps the stored size),
writes and deletes drop the object. The twin keeps the first mapping. chsim's
misses per node and step and its extra misses per step must equal the
reference's exactly.

Usage: cache_reference_test.py CHSIM SOURCE_DIR TEST, TEST one of:
  twitter   a Twitter-format trace with gets, sets and deletes, plain and zstd
  zipf      a Zipf stream written out as oracleGeneral records and as a
            header-named CSV
"""
import bisect
import collections
import ctypes
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

CHSIM, SOURCE, TEST = sys.argv[1], sys.argv[2], sys.argv[3]
HANG_S = 600  # a guard against a hang; every run here takes seconds
NODES = [f"10.1.0.{i}:11211" for i in range(1, 9)]
REMOVED = NODES[3]
ALGORITHMS = ["ring", "maglev", "anchor", "rendezvous", "jump"]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, stdin=None):
    try:
        p = subprocess.run([CHSIM] + args, capture_output=True, text=True, timeout=HANG_S)
    except subprocess.TimeoutExpired:
        fail(f"chsim {' '.join(args)}: hung: still running after {HANG_S} s")
    if p.returncode != 0:
        fail(f"chsim {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def locate(tmp, algorithm, keys, remove=None):
    """key -> server label, as `chsim locate` maps it. Jump cannot remove a
    middle node: the scenario rebuilds it over the survivors (on_unsupported:
    rebuild), which is jump over the list without that server."""
    keys_path = os.path.join(tmp, "keys.txt")
    with open(keys_path, "w") as f:
        f.write("".join(k + "\n" for k in keys))
    servers = os.path.join(tmp, "servers.txt")
    if remove and algorithm == "jump":
        servers = os.path.join(tmp, "survivors.txt")
        with open(servers, "w") as f:
            f.write("".join(n + "\n" for n in NODES if n != remove))
        remove = None
    args = ["locate", "--servers", servers, "--algorithm", algorithm]
    if remove:
        args += ["--remove", remove]
    out = run(args + [keys_path])
    mapping = dict(line.split("\t") for line in out.splitlines())
    if len(mapping) != len(keys):
        fail(f"locate {algorithm}: {len(mapping)} answers for {len(keys)} keys")
    return mapping


class Cache:
    """One node's cache: LRU or FIFO over an OrderedDict (front = oldest)."""

    def __init__(self, policy, capacity, by_bytes):
        self.policy, self.capacity, self.by_bytes = policy, capacity, by_bytes
        self.items = collections.OrderedDict()  # key -> size
        self.used = 0

    def charge(self, size):
        return max(size, 1) if self.by_bytes else 1

    def get(self, key, size):
        if key in self.items:
            if self.policy == "lru":
                self.items.move_to_end(key)
            return True
        if self.charge(size) > self.capacity:
            return False
        while self.used + self.charge(size) > self.capacity:
            _, old = self.items.popitem(last=False)
            self.used -= self.charge(old)
        self.items[key] = size
        self.used += self.charge(size)
        return False

    def drop(self, key):
        if key in self.items:
            self.used -= self.charge(self.items.pop(key))


def reference(requests, before, after, at, policy, capacity, by_bytes):
    """Misses per (step, node) of the run, and the twin's misses per step."""
    run = {n: Cache(policy, capacity, by_bytes) for n in NODES}
    twin = {n: Cache(policy, capacity, by_bytes) for n in NODES}
    misses = collections.Counter()
    twin_misses = collections.Counter()
    for i, (key, size, op) in enumerate(requests):
        step = 1 if i >= at else 0
        if i == at:
            del run[REMOVED]  # the removed node's cache is gone
        node = (after if step else before)[key]
        if op == "read":
            if not run[node].get(key, size):
                misses[(step, node)] += 1
            if not twin[before[key]].get(key, size):
                twin_misses[step] += 1
        else:
            run[node].drop(key)
            twin[before[key]].drop(key)
    return misses, twin_misses


def check(tmp, name, workload, requests, policy, capacity_field):
    at = len(requests) * 2 // 5
    scenario = {
        "schema_version": 1, "name": name, "seed": 5,
        "nodes": {"file": "servers.txt"},
        "algorithms": [{"algorithm": a} for a in ALGORITHMS],
        "workload": workload,
        "events": [{"op": "remove", "nodes": [REMOVED], "at": {"request": at}}],
        "on_unsupported": "rebuild",
        "metrics": ["cache"],
        "cache": {"policy": policy, "capacity": capacity_field, "window": 100},
    }
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(tmp, name + ".out.json")
    run(["run", path, "-o", out, "--quiet"])
    with open(out) as f:
        doc = json.load(f)
    keys = sorted({k for k, _, _ in requests})
    by_bytes = "bytes" in capacity_field
    capacity = next(iter(capacity_field.values()))
    for algorithm in ALGORITHMS:
        case = next(c for c in doc["cases"] if c["algorithm"] == algorithm)
        before = locate(tmp, algorithm, keys)
        after = locate(tmp, algorithm, keys, remove=REMOVED)
        misses, twin_misses = reference(requests, before, after, at, policy, capacity, by_bytes)
        got = {(r["step"], r["label"]): r["misses"] for r in doc["cache_nodes"]
               if r["case_id"] == case["case_id"]}
        want = {(s, n): misses[(s, n)] for s in (0, 1) for n in NODES
                if not (s == 1 and n == REMOVED)}
        if got != want:
            diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want)
                    if got.get(k) != want.get(k)}
            fail(f"{name} {algorithm}: misses per (step, node) differ, (chsim, reference): {diff}")
        for step in (0, 1):
            extra = next(r["value"] for r in doc["rows"] if r["case_id"] == case["case_id"]
                         and r["step"] == step and r["metric"] == "cache.extra_misses")
            total = sum(v for (s, _), v in misses.items() if s == step)
            if extra != total - twin_misses[step]:
                fail(f"{name} {algorithm} step {step}: extra misses {extra}, reference "
                     f"{total - twin_misses[step]}")
        if sum(misses.values()) == 0 or total - twin_misses[1] <= 0:
            fail(f"{name} {algorithm}: the stream shows no misses or no extra misses; the test "
                 "would not notice a wrong replay")
    print(f"ok: {name}: {len(requests)} requests, {len(ALGORITHMS)} algorithms")


def zipf_ranks(rng, objects, count, exponent):
    cumulative, total = [], 0.0
    for r in range(1, objects + 1):
        total += r ** -exponent
        cumulative.append(total)
    return [bisect.bisect_left(cumulative, rng.random() * total) + 1 for _ in range(count)]


def write_zstd(path):
    """The file at `path` compressed to PATH.zst with libzstd (through ctypes:
    Debian 12's Python has no zstd module), one frame."""
    lib = ctypes.CDLL("libzstd.so.1")
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compress.restype = ctypes.c_size_t
    lib.ZSTD_isError.restype = ctypes.c_uint
    with open(path, "rb") as f:
        data = f.read()
    out = ctypes.create_string_buffer(lib.ZSTD_compressBound(ctypes.c_size_t(len(data))))
    n = lib.ZSTD_compress(out, ctypes.c_size_t(len(out)), data, ctypes.c_size_t(len(data)), 3)
    if lib.ZSTD_isError(ctypes.c_size_t(n)):
        fail("libzstd could not compress the test trace")
    with open(path + ".zst", "wb") as f:
        f.write(out.raw[:n])
    return path + ".zst"


def test_twitter(tmp):
    rng = random.Random(17)
    sizes = {}
    requests, lines = [], []
    for i, rank in enumerate(zipf_ranks(rng, 400, 6000, 0.9)):
        key = f"ns:k{rank}"
        value = sizes.setdefault(key, rng.randint(10, 400))
        r = rng.random()
        op = "get" if r < 0.9 else ("set" if r < 0.96 else "delete")
        lines.append(f"{i},{key},{len(key)},{value},7,{op},0\n")
        requests.append((key, len(key) + value, "read" if op == "get" else "drop"))
    with open(os.path.join(tmp, "tw.csv"), "w") as f:
        f.writelines(lines)
    workload = {"type": "trace", "path": "tw.csv", "format": "twitter"}
    check(tmp, "twitter-lru", workload, requests, "lru", {"objects": 12})
    check(tmp, "twitter-fifo-bytes", workload, requests, "fifo", {"bytes": 3000})
    write_zstd(os.path.join(tmp, "tw.csv"))
    check(tmp, "twitter-zst", dict(workload, path="tw.csv.zst"), requests, "lru", {"bytes": 2000})


def test_zipf(tmp):
    rng = random.Random(23)
    ranks = zipf_ranks(rng, 3000, 8000, 1.0)
    size_of = {r: rng.randint(1, 2000) for r in set(ranks)}
    with open(os.path.join(tmp, "z.bin"), "wb") as f:
        for t, r in enumerate(ranks):
            f.write(struct.pack("<IQIq", t, r * 1000003, size_of[r], -1))
    requests = [(str(r * 1000003), size_of[r], "read") for r in ranks]
    check(tmp, "zipf-oracle-lru", {"type": "trace", "path": "z.bin", "format": "oracle_general"},
          requests, "lru", {"objects": 40})
    with open(os.path.join(tmp, "z.csv"), "w") as f:
        f.write("time,object,bytes\n")
        f.writelines(f"{t},obj-{r},{size_of[r]}\n" for t, r in enumerate(ranks))
    requests = [(f"obj-{r}", size_of[r], "read") for r in ranks]
    workload = {"type": "trace", "path": "z.csv", "format": "csv",
                "columns": {"key": "object", "size": "bytes"}}
    check(tmp, "zipf-csv-fifo", workload, requests, "fifo", {"bytes": 30000})


def main():
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "servers.txt"), "w") as f:
            f.write("".join(n + "\n" for n in NODES))
        {"twitter": test_twitter, "zipf": test_zipf}[TEST](tmp)


if __name__ == "__main__":
    main()
