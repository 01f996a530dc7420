#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""`chsim locate --replicas K` against independent Python readings, key for key.

Usage: cli_replicas_test.py CHSIM TEST, TEST one of:
  walk       the ring walk (Dynamo's preference list, Cassandra SimpleStrategy): clockwise from
             the key's point, the first K distinct servers. The rings are `chsim ring`'s own
             output for each peer profile whose key hash Python computes (md5's first 4 bytes
             little-endian, zlib's crc32), walked here with bisect; and the research ring
             (`--algorithm ring`) rebuilt in Python from its definition
             (tests/algorithms/cli_locate_reference.py). Also: K = 1 is plain `chsim locate`,
             K = the servers lists every server, and `--remove` walks the ring without it.
  topk       the K highest rendezvous scores, Mix64(Mix64(xxh3(key)) ^ Mix64(xxh3(label))),
             or -w / ln(u) with weights, ties to the earlier server.
  salted     K distinct servers from jump over the salted hashes h, Mix64(Mix64(h) ^ s) for
             s = 1, 2, ..., a colliding draw drawn again, 50 draws per copy at most.
  nts        Cassandra NetworkTopologyStrategy ported here from its source, both rack rules
             (3.0+: acceptableRackRepeats; 2.x: skippedDcEndpoints), over `chsim ring`'s points
             for servers in zones (datacenters, K split over them) and racks.
  topk_domain  rendezvous over the racks (seed Mix64(xxh3("rack=NAME")), weight the sum of its
             servers'), then over the servers of each, copies dealt round-robin in rank order.
  choosek    ConsistentChooseK over jump by its recurrence S(k, n) = {M} u S(k-1, M),
             M = max_{i<k} jump(h_i, n - i) + i, h_0 = h, h_i = Mix64(h + i gamma): the copies
             in the order S(j) adds them.
  crush      Ceph's placement of object names as osdmaptool printed it
             (tests/compat/golden-crush/objects.tsv): --algorithm straw2 over servers osd.0 ..
             osd.22 (server i is device i), --strategy crush --crush-map maps/racks.txt (crushtool
             -d's text), --pg-num ... --pool 1; and the refusals of a bad map (one
             line naming its file and line), a map for a strategy that reads none, an unknown
             strategy parameter.
  bad_input  refusals in one line with exit 2: K of 0, above the live servers, not a number; an
             unknown strategy (naming the accepted ones, from `chsim list --json`); a strategy
             that does not apply to the algorithm (naming those that do); --strategy without
             --replicas; an algorithm no strategy applies to.
Exit 0 when every comparison agrees; otherwise each difference is printed and the exit is 1.
"""
import bisect
import hashlib
import json
import math
import os
import sys
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "algorithms"))
import cli_locate_reference as ref  # noqa: E402  (xxh3 over libxxhash, Mix64, jump, ring)

from cli_common import FAILURES, chsim, fail, lines, main, refused  # noqa: E402


def write_servers(folder, name, entries):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.writelines(" ".join(map(str, e)) + "\n" for e in entries)
    return path


KEYS = [f"key:{i}".encode() for i in range(400)] + [b"user:1", b"", b"\xff\xfe"]
KEYS_TEXT = b"".join(k + b"\n" for k in KEYS)


def compare(what, got, want):
    """Compares KEY<TAB>... lines; returns the number that agree."""
    bad = [i for i in range(max(len(got), len(want)))
           if (got[i] if i < len(got) else None) != (want[i] if i < len(want) else None)]
    for i in bad[:5]:
        fail(f"{what}, line {i + 1}: chsim {got[i] if i < len(got) else None!r}, "
             f"Python {want[i] if i < len(want) else None!r}")
    if bad:
        fail(f"{what}: {len(bad)} of {len(want)} lines differ")
    return len(want) - len(bad)


def replica_lines(keys, sets, labels):
    return [b"\t".join([k] + [labels[i].encode() for i in s]) for k, s in zip(keys, sets)]


def walk(points, owners, h, k, greater):
    """The first k distinct owners clockwise from h (first point >= h, or > h)."""
    j = (bisect.bisect_right if greater else bisect.bisect_left)(points, h)
    out = []
    for step in range(len(points)):
        o = owners[(j + step) % len(points)]
        if o not in out:
            out.append(o)
            if len(out) == k:
                break
    return out


def key_hash(hasher, key):
    if hasher == "md5":
        return int.from_bytes(hashlib.md5(key).digest()[:4], "little")
    if hasher == "crc32":
        return zlib.crc32(key)
    return None


def test_walk(folder):
    catalog = json.loads(chsim("list", "--json").stdout)
    labels = [f"10.0.{i // 256}.{i % 256}:11211" for i in range(1, 38)]
    many = write_servers(folder, "many.txt", [(lab,) for lab in labels])
    few = write_servers(folder, "few.txt", [(lab,) for lab in labels[:5]])
    gone = labels[6]
    without = write_servers(folder, "without.txt", [(lab,) for lab in labels if lab != gone])
    profiles = [p for p in catalog["profiles"]
                if key_hash(p["key_hasher"], b"x") is not None and p["points_per_node"] > 1]
    if len(profiles) < 3:
        fail(f"only {[p['name'] for p in profiles]} have a key hash this test computes")
    for p in profiles:
        greater = p["lookup"] == "first point > hash"
        for servers, remove, ring_of, k in ((many, [], many, 3), (few, [], few, 5),
                                            (many, ["--remove", gone], without, 3)):
            ring = [line.decode().split("\t") for line in lines(chsim("ring", "--servers", ring_of,
                                                                      "--profile", p["name"]))]
            points = [int(pt) for pt, _ in ring]
            if points != sorted(points):
                fail(f"chsim ring --profile {p['name']}: points out of order")
            names = sorted({lab for _, lab in ring})
            owners = [names.index(lab) for _, lab in ring]
            want = replica_lines(KEYS, [walk(points, owners, key_hash(p["key_hasher"], key), k,
                                             greater) for key in KEYS], names)
            got = lines(chsim("locate", "--servers", servers, "--profile", p["name"], *remove,
                              "--replicas", k, "--strategy", "walk", "-", stdin=KEYS_TEXT))
            compare(f"walk over {p['name']}, {os.path.basename(servers)} {remove} K={k}", got, want)
            if k == len(names) and any(len(line.split(b"\t")) != k + 1 for line in got):
                fail(f"walk over {p['name']}: K = the servers does not list every server")
        plain = lines(chsim("locate", "--servers", many, "--profile", p["name"], "-",
                            stdin=KEYS_TEXT))
        one = lines(chsim("locate", "--servers", many, "--profile", p["name"], "--replicas", 1,
                          "-", stdin=KEYS_TEXT))
        compare(f"walk over {p['name']}: K=1 against plain locate", one, plain)
    # The research ring, its points rebuilt in Python; keys by xxh3's low 32 bits.
    nodes = [(lab, 1) for lab in labels]
    points, owners = ref.ring_points(nodes, 40)
    want = replica_lines(KEYS, [walk(points, owners, ref.xxh3(key) & 0xFFFFFFFF, 4, False)
                                for key in KEYS], labels)
    got = lines(chsim("locate", "--servers", many, "--algorithm", "ring", "--points", 40,
                      "--replicas", 4, "-", stdin=KEYS_TEXT))
    compare("walk over --algorithm ring --points 40, K=4", got, want)
    if not FAILURES:
        print(f"walk: {len(profiles)} profiles and the research ring agree with the Python walk")


def test_topk(folder):
    labels = [f"10.0.1.{i}:11211" for i in range(1, 24)]
    for name, entries, k in (("equal.txt", [(lab,) for lab in labels], 3),
                             ("weighted.txt", [(lab, 1 + i % 5) for i, lab in enumerate(labels)],
                              4),
                             ("five.txt", [(lab,) for lab in labels[:5]], 5)):
        servers = write_servers(folder, name, entries)
        weights = [e[1] if len(e) > 1 else 1 for e in entries]
        seeds = [ref.seed(e[0]) for e in entries]
        sets = []
        for key in KEYS:
            mixed = ref.mix64(ref.xxh3(key))
            draws = [ref.mix64(mixed ^ s) for s in seeds]
            if all(w == 1 for w in weights):
                order = sorted(range(len(entries)), key=lambda i: (-draws[i], i))
            else:
                score = [-w / math.log(ref.unit_open(x)) for w, x in zip(weights, draws)]
                order = sorted(range(len(entries)), key=lambda i: (-score[i], i))
            sets.append(order[:k])
        want = replica_lines(KEYS, sets, [e[0] for e in entries])
        got = lines(chsim("locate", "--servers", servers, "--algorithm", "rendezvous",
                          "--replicas", k, "--strategy", "topk", "-", stdin=KEYS_TEXT))
        agree = compare(f"topk over {name}, K={k}", got, want)
        print(f"topk over {name}, K={k}: {agree} of {len(want)} keys agree")


def test_salted(folder):
    labels = [f"10.0.2.{i}:11211" for i in range(1, 12)]
    servers = write_servers(folder, "s.txt", [(lab,) for lab in labels])
    n = len(labels)
    for k in (3, n):
        sets = []
        for key in KEYS:
            h = ref.xxh3(key)
            out, salt = [], 0
            while len(out) < k:
                for _ in range(50):
                    draw = h if salt == 0 else ref.mix64(ref.mix64(h) ^ salt)
                    salt += 1
                    b = ref.jump(draw, n)
                    if b not in out:
                        out.append(b)
                        break
                else:
                    break  # 50 collisions: short
            sets.append(out)
        want = replica_lines(KEYS, sets, labels)
        got = lines(chsim("locate", "--servers", servers, "--algorithm", "jump", "--replicas", k,
                          "--strategy", "salted", "-", stdin=KEYS_TEXT))
        agree = compare(f"salted over jump, K={k}", got, want)
        print(f"salted over jump, K={k}: {agree} of {len(want)} keys agree")


def ring_of(servers, profile):
    ring = [line.decode().split("\t") for line in lines(chsim("ring", "--servers", servers,
                                                              "--profile", profile))]
    return [int(pt) for pt, _ in ring], [lab for _, lab in ring]


def nts(points, owners, dc, rack, k, h, rule):
    """NetworkTopologyStrategy.calculateNaturalReplicas for the K copies split over the zones
    (datacenters, by first appearance), read from Cassandra's source: one walk for all."""
    zones = list(dict.fromkeys(dc.values()))
    rf = {z: k // len(zones) + (i < k % len(zones)) for i, z in enumerate(zones)}
    nodes = {z: sum(1 for s in dc if dc[s] == z) for z in zones}
    racks = {z: len({rack[s] for s in dc if dc[s] == z}) for z in zones}
    n, start = len(points), bisect.bisect_left(points, h) % len(points)
    out, left = [], {z: min(rf[z], nodes[z]) for z in zones}
    repeats = {z: rf[z] - racks[z] for z in zones}  # 3.0+: acceptableRackRepeats
    seen, skipped = set(), {z: [] for z in zones}   # 2.x: seenRacks, skippedDcEndpoints
    for step in range(n):
        if all(v == 0 for v in left.values()):
            break
        ep = owners[(start + step) % n]
        z = dc[ep]
        if left[z] == 0:
            continue
        new_rack = (z, rack[ep]) not in seen
        if rule == "in_walk":
            if new_rack:
                seen.add((z, rack[ep]))
            elif repeats[z] <= 0 or ep in out:
                continue
            else:
                repeats[z] -= 1
            out.append(ep)
            left[z] -= 1
            continue
        if len({r for (d, r) in seen if d == z}) == racks[z]:
            if ep not in out:
                out.append(ep)
                left[z] -= 1
        elif not new_rack:
            if ep not in skipped[z]:
                skipped[z].append(ep)
        else:
            out.append(ep)
            left[z] -= 1
            seen.add((z, rack[ep]))
            if len({r for (d, r) in seen if d == z}) == racks[z]:
                for s in skipped[z]:
                    if left[z] == 0:
                        break
                    if s not in out:
                        out.append(s)
                        left[z] -= 1
    return out


def test_nts(folder):
    labels = [f"10.0.5.{i}:11211" for i in range(1, 26)]
    # 2 zones; racks of unequal sizes, one zone with a single rack of 3 servers.
    rack = {lab: (f"a{i % 3}" if i < 15 else f"b{i % 2}" if i < 22 else "c") for i, lab in
            enumerate(labels)}
    dc = {lab: "z1" if i < 15 else "z2" for i, lab in enumerate(labels)}
    servers = write_servers(folder, "nts.txt", [(lab, f"rack={rack[lab]}", f"zone={dc[lab]}")
                                                for lab in labels])
    points, owners = ring_of(servers, "libmemcached")
    zone_of_rack = {}
    for lab in labels:
        zone_of_rack.setdefault(rack[lab], dc[lab])
    agree, by_rule = 0, {}
    for rule in ("in_walk", "after_racks"):
        for k in (2, 3, 5, 8):
            want = replica_lines(KEYS, [
                nts(points, owners, dc, rack, k,
                    int.from_bytes(hashlib.md5(key).digest()[:4], "little"), rule)
                for key in KEYS], {lab: lab for lab in labels})
            by_rule[rule, k] = want
            got = lines(chsim("locate", "--servers", servers, "--profile", "libmemcached",
                              "--replicas", k, "--strategy", "nts", "--rack-rule", rule, "-",
                              stdin=KEYS_TEXT))
            agree += compare(f"nts {rule}, K={k}", got, want)
    if by_rule["in_walk", 8] == by_rule["after_racks", 8]:
        fail("nts: the two rack rules order no key's copies differently: the test shows nothing")
    print(f"nts: {agree} key sets agree with the Python port of NetworkTopologyStrategy")


def topk_domain(key, labels, rack, k):
    mixed = ref.mix64(ref.xxh3(key))
    racks = list(dict.fromkeys(rack[lab] for lab in labels))
    members = {r: [i for i, lab in enumerate(labels) if rack[lab] == r] for r in racks}
    score = {r: -len(members[r]) / math.log(ref.unit_open(ref.mix64(
        mixed ^ ref.mix64(ref.xxh3(f"rack={r}".encode()))))) for r in racks}
    ranked = sorted(range(len(racks)), key=lambda d: (-score[racks[d]], d))
    chosen = [racks[d] for d in ranked[:min(k, len(racks))]]
    count = {r: 0 for r in chosen}
    dealt = 0
    while dealt < k:
        for r in chosen:
            if dealt < k and count[r] < len(members[r]):
                count[r] += 1
                dealt += 1
    best = {r: sorted(members[r], key=lambda i: (-ref.mix64(mixed ^ ref.seed(labels[i])), i))
            [:count[r]] for r in chosen}
    out = []
    for j in range(k):
        out += [best[r][j] for r in chosen if j < count[r]]
    return out[:k]


def test_topk_domain(folder):
    labels = [f"10.0.6.{i}:11211" for i in range(1, 21)]
    rack = {lab: f"r{i % 3 if i < 17 else 3}" for i, lab in enumerate(labels)}
    servers = write_servers(folder, "racks.txt", [(lab, f"rack={rack[lab]}") for lab in labels])
    agree = 0
    for k in (1, 3, 4, 7):
        want = replica_lines(KEYS, [topk_domain(key, labels, rack, k) for key in KEYS], labels)
        got = lines(chsim("locate", "--servers", servers, "--algorithm", "rendezvous",
                          "--replicas", k, "--strategy", "topk", "--domain", "rack", "-",
                          stdin=KEYS_TEXT))
        agree += compare(f"topk --domain rack, K={k}", got, want)
    print(f"topk_domain: {agree} key sets agree with the Python two-level rendezvous")


def choosek_set(h, k, n):
    if k == 0:
        return set()
    m = max(ref.jump(h if i == 0 else ref.mix64((h + i * 0x9E3779B97F4A7C15) & ref.M64),
                     n - i) + i for i in range(k))
    return choosek_set(h, k - 1, m) | {m}


def test_choosek(folder):
    labels = [f"10.0.7.{i}:11211" for i in range(1, 38)]
    servers = write_servers(folder, "c.txt", [(lab,) for lab in labels])
    agree = 0
    for k in (1, 3, 6):
        sets = []
        for key in KEYS:
            h, order, before = ref.xxh3(key), [], set()
            for j in range(1, k + 1):
                now = choosek_set(h, j, len(labels))
                order += sorted(now - before)
                before = now
            sets.append(order)
        got = lines(chsim("locate", "--servers", servers, "--algorithm", "jump", "--replicas", k,
                          "--strategy", "choosek", "-", stdin=KEYS_TEXT))
        agree += compare(f"choosek over jump, K={k}", got, replica_lines(KEYS, sets, labels))
    print(f"choosek: {agree} key sets agree with the recurrence")


def test_bad_input(folder):
    catalog = json.loads(chsim("list", "--json").stdout)
    strategies = catalog["replica_strategies"]
    servers = write_servers(folder, "three.txt", [("10.0.0.1:11211",), ("10.0.0.2:11211",),
                                                  ("10.0.0.3:11211",)])
    base = ["locate", "--servers", servers]
    for k in ("0", "4", "two", "3x"):
        refused(base + ["--replicas", k], f"--replicas: found '{k}'", "an integer 1..3")
    refused(base + ["--remove", "10.0.0.1:11211", "--replicas", "3"], "an integer 1..2")
    refused(base + ["--replicas", "2", "--strategy", "nope"], "unknown replica strategy 'nope'",
            "accepted: " + ", ".join(s["name"] for s in strategies))
    checked = 0
    for a in catalog["algorithms"]:
        fit = [s["name"] for s in strategies if a["name"] in s["algorithms"]]
        for s in strategies:
            if a["name"] in s["algorithms"] or not fit:
                continue
            refused(base + ["--algorithm", a["name"], "--replicas", "2", "--strategy", s["name"]],
                    f"--strategy {s['name']} does not apply to {a['name']}",
                    f"strategies for {a['name']}: " + ", ".join(fit))
            checked += 1
        if not fit:
            refused(base + ["--algorithm", a["name"], "--replicas", "2"],
                    f"no replica strategy applies to {a['name']}")
    if checked == 0:
        fail("no strategy was refused for an algorithm: the catalog lists none that does not apply")
    refused(base + ["--strategy", strategies[0]["name"]], "--strategy needs --replicas K")
    print(f"bad_input: {checked} strategy-algorithm refusals and the K, name and option refusals "
          "each in one line with exit 2")


CRUSH_GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "compat", "golden-crush")


def test_crush(folder):
    rows = []
    with open(os.path.join(CRUSH_GOLDEN, "objects.tsv"), "rb") as f:
        for line in f.read().split(b"\n"):
            if line:
                rows.append(line.split(b"\t"))
    labels = [f"osd.{i}" for i in range(23)]
    servers = write_servers(folder, "osds.txt", [(label,) for label in labels])
    racks = os.path.join(CRUSH_GOLDEN, "maps", "racks.txt")
    pg_num = int(rows[0][1])
    names = b"".join(r[0] + b"\n" for r in rows)
    base = ["locate", "--servers", servers, "--algorithm", "straw2", "--replicas", "3",
            "--strategy", "crush"]
    got = lines(chsim(*base, "--crush-map", racks, "--pg-num", str(pg_num), "--pool", "1", "-",
                      stdin=names))
    want = [b"\t".join([r[0]] + [f"osd.{d}".encode() for d in r[3].decode().split(",")])
            for r in rows]
    agree = compare("crush objects", got, want)
    bad_map = os.path.join(folder, "bad.txt")
    with open(racks) as src, open(bad_map, "w") as dst:
        dst.write(src.read().replace("item osd.3 weight", "item osd.3 weight -", 1))
    with open(bad_map) as f:
        bad_line = next(i for i, line in enumerate(f, 1) if "weight -" in line)
    refused(base + ["--crush-map", bad_map], f"{bad_map}:{bad_line}: weight")
    refused(["locate", "--servers", servers, "--algorithm", "rendezvous", "--replicas", "2",
             "--strategy", "topk", "--crush-map", racks], "strategy topk reads no CRUSH map")
    refused(base + ["--crush-map", racks, "--scatter-width", "2"],
            "--scatter-width: strategy crush has no parameter 'scatter_width'",
            "--mode, --rule, --pg-num, --pool")
    print(f"crush: {agree} of {len(want)} objects on osdmaptool's OSDs; refusals in one line")


if __name__ == "__main__":
    main({"walk": test_walk, "topk": test_topk, "salted": test_salted, "nts": test_nts,
          "topk_domain": test_topk_domain, "choosek": test_choosek, "crush": test_crush,
          "bad_input": test_bad_input})
