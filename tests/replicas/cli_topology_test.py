#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Failure domains (host, rack, zone) as a user meets them, against truths written here.

Usage: cli_topology_test.py CHSIM TEST, TEST one of:
  server_list   domain columns (host=H rack=R zone=Z) change nothing else a server list says:
                every profile's `chsim ring` and `chsim locate`, and `locate --algorithm`,
                print the same bytes with and without them, wherever on the line they stand;
                a bad column is refused in one line with exit 2, naming the file and line.
  locate_domain `locate --replicas K --domain rack` against a plain Python walk over `chsim
                ring`'s points with the rack rule (the first min(K, racks) copies in distinct
                racks, then the nodes that walk skipped, in walk order), key for key; and the
                refusals of --domain.
  scenario      generated racks and zones and a whole-rack failure in `chsim run`: the failed
                nodes are exactly one rack of the round-robin or block assignment computed
                here, restore brings them back, and the rows are the same on 1 and 2 threads;
                every bad topology is refused in one line with exit 2, by validate as by run;
                `chsim list --json` describes the levels.
Exit 0 when everything agrees; otherwise each difference is printed and the exit is 1.
"""
import bisect
import hashlib
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from cli_common import CHSIM, FAILURES, chsim, fail, main, refused  # noqa: E402


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


KEYS = b"".join(f"key:{i}\n".encode() for i in range(600)) + b"user:1\n\n"
LABELS = [f"10.0.{i // 256}.{i % 256}:11211" for i in range(1, 31)]


def rack_of(i, racks=3):
    return f"r{i % racks}"


def test_server_list(folder):
    catalog = json.loads(chsim("list", "--json").stdout)
    # NAMEs are numbers, as HAProxy's ids must be; a profile may still refuse the list (one
    # that takes no weights), and then it must refuse both files alike.
    plain = "".join(f"{lab} {1 + i % 3} {100 + i}\n" for i, lab in enumerate(LABELS))
    # The columns in every position after the address, zones over racks.
    spots = ["{lab} rack={r} zone=z{z} {w} {i}", "{lab} {w} zone=z{z} {i} rack={r}",
             "{lab} {w} {i} rack={r} zone=z{z}"]
    with_domains = "".join(
        spots[i % 3].format(lab=lab, w=1 + i % 3, i=100 + i, r=rack_of(i), z=i % 3 % 2) + "\n"
        for i, lab in enumerate(LABELS))
    a = write(folder, "plain.txt", plain)
    b = write(folder, "domains.txt", with_domains)
    compared = refusing = 0
    for p in catalog["profiles"]:
        for cmd in (["ring"], ["locate"]):
            args = [*cmd, "--servers", None, "--profile", p["name"]] + (["-"] if "locate" in cmd
                                                                         else [])
            got = []
            for f in (a, b):
                args[2] = f
                r = subprocess.run([CHSIM, *args], input=KEYS, capture_output=True, timeout=300)
                got.append((r.returncode, r.stdout, r.stderr.replace(f.encode(), b"FILE")))
            if got[0] != got[1] or got[0][0] not in (0, 2) or not (got[0][1] or got[0][2]):
                fail(f"chsim {cmd[0]} --profile {p['name']}: the domain columns changed the "
                     f"output or the refusal: {got[0][2]!r} / {got[1][2]!r}")
            compared += got[0][0] == 0
            refusing += got[0][0] == 2
    if compared < len(catalog["profiles"]):
        fail(f"only {compared} profile runs mapped the list ({refusing} refused it)")
    for algorithm in ("ring", "rendezvous", "maglev"):
        got = [chsim("locate", "--servers", f, "--algorithm", algorithm, "-", stdin=KEYS).stdout
               for f in (a, b)]
        if got[0] != got[1]:
            fail(f"locate --algorithm {algorithm}: the domain columns changed the output")
        compared += 1
    bad = [
        ("10.0.0.1 rack=\n", 1, "empty rack name in 'rack='"),
        ("10.0.0.1 rack=a\n10.0.0.2 dc=b\n", 2, "unknown failure-domain level 'dc'"),
        ("10.0.0.1 rack=a rack=b\n", 1, "two racks ('a' and 'b')"),
        ("10.0.0.1 rack=a zone=z1\n10.0.0.2 rack=a zone=z2\n", 2,
         "rack 'a' lies in zone 'z1' and in zone 'z2'"),
        ("10.0.0.1 rack=a\n# comment\n10.0.0.2\n", 3, "has no rack but the lines before do"),
        ("10.0.0.1\n10.0.0.2 2 zone=z\n", 2, "gives a zone but the lines before do not"),
        ("10.0.0.1 1 n1 rack=a x\n", 1, "found 4 fields"),
    ]
    for i, (text, line, what) in enumerate(bad):
        f = write(folder, f"bad{i}.txt", text)
        for args in (["locate", "--servers", f, "-"], ["ring", "--servers", f]):
            refused(args, f"{f}:{line}: ", what)
    if not FAILURES:
        print(f"server_list: {compared} outputs identical with and without domain columns; "
              f"{len(bad)} bad columns refused naming the line")


def walk_rack_rule(points, owners, rack, h, k):
    """Clockwise from the first point >= h: distinct owners, the first min(k, racks) in
    distinct racks; the nodes passed over for their rack then follow in walk order."""
    n = len(points)
    start = bisect.bisect_left(points, h) % n
    order = []
    for step in range(n):
        o = owners[(start + step) % n]
        if o not in order:
            order.append(o)
    spread = min(k, len(set(rack.values())))
    out, seen = [], set()
    for o in order:
        if len(out) < spread and rack[o] not in seen:
            out.append(o)
            seen.add(rack[o])
    for o in order:
        if len(out) == k:
            break
        if o not in out:
            out.append(o)
    return out


def test_locate_domain(folder):
    racks = {lab: rack_of(i, 4 if i < 20 else 3) for i, lab in enumerate(LABELS)}
    servers = write(folder, "racks.txt", "".join(f"{lab} rack={racks[lab]}\n" for lab in LABELS))
    keys = [f"key:{i}".encode() for i in range(600)]
    ring = [line.split("\t") for line in chsim("ring", "--servers", servers, "--profile",
                                               "libmemcached").stdout.decode().splitlines()]
    points = [int(p) for p, _ in ring]
    owners = [lab for _, lab in ring]
    for k in (2, 3, 4, 6):
        want = [b"\t".join([key] + [o.encode() for o in walk_rack_rule(
            points, owners, racks, int.from_bytes(hashlib.md5(key).digest()[:4], "little"), k)])
            for key in keys]
        got = chsim("locate", "--servers", servers, "--profile", "libmemcached", "--replicas", k,
                    "--domain", "rack", "-", stdin=b"".join(key + b"\n" for key in keys)
                    ).stdout.splitlines()
        bad = [i for i in range(len(keys)) if i >= len(got) or got[i] != want[i]]
        for i in bad[:3]:
            fail(f"K={k}, key {keys[i]!r}: chsim {got[i] if i < len(got) else None!r}, "
                 f"Python {want[i]!r}")
        if not bad:
            print(f"locate --replicas {k} --domain rack: {len(keys)} keys agree with the walk")
    plain = write(folder, "plain.txt", "".join(lab + "\n" for lab in LABELS))
    refused(["locate", "--servers", plain, "--replicas", 2, "--domain", "rack", "-"],
            "--domain rack: ", "gives no rack (its domain columns: none)")
    refused(["locate", "--servers", servers, "--replicas", 2, "--domain", "dc", "-"],
            "--domain: found 'dc'; accepted: host, rack, zone")
    refused(["locate", "--servers", servers, "--domain", "rack", "-"], "--domain needs --replicas")
    refused(["locate", "--servers", servers, "--algorithm", "jump", "--replicas", 2,
             "--strategy", "choosek", "--domain", "rack", "-"],
            "does not place copies by failure domain")


BASE = {
    "schema_version": 1, "name": "topology", "seed": 5, "trials": 2,
    "nodes": {"count": 12, "racks": 3},
    "algorithms": [{"algorithm": "ring", "points_per_node": 40}, {"algorithm": "rendezvous"}],
    "workload": {"type": "uniform", "keys": 3000},
    "events": [{"op": "fail", "domain": "rack", "count": 1}, {"op": "restore"},
               {"op": "add", "count": 2}, {"op": "fail", "domain": "rack"}],
    "metrics": ["balance", "remap"],
    "output": {"per_node": "all"},
}


def run_doc(folder, name, doc, *extra):
    path = write(folder, name, json.dumps(doc))
    out = os.path.join(folder, name + ".out.json")
    chsim("run", path, "-o", out, *extra)
    with open(out) as f:
        return json.load(f)


def check_failed_racks(doc, rack_of_node, what):
    """The nodes with no row at each fail step's end are exactly one rack's live nodes."""
    nodes = {}
    for r in doc["nodes"]:
        nodes.setdefault((r["case_id"], r["trial"], r["step"]), {})[r["node"]] = r["load"]
    for (case, trial, step), loads in nodes.items():
        if step not in (1, 4):
            continue
        prev = nodes[(case, trial, step - 1)]
        gone = {n for n in prev if prev[n] and n in loads and loads[n] == 0}
        gone |= {n for n in prev if n not in loads}
        racks = {rack_of_node(n) for n in gone}
        rest = {n for n in prev if rack_of_node(n) in racks} - gone
        if len(racks) != 1 or rest:
            fail(f"{what}: {case} trial {trial} step {step}: failed nodes {sorted(gone)} are not "
                 f"one whole rack (racks {sorted(racks)}, left {sorted(rest)})")


def test_scenario(folder):
    catalog = json.loads(chsim("list", "--json").stdout)
    levels = [lv["name"] for lv in catalog["topology"]["levels"]]
    if levels != ["host", "rack", "zone"] or catalog["topology"]["levels"][1]["within"] != "zone":
        fail(f"chsim list --json: topology levels {catalog['topology']['levels']}")
    one = run_doc(folder, "rr.json", BASE, "--threads", "1")
    two = run_doc(folder, "rr2.json", BASE, "--threads", "2")
    keep = [(r["case_id"], r["trial"], r["step"], r["metric"], r["value"])
            for r in one["rows"] if r["deterministic"]]
    if keep != [(r["case_id"], r["trial"], r["step"], r["metric"], r["value"])
                for r in two["rows"] if r["deterministic"]] or not keep:
        fail("the rows differ between 1 and 2 threads")
    # Round-robin: node i in rack i % 3; the two added nodes join the emptiest racks (0, 1).
    rr = {i: i % 3 for i in range(12)} | {12: 0, 13: 1}
    check_failed_racks(one, rr.__getitem__, "round-robin")
    restored = {r["node"] for r in one["nodes"] if r["step"] == 2 and r["load"]}
    if restored != set(range(12)):
        fail(f"restore: live nodes at step 2 are {sorted(restored)}, expected 0..11")
    blocks = {**BASE, "nodes": {"count": 10, "racks": [4, 4, 2], "zones": 2}}
    sizes = [0] * 4 + [1] * 4 + [2] * 2
    check_failed_racks(run_doc(folder, "sizes.json", blocks), lambda n: sizes[n]
                       if n < 10 else {10: 2, 11: 2}[n], "sizes [4, 4, 2]")
    blocks = {**BASE, "nodes": {"count": 11, "racks": 3, "assign": "blocks"}}
    block = [0] * 4 + [1] * 4 + [2] * 3
    check_failed_racks(run_doc(folder, "blocks.json", blocks),
                       lambda n: block[n] if n < 11 else 2 if n == 11 else 0, "blocks")
    zone = {**BASE, "nodes": {"count": 12, "racks": 4, "zones": 2},
            "events": [{"op": "fail", "domain": "zone"}]}
    doc = run_doc(folder, "zone.json", zone)
    check_zone = {(r["case_id"], r["trial"]): set() for r in doc["nodes"]}
    for r in doc["nodes"]:
        if r["step"] == 1 and r["load"]:
            check_zone[(r["case_id"], r["trial"])].add(r["node"] % 4 % 2)
    if any(len(z) != 1 for z in check_zone.values()):
        fail(f"fail 1 zone: the survivors span zones {check_zone}")
    bad = [
        ({"count": 10, "racks": [4, 4, 1]}, [], "/nodes/racks",
         "found sizes summing to 9 for 10 nodes"),
        ({"count": [6, 12], "racks": [3, 3]}, [], "/nodes/racks",
         "found sizes summing to 6 for 12 nodes"),
        ({"count": 4, "racks": 5}, [], "/nodes/racks", "found 5 racks for 4 nodes"),
        ({"count": 8, "racks": 2, "zones": 3}, [], "/nodes/zones", "found 3 zones for 2 racks"),
        ({"count": 8, "assign": "blocks"}, [], "/nodes/assign", "none is given"),
        ({"count": 8, "racks": 4}, [{"op": "fail", "domain": "rack", "count": 4}],
         "/events/0/count", "found fail 4 racks of the 4 racks the nodes have"),
        ({"count": 8, "racks": 4}, [{"op": "fail", "domain": "zone"}], "/events/0/domain",
         "the nodes carry no zones; accepted: a level they carry (rack)"),
        ({"count": 8, "racks": 4}, [{"op": "fail", "domain": "dc"}], "/events/0/domain", "dc"),
        ({"count": 8, "racks": 4}, [{"op": "fail", "fraction": 0.1, "count": 2}],
         "/events/0/count", "not with \"fraction\""),
        ({"count": 8, "racks": 4}, [{"op": "fail", "domain": "rack", "count": 3},
                                    {"op": "fail", "domain": "rack"}],
         "/events/1", "found fail 1 rack with live nodes in 1 rack; accepted: fewer racks"),
    ]
    for nodes, events, pointer, what in bad:
        doc = {**BASE, "nodes": nodes, "events": events}
        path = write(folder, "bad.json", json.dumps(doc))
        msg = refused(["validate", path], f"{pointer}", what, stdin=None)
        got = refused(["run", path, "-o", os.path.join(folder, "x.json")], stdin=None)
        if msg.split(": ", 1)[1] != got.split(": ", 1)[1]:
            fail(f"validate and run refuse differently: {msg!r} / {got!r}")
    servers = write(folder, "servers.txt", "".join(f"{lab} rack={rack_of(i)}\n"
                                                   for i, lab in enumerate(LABELS[:9])))
    doc = {**BASE, "nodes": {"file": servers, "racks": 3}}
    refused(["validate", write(folder, "both.json", json.dumps(doc))], "/nodes/racks",
            "the server file gives the nodes' domains (rack)", stdin=None)
    doc = {**BASE, "nodes": {"file": servers}, "events": [{"op": "fail", "domain": "rack"}]}
    check_failed_racks(run_doc(folder, "file.json", doc), lambda n: n % 3, "server file racks")
    if not FAILURES:
        print(f"scenario: whole racks and zones fail as assigned; {len(bad) + 1} bad topologies "
              "refused alike by validate and run")


if __name__ == "__main__":
    main({"server_list": test_server_list, "locate_domain": test_locate_domain,
          "scenario": test_scenario})
