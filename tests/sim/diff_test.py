#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""`chsim diff` against computations of its own: what moves between two server lists.

Usage: diff_test.py CHSIM SOURCE_DIR TEST, TEST one of: keys, exact, modulo, changes, json,
bad_input. Each exits non-zero with a message saying what differed.

- keys: the key-file answer equals what this script counts from two `chsim locate` runs (moved
  keys, the from -> to table, each server's count), and `minimal` equals its own
  sum over servers of max(0, share before - share after).
- exact: the exact answer over 2^32 key hashes equals an overlay this script computes from
  `chsim ring`'s points (first point >= hash, wrapping for nginx, no wrap for varnish).
- modulo: nginx-hash's key space is 2^15 values of (crc32 >> 16) & 0x7fff; one key forged
  for each value makes the key-file answer and the exact one count the same units.
- changes: adds, removals, reweights, renames and reorders give what the rules say (a ring
  moves nothing on a reorder; a modulo does; a rename moves the renamed server's keys).
- json: --json validates against results/diff-schema.json (jsonschema and chsim validate
  --results) and holds the same figures as the tables.
- exact64: the 64-bit profiles (envoy-ring, jedis, envoy-maglev) without a key file: exact
  counts over 2^64 key hashes, as decimal strings, equal to this script's own overlay of
  `chsim ring`'s points (tiny rings, whose arcs wrap past 2^64 - 1, counted by hand) or
  table entries (entry e holds 2^64 // M hashes, one more for e < 2^64 % M); and on a larger
  ring within a binomial bound of the sampled answer.
- bad_input: one line, exit 2.
"""
import bisect
import json
import math
import os
import subprocess
import sys
import tempfile
import zlib

CHSIM, SOURCE = sys.argv[1], sys.argv[2]
GOLDEN = os.path.join(SOURCE, "tests", "compat", "golden-proxies")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, expect=0):
    p = subprocess.run([CHSIM] + args, capture_output=True, timeout=300)
    if p.returncode != expect:
        fail(f"chsim {' '.join(args)}: exit {p.returncode}, expected {expect}\n"
             f"{p.stderr.decode(errors='replace')}")
    return p


def write(tmp, name, lines):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    return path


def diff_json(old, new, args, keys=None):
    p = run(["diff", "--servers", old, "--servers-new", new, "--json"] + args +
            ([keys] if keys else []))
    return json.loads(p.stdout)


def minimal_of(before, after):
    """sum over servers of max(0, share before - share after); absent = 0."""
    total = sum(before.values())
    return sum(max(0, before.get(s, 0) - after.get(s, 0)) for s in before) / total


def check_against_counts(doc, before, after, moves, what, tol=1e-12):
    """doc's figures equal the counts: before/after {server: units}, moves {(from, to): n}."""
    total = sum(before.values())
    if doc["total"] != total:
        fail(f"{what}: total {doc['total']}, counted {total}")
    got = {(m["from"], m["to"]): m["count"] for m in doc["moves"]}
    if got != moves:
        wrong = sorted(set(got.items()) ^ set(moves.items()))[:6]
        fail(f"{what}: the from -> to table differs from the count: {wrong}")
    for s in doc["servers"]:
        if (s["count_old"], s["count_new"]) != (before.get(s["server"], 0),
                                                after.get(s["server"], 0)):
            fail(f"{what}: {s['server']} counts {s['count_old']}, {s['count_new']}, counted "
                 f"{before.get(s['server'], 0)}, {after.get(s['server'], 0)}")
    moved = sum(moves.values()) / total
    if abs(doc["moved"] - moved) > tol:
        fail(f"{what}: moved {doc['moved']}, counted {moved}")
    if abs(doc["minimal"] - minimal_of(before, after)) > tol:
        fail(f"{what}: minimal {doc['minimal']}, computed {minimal_of(before, after)}")
    if doc["moved"] < doc["minimal"] - tol:
        fail(f"{what}: moved {doc['moved']} below minimal {doc['minimal']}")


def locate(servers, args, keys):
    p = run(["locate", "--servers", servers] + args + [keys])
    return [line.split(b"\t")[-1].decode() for line in p.stdout.split(b"\n")[:-1]]


def tally(owners_before, owners_after):
    counts = {}, {}, {}
    for a, b in zip(owners_before, owners_after):
        count_run(counts, a, b, 1)
    return counts


def lists(tmp):
    """(old, new) pairs of the proxy goldens' lists, each change of its kind."""
    ngx = [line.strip() for line in open(os.path.join(GOLDEN, "lists", "ngx5.txt"))]
    vn = [line.strip() for line in open(os.path.join(GOLDEN, "lists", "vnshapes.txt"))]
    old = write(tmp, "ngx.txt", ngx)
    vold = write(tmp, "vn.txt", vn)
    return {
        "remove": (old, write(tmp, "ngx-remove.txt", ngx[:2] + ngx[3:])),
        "add": (old, write(tmp, "ngx-add.txt", ngx + ["10.1.1.1:80 2"])),
        "reweight": (old, write(tmp, "ngx-reweight.txt",
                                [ngx[0].replace(" 1", " 4")] + ngx[1:])),
        "rename": (old, write(tmp, "ngx-rename.txt", ["127.0.0.9:18401 1"] + ngx[1:])),
        "reorder": (old, write(tmp, "ngx-reorder.txt", ngx[::-1])),
        "varnish-remove": (vold, write(tmp, "vn-remove.txt", vn[1:])),
        "varnish-reweight": (vold, write(tmp, "vn-reweight.txt",
                                         [vn[0].replace(" 3", " 1")] + vn[1:])),
    }


def keys_file(tmp):
    keys = [line.split(b"\t")[0]
            for line in open(os.path.join(GOLDEN, "map", "varnish", "vnshapes.tsv"), "rb")]
    path = os.path.join(tmp, "keys.txt")
    with open(path, "wb") as f:
        f.write(b"".join(k + b"\n" for k in keys))
    return path


def test_keys(tmp):
    keys = keys_file(tmp)
    cases = [(k, ["--profile", p]) for k, (p) in
             [("remove", "nginx"), ("add", "nginx-hash"), ("reweight", "nginx"),
              ("rename", "nginx"), ("reorder", "nginx-hash"), ("varnish-remove", "varnish"),
              ("varnish-reweight", "varnish")]]
    cases += [("remove", ["--algorithm", "maglev"]), ("add", ["--algorithm", "rendezvous"]),
              ("reweight", ["--algorithm", "ketama", "--profile", "libmemcached"])]
    pairs = lists(tmp)
    for change, args in cases:
        old, new = pairs[change]
        doc = diff_json(old, new, args, keys)
        if doc["method"] != "keys":
            fail(f"{change} {args}: method {doc['method']} with a key file")
        counted = tally(locate(old, args, keys), locate(new, args, keys))
        check_against_counts(doc, *counted, f"{change} {args}")


def ring_points(servers, args):
    p = run(["ring", "--servers", servers] + args)
    rows = [line.split(b"\t") for line in p.stdout.split(b"\n")[:-1]]
    return [int(r[0]) for r in rows], [r[1].decode() for r in rows]


def count_run(counts, a, b, n):
    """Adds n units on a before and b after to counts = (before, after, moves)."""
    before, after, moves = counts
    before[a] = before.get(a, 0) + n
    after[b] = after.get(b, 0) + n
    if a != b:
        moves[a, b] = moves.get((a, b), 0) + n


def overlay(side_a, side_b, wrap, space=2**32):
    """Counts of `space` hashes by owner before/after and (from, to), from the rings' points:
    the owner of h is the first entry with point >= h (the first listed of equal points);
    past the last point, the first entry's (wrap) or the last entry's (varnish)."""
    def owner(side, h):
        points, owners = side
        i = bisect.bisect_left(points, h)
        return owners[i] if i < len(points) else owners[0 if wrap else -1]
    cuts = sorted({0} | {p for s in (side_a, side_b) for p in s[0]} |
                  {p + 1 for s in (side_a, side_b) for p in s[0] if p < space - 1})
    counts = {}, {}, {}
    for i, c in enumerate(cuts):
        n = (cuts[i + 1] if i + 1 < len(cuts) else space) - c
        count_run(counts, owner(side_a, c), owner(side_b, c), n)
    return counts


def test_exact(tmp):
    pairs = lists(tmp)
    for change, profile in [("remove", "nginx"), ("add", "nginx"), ("reweight", "nginx"),
                            ("rename", "nginx"), ("varnish-remove", "varnish"),
                            ("varnish-reweight", "varnish"), ("remove", "haproxy"),
                            ("reweight", "haproxy")]:
        old, new = pairs[change]
        args = ["--profile", profile]
        doc = diff_json(old, new, args)
        if doc["method"] != "exact" or doc["units"] != "key hashes":
            fail(f"{change}: method {doc['method']} without a key file")
        counted = overlay(ring_points(old, args), ring_points(new, args), profile != "varnish")
        check_against_counts(doc, *counted, f"exact {change} {profile}")
    # An algorithm that exposes its ring: ketama over libmemcached's rules.
    old, new = pairs["reweight"]
    doc = diff_json(old, new, ["--algorithm", "ketama", "--profile", "libmemcached"])
    args = ["--profile", "libmemcached"]
    counted = overlay(ring_points(old, args), ring_points(new, args), True)
    if doc["method"] != "exact":
        fail(f"ketama: method {doc['method']}, expected exact over its ring")
    check_against_counts(doc, *counted, "exact reweight ketama libmemcached")


SPACE64 = 2**64


def ring64(servers, args):
    """`chsim ring`'s points of a 64-bit profile as unsigned search positions (jedis prints
    Java's signed longs: + 2^63 keeps their order), with owners."""
    points, owners = ring_points(servers, args)
    shift = 2**63 if "jedis" in args else 0
    return [p + shift for p in points], owners


def arcs64(side):
    """By hand: point k owns (p[k-1], p[k]]; point 0 the wrap, 2^64 - p[-1] + p[0]."""
    points, owners = side
    counts = {}
    for k, p in enumerate(points):
        arc = SPACE64 - points[-1] + p if k == 0 else p - points[k - 1]
        counts[owners[k]] = counts.get(owners[k], 0) + arc
    return counts


def tables64(side_a, side_b):
    """Two maglev tables: h % lcm(M1, M2) = e gives both entries, e % M1 and e % M2."""
    big = math.lcm(len(side_a[1]), len(side_b[1]))
    counts = {}, {}, {}
    for e in range(big):
        count_run(counts, side_a[1][e % len(side_a[1])], side_b[1][e % len(side_b[1])],
                  SPACE64 // big + (e < SPACE64 % big))
    return counts


def as_ints(doc):
    """The document with its decimal-string counts as integers."""
    if doc.get("key_space_bits") != 64 or doc["total"] != str(SPACE64):
        fail(f"a 64-bit exact document: key_space_bits {doc.get('key_space_bits')}, "
             f"total {doc['total']!r}")
    out = json.loads(json.dumps(doc))
    out["total"] = int(doc["total"])
    for m in out["moves"]:
        m["count"] = int(m["count"])
    for s in out["servers"]:
        s["count_old"], s["count_new"] = int(s["count_old"]), int(s["count_new"])
    return out


def maglev_sizes(tmp):
    """Envoy clusters' maglev tables of different sizes: 7 and 11 entries pair up over a
    period of 77 hashes, exact; 4099 and 4111 only over 16,850,989 > 2^24, sampled, saying
    why."""
    def cluster(name, size, hosts):
        eps = "".join("        - endpoint:\n            address:\n              socket_address:\n"
                      f"                address: {h}\n                port_value: 80\n"
                      for h in hosts)
        return write(tmp, name, [
            "static_resources:", "  clusters:", "  - name: c", "    lb_policy: MAGLEV",
            f"    maglev_lb_config: {{table_size: {size}}}", "    load_assignment:",
            "      cluster_name: c", "      endpoints:", "      - lb_endpoints:", eps])
    hosts = ["10.0.0.%d" % i for i in range(1, 5)]
    seven, eleven = cluster("m7.yaml", 7, hosts), cluster("m11.yaml", 11, hosts[:3])
    doc = as_ints(diff_json(seven, eleven, []))
    check_against_counts(doc, *tables64(ring64(seven, []), ring64(eleven, [])), "maglev 7 -> 11")
    big = cluster("m4099.yaml", 4099, hosts), cluster("m4111.yaml", 4111, hosts[:3])
    doc = diff_json(*big, [])
    text = run(["diff", "--servers", big[0], "--servers-new", big[1]]).stdout.decode()
    if doc["method"] != "sampled" or "maglev tables of 4099 and 4111 entries" not in text:
        fail(f"maglev 4099 -> 4111: {doc['method']}, expected sampled saying why:\n{text}")


def test_exact64(tmp):
    import jsonschema
    with open(os.path.join(SOURCE, "results", "diff-schema.json")) as f:
        schema = json.load(f)
    hosts = ["10.0.0.%d:80" % i for i in range(1, 6)]
    one = write(tmp, "one.txt", hosts[:1])
    old = write(tmp, "old.txt", [h + " 1" for h in hosts[:4]])
    changes = {
        "add": (one, write(tmp, "two.txt", hosts[:2])),
        "remove": (old, write(tmp, "rm.txt", [h + " 1" for h in hosts[:2] + hosts[3:4]])),
        "reweight": (old, write(tmp, "rw.txt", [hosts[0] + " 3"] + [h + " 1" for h in hosts[1:4]])),
        "add-remove": (old, write(tmp, "ar.txt", [h + " 1" for h in hosts[1:5]])),
    }
    tiny = {"envoy-ring": ["--min-ring-size", "4"], "jedis": [], "envoy-maglev": []}
    for profile, extra in tiny.items():
        args = ["--profile", profile] + extra
        for change, (a, b) in changes.items():
            what = f"exact64 {profile} {change}"
            doc = diff_json(a, b, args)
            jsonschema.validate(doc, schema)
            if doc["method"] != "exact":
                fail(f"{what}: method {doc['method']}, expected exact over 2^64")
            sides = ring64(a, args), ring64(b, args)
            counted = (tables64(*sides) if profile == "envoy-maglev" else
                       overlay(*sides, True, SPACE64))
            check_against_counts(as_ints(doc), *counted, what)
            if profile != "envoy-maglev" and arcs64(sides[0]) != counted[0]:
                fail(f"{what}: the arcs by hand {arcs64(sides[0])} differ from the overlay")
        text = run(["diff", "--servers", old, "--servers-new", changes["remove"][1]] +
                   args).stdout.decode()
        if "exact arc shares over 2^64 key hashes" not in text:
            fail(f"{profile}: the tables do not give the basis:\n{text}")
    # One server: its one arc (or its one-entry table) is the whole space, wrap included.
    for profile, extra in tiny.items():
        doc = diff_json(one, one, ["--profile", profile] + extra)
        if [s["count_old"] for s in doc["servers"]] != [str(SPACE64)] or doc["moves"]:
            fail(f"{profile}: one server owns {doc['servers']}, expected all 2^64 hashes")
    # A larger ring: the exact shares within 5 binomial sigmas of 10^6 sampled hashes.
    n = 10**6
    for profile in tiny:
        for change in ("remove", "reweight"):
            a, b = changes[change]
            exact = as_ints(diff_json(a, b, ["--profile", profile]))
            sampled = diff_json(a, b, ["--algorithm", "ketama", "--profile", profile,
                                       "--samples", str(n)])
            if sampled["method"] != "sampled":
                fail(f"{profile}: the algorithm side should sample: {sampled['method']}")
            share = {(m["from"], m["to"]): m["share"] for m in sampled["moves"]}
            pairs = [("moved", exact["moved"], sampled["moved"])]
            pairs += [(f"{m['from']} -> {m['to']}", m["share"],
                       share.get((m["from"], m["to"]), 0)) for m in exact["moves"]]
            for name, p, q in pairs:
                if abs(p - q) > 5 * math.sqrt(p * (1 - p) / n) + 1e-9:
                    fail(f"{profile} {change} {name}: exact {p}, sampled {q}, beyond 5 sigma")
    maglev_sizes(tmp)
    path = os.path.join(tmp, "d64.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    run(["validate", "--results", path])
    doc["total"] = SPACE64 - 1  # counts as integers need no key_space_bits... and strings do
    with open(path, "w") as f:
        json.dump(doc, f)
    run(["validate", "--results", path], expect=2)


def crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0xEDB88320 if c & 1 else 0)
        table.append(c)
    return table


CRC_TABLE = crc_table()


def forge_crc32(prefix, target):
    """prefix + 4 bytes whose zlib.crc32 is target (CRC-32 is linear)."""
    table = CRC_TABLE
    by_top = {c >> 24: i for i, c in enumerate(table)}
    t, idx = target ^ 0xFFFFFFFF, []
    for _ in range(4):
        i = by_top[t >> 24]
        idx.append(i)
        t = ((t ^ table[i]) << 8) & 0xFFFFFFFF
    s, tail = zlib.crc32(prefix) ^ 0xFFFFFFFF, bytearray()
    for i in reversed(idx):
        b = (s ^ i) & 0xFF
        tail.append(b)
        s = (s >> 8) ^ table[(s ^ b) & 0xFF]
    return prefix + bytes(tail)


def test_modulo(tmp):
    """Every 15-bit value once: the key file and the exact answer count the same."""
    path = os.path.join(tmp, "all15.txt")
    with open(path, "wb") as f:
        for v in range(1 << 15):
            for n in range(100):
                k = forge_crc32(b"v%d-%d-" % (v, n), v << 16)
                if b"\n" not in k:
                    break
            assert (zlib.crc32(k) >> 16) & 0x7FFF == v
            f.write(k + b"\n")
    pairs = lists(tmp)
    for change in ("remove", "add", "reorder", "reweight"):
        old, new = pairs[change]
        exact = diff_json(old, new, ["--profile", "nginx-hash"])
        keyed = diff_json(old, new, ["--profile", "nginx-hash"], path)
        if exact["total"] != 1 << 15 or exact["method"] != "exact":
            fail(f"nginx-hash {change}: exact over {exact['total']} values, expected 2^15")
        for field in ("moves", "servers", "moved", "minimal", "minimal_ideal"):
            if exact[field] != keyed[field]:
                fail(f"nginx-hash {change}: {field} differs between exact and every value: "
                     f"{exact[field]} vs {keyed[field]}")


def test_changes(tmp):
    pairs = lists(tmp)
    ring = ["--profile", "nginx"]
    rm = diff_json(*pairs["remove"], ring)
    removed = [s for s in rm["servers"] if s["weight_new"] is None]
    if len(removed) != 1 or abs(rm["moved"] - removed[0]["share_old"]) > 1e-12:
        fail(f"remove: a ring moves exactly the removed server's share: {rm['moved']}")
    if rm["moved_between_survivors"] != 0 or rm["excess"] != 0:
        fail(f"remove: keys moved between survivors: {rm['moved_between_survivors']}")
    if abs(rm["minimal_ideal"] - 2 / 6) > 1e-12:
        fail(f"remove: minimal_ideal {rm['minimal_ideal']}, expected 2/6 (weight 2 of 6)")
    if diff_json(*pairs["reorder"], ring)["moved"] != 0:
        fail("reorder: the nginx ring depends only on the server texts; nothing may move")
    if diff_json(*pairs["reorder"], ["--profile", "nginx-hash"])["moved"] == 0:
        fail("reorder: nginx-hash walks the weights in list order; keys must move")
    rn = diff_json(*pairs["rename"], ring)
    renamed = [s for s in rn["servers"] if s["server"] == "127.0.0.1:18401"][0]
    if rn["minimal"] < renamed["share_old"] - 1e-12:
        fail("rename: a renamed server is another server; its share must move")
    add = diff_json(*pairs["add"], ring)
    added = [s for s in add["servers"] if s["weight_old"] is None]
    if abs(add["moved"] - added[0]["share_new"]) > 1e-12 or add["moved_between_survivors"]:
        fail(f"add: a ring moves exactly the added server's share: {add['moved']}")
    for name, (old, new) in pairs.items():  # a list against itself moves nothing
        same = diff_json(old, old, ["--algorithm", "maglev"])
        if same["moved"] != 0 or same["moves"] or same["method"] != "sampled":
            fail(f"{name}: maglev over one list twice moved {same['moved']}")


def test_json(tmp):
    import jsonschema
    with open(os.path.join(SOURCE, "results", "diff-schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    pairs = lists(tmp)
    keys = keys_file(tmp)
    for args, k in ((["--profile", "nginx"], None), (["--algorithm", "rendezvous"], None),
                    (["--profile", "varnish"], keys)):
        old, new = pairs["add"] if "varnish" not in args else pairs["varnish-remove"]
        doc = diff_json(old, new, args, k)
        jsonschema.validate(doc, schema)
        path = os.path.join(tmp, "d.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        run(["validate", "--results", path])
        text = run(["diff", "--servers", old, "--servers-new", new] + args +
                   ([k] if k else [])).stdout.decode()
        if f"moved: {100 * doc['moved']:.4f}%" not in text:
            fail(f"{args}: the tables and --json disagree on moved:\n{text}")
        if f"method: {doc['method']}" not in text:
            fail(f"{args}: the tables do not say the method {doc['method']}:\n{text}")
    doc["moves"].append({"from": "a", "to": "b", "count": 0, "share": 0})
    with open(path, "w") as f:
        json.dump(doc, f)
    p = run(["validate", "--results", path], expect=2)
    if "/moves/" not in p.stderr.decode():
        fail(f"a move of 0 keys is not refused at /moves: {p.stderr!r}")


def test_bad_input(tmp):
    good = write(tmp, "good.txt", ["10.0.0.1:11211", "10.0.0.2:11211"])
    bad = write(tmp, "bad.txt", ["10.0.0.1:99999"])
    for args, words in (
            (["--servers", good, "--servers-new", bad], "bad.txt:1: bad port"),
            (["--servers", good, "--servers-new", os.path.join(tmp, "none.txt")], "none.txt"),
            (["--servers", good, "--servers-new", good, "--profile", "nope"], "nope"),
            (["--servers", good, "--servers-new", good, os.path.join(tmp, "nokeys")],
             "nokeys"),
            (["--servers", good, "--servers-new", good, "--probes", "3"],
             "--probes needs --algorithm"),
            (["--servers", good], "--servers-new")):
        p = run(["diff"] + args, expect=2)
        err = p.stderr.decode().strip()
        if len(err.splitlines()) != 1 or words not in err:
            fail(f"diff {args}: expected one line with {words!r}, got {err!r}")


if __name__ == "__main__":
    test = globals().get("test_" + sys.argv[3])
    if test is None:
        fail("unknown test " + sys.argv[3])
    with tempfile.TemporaryDirectory(prefix="chsim_diff_") as tmp:
        test(tmp)
    print("ok")
