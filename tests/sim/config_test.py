#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Server lists read from proxies' configurations (--servers FILE[:BLOCK]): what they refuse,
what they ignore, and that every command reads them alike.

Usage: config_test.py CHSIM SOURCE_DIR TEST, TEST one of: bad_input, ignored, commands, tune,
envoy, include.

- bad_input: a malformed block, a server the program itself refuses (a port out of range, a
  weight it does not take, an HAProxy id used twice, an unknown hash function) is one line on
  stderr naming FILE:LINE, exit 2; a scenario naming the file is refused alike by validate and
  run.
- ignored: directives that do not change the mapping are named once on stderr, and the
  mapping is the one of the servers alone.
- commands: locate, ring, diff and run read a configuration as the server list it holds.
- envoy: an Envoy cluster maps with the profile and settings it selects (envoy-ring with its
  minimum_ring_size and hash function, envoy-maglev with its table size): chsim ring prints the
  rings and tables of Envoy's own tests (tests/compat/golden-upstream/envoy.json); the flags
  Envoy would refuse (a ring size below 1, a table size that is not a prime, an unknown hash
  function, a size for another profile) are one line, exit 2, and a scenario with them is
  refused alike by validate and run.
- include: nginx's `include` and VCL's followed as the programs follow them: an upstream of
  the golden nginx.conf (tests/compat/golden-proxies, which nginx itself ran) split over files
  found by glob patterns relative to the main file's folder, from a file in another folder,
  and a shard director of the golden VCL split over a file found beside the main one and
  "./" files beside their includer, map the goldens' keys as nginx and varnishd did; a
  missing file, a cycle and an error inside an included file are one line naming the file and
  line, exit 2; a glob with no match includes nothing.
- tune: answers in the program's own setting (nginx and Jedis: a multiple of every weight,
  its candidates multiples of 160; Varnish: replicas; Envoy: min_ring_size and table_size),
  a configuration tuned with its own profile and settings, nginx-hash (no points) refused,
  and a bad Envoy size refused in one line.
"""
import json
import os
import subprocess
import sys
import tempfile

CHSIM, SOURCE = sys.argv[1], sys.argv[2]
KEYS = os.path.join(SOURCE, "tests", "algorithms", "data", "keys.txt")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, expect=0):
    p = subprocess.run([CHSIM] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        fail(f"chsim {' '.join(args)}: exit {p.returncode}, expected {expect}\n{p.stderr}")
    return p


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def nginx(body, name="u"):
    return f"http {{\n  upstream {name} {{\n{body}\n  }}\n}}\n"


def vcl(init):
    return ("vcl 4.1;\nimport directors;\nbackend b1 { .host = \"127.0.0.1\"; }\n"
            "backend b2 { .host = \"127.0.0.1\"; }\nsub vcl_init {\n  new d = directors.shard();\n"
            + init + "\n}\n")


def haproxy(body):
    return ("defaults\n  mode http\nbackend be\n  balance hdr(X-Key)\n  hash-type consistent\n"
            + body + "\n")


def envoy(endpoints, policy="lb_policy: RING_HASH", name="c"):
    return ("static_resources:\n  clusters:\n  - name: " + name + "\n    " + policy + "\n"
            "    load_assignment:\n      cluster_name: " + name + "\n      endpoints:\n"
            "      - lb_endpoints:\n" + endpoints)


def endpoint(addr, port, extra=""):
    return ("        - endpoint:\n            address:\n              socket_address:\n"
            f"                address: {addr}\n                port_value: {port}\n" + extra)


# (file name, text, where the error points, words it must hold)
BAD = [
    ("w0.conf", nginx("    hash $k consistent;\n    server 10.0.0.1:80 weight=0;"), ":4:",
     "invalid parameter 'weight=0'"),
    ("port.conf", nginx("    hash $k consistent;\n    server 10.0.0.1:70000;"), ":4:",
     "invalid port"),
    ("port0.conf", nginx("    hash $k;\n    server 10.0.0.1:0;"), ":4:", "invalid port"),
    ("backup.conf", nginx("    hash $k consistent;\n    server a:1;\n    server b:1 backup;"),
     ":5:", "does not support parameter \"backup\""),
    ("param.conf", nginx("    hash $k consistent;\n    server a:1 foo=3;"), ":4:",
     "invalid parameter 'foo=3'"),
    ("flag.conf", nginx("    hash $k consistant;\n    server a:1;"), ":3:",
     "accepted: consistent"),
    ("nohost.conf", nginx("    hash $k consistent;\n    server :80;"), ":4:", "no host"),
    ("twice.conf", nginx("    hash $k consistent;\n    server a:1;\n    server a:1;"), ":5:",
     "first on line 4"),
    ("brace.conf", "http {\n  upstream u {\n    server a:1;\n", ":4:", "unexpected end of file"),
    ("semi.conf", nginx("    hash $k consistent;\n    server a:1"), ":5:",
     "unexpected \"}\""),
    ("alldown.conf", nginx("    hash $k consistent;\n    server a:1 down;"), ":",
     "no servers that take keys"),
    ("rr.conf", nginx("    server a:1;\n    server b:1;"), ":",
     "balances round robin"),
    ("undeclared.vcl", vcl("  d.add_backend(b9);"), ":7:", "'b9' is not declared"),
    ("replicas.vcl", vcl("  d.add_backend(b1);\n  d.reconfigure(replicas=0);"), ":8:",
     "invalid replicas"),
    ("weight.vcl", vcl("  d.add_backend(b1, weight=heavy);"), ":7:", "expected a number"),
    ("string.vcl", vcl('  d.add_backend(b1, ident="x);'), ":7:", "unterminated string"),
    ("empty.vcl", vcl("  d.add_backend(b1);\n  d.clear();"), ":",
     "no servers that take keys"),
    ("w257.cfg", haproxy("  server s1 10.0.0.1:80 weight 257"), ":6:",
     "not within 0 and 256 (257)"),
    ("ids.cfg", haproxy("  server s1 10.0.0.1:80 id 3\n  server s2 10.0.0.2:80 id 3"), ":7:",
     "custom id 3 already used at line 6"),
    ("id0.cfg", haproxy("  server s1 10.0.0.1:80 id 0"), ":6:", "custom id has to be"),
    ("hport.cfg", haproxy("  server s1 10.0.0.1:70000"), ":6:", "invalid port '70000'"),
    ("hfn.cfg", haproxy("  hash-type consistent md5\n  server s1 10.0.0.1:80"), ":6:",
     "only supports 'sdbm', 'djb2', 'crc32', or 'wt6'"),
    ("hname.cfg", haproxy("  server s1 10.0.0.1:80\n  server s1 10.0.0.2:80"), ":7:",
     "first on line 6"),
    ("w0.yaml", envoy(endpoint("10.0.0.1", 80, "          load_balancing_weight: 0\n")), ":14:",
     "load_balancing_weight: found '0'"),
    ("port.yaml", envoy(endpoint("10.0.0.1", 70000)), ":13:", "port_value: found '70000'"),
    ("sizes.yaml", envoy(endpoint("10.0.0.1", 80), "lb_policy: RING_HASH\n    ring_hash_lb_config:"
                         " {minimum_ring_size: 4096, maximum_ring_size: 1024}"), ":5:",
     "minimum_ring_size (4096) > maximum_ring_size (1024)"),
    ("big.yaml", envoy(endpoint("10.0.0.1", 80), "lb_policy: RING_HASH\n    ring_hash_lb_config:"
                       " {minimum_ring_size: 9000000}"), ":5:", "accepted: an integer 1..8388608"),
    ("fn.yaml", envoy(endpoint("10.0.0.1", 80), "lb_policy: RING_HASH\n    ring_hash_lb_config:"
                      " {hash_function: MD5}"), ":5:", "accepted: XX_HASH, MURMUR_HASH_2"),
    ("prime.yaml", envoy(endpoint("10.0.0.1", 80), "lb_policy: MAGLEV\n    maglev_lb_config:"
                         " {table_size: 65536}"), ":5:", "not a prime"),
    ("dup.yaml", envoy(endpoint("10.0.0.1", 80) + endpoint("10.0.0.1", 80)), ":14:",
     "first on line 9"),
    ("syntax.yaml", "static_resources:\n  clusters: [\n", ":3:", "end of"),
    ("rr.yaml", envoy(endpoint("10.0.0.1", 80), "lb_policy: ROUND_ROBIN"), ":",
     "lb_policy ROUND_ROBIN"),
]


def test_bad_input(tmp):
    for name, text, where, words in BAD:
        path = write(tmp, name, text)
        for cmd in (["locate", "--servers", path, KEYS], ["ring", "--servers", path]):
            err = run(cmd, expect=2).stderr.strip().splitlines()
            if len(err) != 1 or words not in err[0] or (name + where) not in err[0]:
                fail(f"{name}: expected one line naming {name}{where} with {words!r}, got {err}")
    good = write(tmp, "good.txt", "10.0.0.1:11211\n")
    for args, words in (
            (["--servers", good, "--servers-format", "apache"], "accepted: list, nginx"),
            (["--servers", good + ":u"], "a server list has no blocks"),
            (["--servers", write(tmp, "two.conf", nginx("server a:1;", "x") +
                                 nginx("server a:1;", "y"))], "2 upstreams (x, y)"),
            (["--servers", os.path.join(tmp, "two.conf") + ":z"], "no upstream 'z'; found x, y")):
        err = run(["locate"] + args + [KEYS], expect=2).stderr.strip().splitlines()
        if len(err) != 1 or words not in err[0]:
            fail(f"locate {args}: expected one line with {words!r}, got {err}")
    # A scenario naming a configuration: validate refuses what run refuses, in the same words.
    scenario = write(tmp, "s.json", json.dumps({
        "schema_version": 1, "name": "cfg", "seed": 1, "trials": 1,
        "nodes": {"file": "w257.cfg:be"}, "algorithms": [{"algorithm": "ring"}],
        "workload": {"type": "uniform", "keys": 1000}, "metrics": ["balance"]}))
    v = run(["validate", scenario], expect=2).stderr.strip().splitlines()
    r = run(["run", scenario, "-q", "-o", os.path.join(tmp, "out.json")],
            expect=2).stderr.strip().splitlines()
    if v[0] != r[0] or len(r) != 1 or "/nodes/file" not in r[0] or "w257.cfg:6:" not in r[0]:
        fail(f"validate and run differ on a bad configuration: {v} vs {r}")


def test_ignored(tmp):
    conf = write(tmp, "ig.conf", nginx(
        "    keepalive 8;\n    hash $arg_k consistent;\n    keepalive 16;\n    zone u 64k;\n"
        "    server 10.0.0.1:80 weight=2 max_fails=3;\n    server 10.0.0.2:80 max_fails=1;\n"
        "    server 10.0.0.3:80 down;"))
    p = run(["locate", "--servers", conf, KEYS])
    lines = p.stderr.strip().splitlines()
    ignored = [l for l in lines if "ignored" in l]
    if len(ignored) != 1 or ignored[0].count("keepalive") != 1 or "zone" not in ignored[0] \
            or ignored[0].count("max_fails") != 1:
        fail(f"each ignored directive once, on one line: {lines}")
    if not any("10.0.0.3:80" in l and "down" in l for l in lines):
        fail(f"the server marked down is not named: {lines}")
    plain = write(tmp, "plain.txt", "10.0.0.1:80 2\n10.0.0.2:80 1\n")
    q = run(["locate", "--servers", plain, "--profile", "nginx", KEYS])
    if p.stdout != q.stdout:
        fail("the upstream maps keys unlike its servers written as a list")


def test_commands(tmp):
    old = write(tmp, "old.vcl", vcl('  d.add_backend(b1);\n  d.add_backend(b2, weight=2);\n'
                                    '  d.reconfigure(replicas=40);'))
    new = write(tmp, "new.vcl", vcl('  d.add_backend(b1);\n  d.reconfigure(replicas=40);'))
    listed = write(tmp, "old.txt", "b1 1\nb2 2\n")
    ring = run(["ring", "--servers", old]).stdout
    if ring != run(["ring", "--servers", listed, "--profile", "varnish",
                    "--points-per-weight", "40"]).stdout or ring.count("\n") != 120:
        fail("the VCL's ring is not 40 points per weight over b1, b2 (weight 2)")
    doc = json.loads(run(["diff", "--servers", old, "--servers-new", new, "--json"]).stdout)
    if doc["request"]["old"]["format"] != "varnish" or doc["request"]["name"] != "varnish":
        fail(f"diff does not name the format and profile it read: {doc['request']}")
    b2 = [s for s in doc["servers"] if s["server"] == "b2"][0]
    if abs(doc["moved"] - b2["share_old"]) > 1e-12 or doc["excess"] != 0:
        fail("removing b2 from the director moves more than its share")
    # HAProxy numbers servers without `id` in file order: removing s2 renumbers s3 and s4, whose
    # points all move; with ids spelled out only s2's keys move.
    body = "".join(f"  server s{i} 10.0.0.{i}:80{{}}\n" for i in range(1, 5))
    for ids, survivors in ((False, True), (True, False)):
        lines = [l.format(f" id {i + 1}" if ids else "") for i, l in enumerate(body.splitlines())]
        old = write(tmp, "o.cfg", haproxy("\n".join(lines)))
        new = write(tmp, "n.cfg", haproxy("\n".join(l for l in lines if " s2 " not in l)))
        doc = json.loads(run(["diff", "--servers", old, "--servers-new", new, "--json"]).stdout)
        if (doc["moved_between_survivors"] > 0.1) != survivors or doc["request"]["name"] != "haproxy":
            fail(f"haproxy ids={ids}: moved between survivors {doc['moved_between_survivors']}")
    # Envoy, in YAML and in JSON alike: labels address:port, weights, a hash_key as NAME,
    # priority 1 and unhealthy endpoints left out.
    eps = (endpoint("10.0.0.1", 80, "          load_balancing_weight: 3\n") +
           endpoint("::1", 8080) +
           endpoint("10.0.0.3", 80, "          health_status: UNHEALTHY\n") +
           endpoint("10.0.0.4", 80, "          metadata: {filter_metadata: {envoy.lb: "
                    "{hash_key: \"h4\"}}}\n") +
           "      - priority: 1\n        lb_endpoints:\n" + endpoint("10.0.0.5", 80))
    yml = write(tmp, "e.yaml", envoy(eps))
    p = run(["ring", "--servers", yml, "--profile", "twemproxy"])
    want = run(["ring", "--servers", write(tmp, "e.txt", "10.0.0.1:80 3\n[::1]:8080 1\n"
                                           "10.0.0.4:80 1 h4\n"), "--profile", "twemproxy"])
    if p.stdout != want.stdout or "UNHEALTHY" not in p.stderr or "priority 1" not in p.stderr:
        fail(f"the Envoy cluster is not its healthy priority-0 endpoints: {p.stderr}")
    import yaml
    js = write(tmp, "e.json", json.dumps(yaml.safe_load(open(yml))))
    if run(["ring", "--servers", js, "--profile", "twemproxy"]).stdout != want.stdout:
        fail("the same cluster in JSON reads otherwise")
    # The configuration's profile unless --profile says otherwise; one the block does not imply.
    rr = write(tmp, "rr.conf", nginx("    server a:1;\n    server b:1;"))
    run(["locate", "--servers", rr, "--profile", "nginx", KEYS])
    cross = run(["diff", "--servers", old, "--servers-new", new, "--profile", "nginx"]).stdout
    if "profile nginx" not in cross:
        fail(f"--profile does not override the configuration's: {cross[:200]}")


def tune(tmp, args):
    out = os.path.join(tmp, "t.json")
    run(["tune", *args, "--quiet", "--threads", "2", "--draws", "40", "--json", out])
    run(["validate", "--results", out])
    with open(out) as f:
        return json.load(f)


def test_tune(tmp):
    doc = tune(tmp, ["--nodes", "20", "--profile", "nginx", "--max-over-mean", "1.3"])
    a = doc["answer"]
    if not a["met"] or a["value"] % 160 or a["setting"] != (
            f"every weight x {a['value'] // 160}, at 160 points per unit of weight"):
        fail(f"nginx: the answer is not a multiple of every weight: {a['value']}, {a.get('setting')}")
    if any(e["points_per_node"] % 160 for e in doc["estimates"] if e["method"] == "exact"):
        fail("nginx: an exact candidate is not a multiple of 160 points")
    if a["setting"] not in a["summary"]:
        fail(f"the summary does not give the setting: {a['summary']}")
    conf = write(tmp, "t.vcl", vcl('  d.add_backend(b1);\n  d.add_backend(b2, weight=3);\n'
                                   '  d.reconfigure(replicas=20);'))
    doc = tune(tmp, ["--servers", conf, "--max-over-mean", "1.05"])
    a = doc["answer"]
    if doc["request"]["profile"] != "varnish" or doc["answer"]["current"]["points_per_node"] != 20:
        fail(f"the VCL is not tuned as varnish at its replicas 20: {doc['request']}, {a['current']}")
    if a["met"] and a["setting"] != f"replicas={a['value']}":
        fail(f"varnish: the answer is not in replicas: {a}")
    err = run(["tune", "--nodes", "10", "--profile", "nginx-hash", "--max-over-mean", "1.1"],
              expect=2).stderr.strip().splitlines()
    if len(err) != 1 or "no points to add" not in err[0]:
        fail(f"nginx-hash is not refused in one line: {err}")
    # Envoy's clusters answer in their own settings, bounded by the configuration's.
    hosts = "".join(endpoint("10.0.0.1", p) for p in range(80, 84))
    conf = write(tmp, "r.yaml", envoy(hosts, "lb_policy: RING_HASH\n    ring_hash_lb_config:"
                                      " {minimum_ring_size: 64, maximum_ring_size: 4000}"))
    doc = tune(tmp, ["--servers", conf, "--max-over-mean", "1.1"])
    a = doc["answer"]
    if doc["request"]["profile"] != "envoy-ring" or not a["met"] or not a.get(
            "setting", "").startswith("min_ring_size=") or a["setting"] not in a["summary"]:
        fail(f"the Envoy ring is not tuned in min_ring_size: {a}")
    if a["current"]["points_per_node"] != 16:  # ceil(64 / 4) points per host
        fail(f"the cluster's minimum_ring_size 64 is not its current setting: {a['current']}")
    conf = write(tmp, "m.yaml", envoy(hosts, "lb_policy: MAGLEV\n    maglev_lb_config:"
                                      " {table_size: 7}"))
    a = tune(tmp, ["--servers", conf, "--max-over-mean", "1.1"])["answer"]
    if a["parameter"] != "maglev_table_size" or a["setting"] != f"table_size={a['value']}":
        fail(f"maglev is not tuned in table_size: {a}")
    if a["current"]["points_per_node"] != 7:
        fail(f"the cluster's table_size 7 is not its current setting: {a['current']}")
    a = tune(tmp, ["--nodes", "4", "--profile", "jedis", "--max-over-mean", "1.3"])["answer"]
    if a["value"] % 160 or a["setting"] != f"every weight x {a['value'] // 160}, at 160 points per unit of weight":
        fail(f"jedis is not tuned in weights: {a}")
    for args, words in (
            (["--profile", "envoy-ring", "--min-ring-size", "20", "--max-ring-size", "10"],
             "minimum_ring_size (20) > maximum_ring_size (10)"),
            (["--profile", "envoy-maglev", "--maglev-table-size", "65536"], "not a prime"),
            (["--profile", "jedis", "--maglev-table-size", "7"], "takes no --maglev-table-size"),
            (["--profile", "envoy-ring", "--max-excess-churn", "0.01"], "--max-excess-churn"),
            (["--max-ring-size", "100"], "go with --profile envoy-ring")):
        target = [] if "--max-excess-churn" in args else ["--max-over-mean", "1.1"]
        err = run(["tune", "--nodes", "10", *args, *target], expect=2).stderr.strip().splitlines()
        if len(err) != 1 or words not in err[0]:
            fail(f"tune {args}: expected one line with {words!r}, got {err!r}")


def test_envoy(tmp):
    golden = json.load(open(os.path.join(SOURCE, "tests/compat/golden-upstream/envoy.json")))
    cases = {(c["profile"], c["test"]): c for c in golden}
    hosts = "".join(endpoint("127.0.0.1", p) for p in range(90, 96))
    for (profile, test), policy in (
            (("envoy-ring", "Basic"), "lb_policy: RING_HASH\n    ring_hash_lb_config:"
             " {minimum_ring_size: 12}"),
            (("envoy-maglev", "Basic"), "lb_policy: MAGLEV\n    maglev_lb_config:"
             " {table_size: 7}")):
        c = cases[(profile, test)]
        seg = c["segments"][0]
        if profile == "envoy-ring":
            want = [(v["hash"], v["host"]) for v in seg["vectors"] if v["kind"] == "point"]
        else:
            want = [(i, h) for i, h in enumerate(next(v["hosts"] for v in seg["vectors"]
                                                       if v["kind"] == "table"))]
        text = "".join(f"{a}\t127.0.0.1:{90 + h}\n" for a, h in want)
        got = run(["ring", "--servers", write(tmp, "c.yaml", envoy(hosts, policy))]).stdout
        if got != text:
            fail(f"{profile}: the cluster's ring is not Envoy's {test} "
                 f"({c['file']}:{c['line']}):\n{got}")
    c = cases[("envoy-ring", "BasicWithMurmur2")]
    murmur = envoy("".join(endpoint("127.0.0.1", p) for p in range(80, 86)),
                   "lb_policy: RING_HASH\n    ring_hash_lb_config:"
                   " {minimum_ring_size: 12, hash_function: MURMUR_HASH_2}")
    want = "".join(f"{v['hash']}\t127.0.0.1:{80 + v['host']}\n" for v in c["segments"][0]["vectors"]
                   if v["kind"] == "point")
    if run(["ring", "--servers", write(tmp, "m.yaml", murmur)]).stdout != want:
        fail("MURMUR_HASH_2 does not build Envoy's BasicWithMurmur2 ring")
    # What a change moves, for the 64-bit profiles too (sampled: no 32-bit ring to overlay).
    fewer = write(tmp, "f.yaml", envoy("".join(endpoint("127.0.0.1", p) for p in range(80, 85)),
                                       "lb_policy: MAGLEV"))
    more = write(tmp, "g.yaml", envoy("".join(endpoint("127.0.0.1", p) for p in range(80, 86)),
                                      "lb_policy: MAGLEV"))
    doc = json.loads(run(["diff", "--servers", more, "--servers-new", fewer, "--json"]).stdout)
    if not 0.16 < doc["moved"] < 0.3:
        fail(f"maglev: removing 1 of 6 moves {doc['moved']}")
    servers = write(tmp, "s.txt", "10.0.0.1:80\n10.0.0.2:80 2\n")
    for args, words in (
            (["--profile", "envoy-ring", "--min-ring-size", "0"], "accepted: an integer 1..8388608"),
            (["--profile", "envoy-ring", "--max-ring-size", "8388609"], "--max-ring-size"),
            (["--profile", "envoy-ring", "--min-ring-size", "-3"], "--min-ring-size"),
            (["--profile", "envoy-ring", "--min-ring-size", "20", "--max-ring-size", "10"],
             "minimum_ring_size (20) > maximum_ring_size (10)"),
            (["--profile", "envoy-maglev", "--maglev-table-size", "65536"], "not a prime"),
            (["--profile", "envoy-ring", "--hasher", "md5"], "xxh64, envoy_murmur2"),
            (["--profile", "jedis", "--maglev-table-size", "7"], "takes no --maglev-table-size"),
            (["--profile", "nginx", "--min-ring-size", "7"], "takes no --min-ring-size")):
        err = run(["locate", "--servers", servers] + args + [KEYS], expect=2).stderr
        if len(err.strip().splitlines()) != 1 or words not in err:
            fail(f"locate {args}: expected one line with {words!r}, got {err!r}")
    for params, words in (({"profile": "envoy-maglev", "maglev_table_size": 8}, "not a prime"),
                          ({"profile": "jedis", "min_ring_size": 9},
                           "takes no --min-ring-size")):
        scenario = write(tmp, "e.json", json.dumps({
            "schema_version": 1, "name": "envoy", "seed": 1, "trials": 1,
            "nodes": {"count": 5}, "algorithms": [{"algorithm": "ketama", **params}],
            "workload": {"type": "uniform", "keys": 1000}, "metrics": ["balance"]}))
        v = run(["validate", scenario], expect=2).stderr.strip().splitlines()
        r = run(["run", scenario, "-q", "-o", os.path.join(tmp, "out.json")],
                expect=2).stderr.strip().splitlines()
        if v[0] != r[0] or len(r) != 1 or words not in r[0]:
            fail(f"validate and run differ on {params}: {v} vs {r}")


def golden_upstream(name):
    """The server lines of upstream `name` in the golden nginx.conf, and its hash line."""
    text = open(os.path.join(SOURCE, "tests/compat/golden-proxies/configs/nginx.conf")).read()
    start = text.index(f"upstream {name} {{")
    body = text[text.index("{", start) + 1:text.index("}", start)]
    lines = [l.strip() for l in body.replace(";", ";\n").splitlines() if l.strip()]
    return [l for l in lines if l.startswith("server")], [l for l in lines if l.startswith("hash")]


def check_golden(spec, golden_map, tmp):
    """chsim locate --servers SPEC maps the keys of a golden map as the program did."""
    golden = open(os.path.join(SOURCE, "tests/compat/golden-proxies", golden_map),
                  "rb").read().split(b"\n")[:-1]
    keys = os.path.join(tmp, "golden-keys.txt")
    with open(keys, "wb") as f:
        f.write(b"".join(l.rsplit(b"\t", 1)[0] + b"\n" for l in golden))
    p = subprocess.run([CHSIM, "locate", "--servers", spec, keys], capture_output=True,
                       timeout=300)
    got = [l.rsplit(b"\t", 1)[1] for l in p.stdout.split(b"\n")[:-1]] if p.returncode == 0 else []
    want = [l.rsplit(b"\t", 1)[1] for l in golden]
    if got != want or not want:
        fail(f"{spec}: {sum(a != b for a, b in zip(got, want))} of {len(want)} keys map unlike "
             f"{golden_map} (exit {p.returncode}): {p.stderr[-500:]!r}")


def test_include(tmp):
    servers, hashing = golden_upstream("nginx_ngx5")
    if len(servers) != 5 or len(hashing) != 1:
        fail(f"the golden upstream nginx_ngx5 is not as expected: {servers} {hashing}")
    # nginx.conf includes conf.d/*.conf; the upstream there includes servers/ngx5-*.conf, a
    # path relative to nginx.conf's folder (nginx's conf prefix), not to conf.d/.
    os.makedirs(os.path.join(tmp, "etc/conf.d"))
    os.makedirs(os.path.join(tmp, "etc/servers"))
    main = write(tmp, "etc/nginx.conf", "events {}\nhttp {\n  include conf.d/*.conf;\n"
                 "  include none.d/*.conf;\n}\n")
    write(tmp, "etc/conf.d/a-other.conf", nginx("    hash $k;\n    server 10.9.9.9:80;", "other")
          .replace("http {", "").rstrip().rstrip("}"))
    write(tmp, "etc/conf.d/b-cache.conf", "upstream nginx_ngx5 {\n  " + hashing[0] + "\n"
          "  include servers/ngx5-*.conf;\n}\n")
    write(tmp, "etc/servers/ngx5-1.conf", "\n".join(servers[:3]) + "\n")
    write(tmp, "etc/servers/ngx5-2.conf", "# the last two\n" + "\n".join(servers[3:]) + "\n")
    check_golden(main + ":nginx_ngx5", "map/nginx/ngx5.tsv", tmp)
    # The VCL: backends in a file found beside the main one; the director's calls in
    # ./shards/vn5.vcl, whose last lines are in ./tail.vcl beside it (a "./" name is relative
    # to the file that includes it).
    vcl_text = open(os.path.join(SOURCE, "tests/compat/golden-proxies/configs/shard.vcl")).read()
    lines = vcl_text.split("\n")
    init = lines.index("sub vcl_init {")
    calls = [l for l in lines[init:] if l.strip().startswith("varnish_vn5.")]
    os.makedirs(os.path.join(tmp, "vcl/shards"))
    write(tmp, "vcl/backends.vcl", "\n".join(l for l in lines[:init] if l.startswith("backend")))
    write(tmp, "vcl/shards/vn5.vcl", "\n".join(calls[:-2]) + '\ninclude "./tail.vcl";\n')
    write(tmp, "vcl/shards/tail.vcl", "\n".join(calls[-2:]) + "\n")
    top = "\n".join(l for l in lines[:init] if not l.startswith("backend"))
    vmain = write(tmp, "vcl/main.vcl", top + '\ninclude "backends.vcl";\nsub vcl_init {\n'
                  '  new varnish_vn5 = directors.shard();\n  include "./shards/vn5.vcl";\n}\n')
    check_golden(vmain + ":varnish_vn5", "map/varnish/vn5.tsv", tmp)
    # Refusals (nginx reads every include, so each is its own configuration): one line naming
    # the file and line where it happened.
    write(tmp, "etc/servers/bad.inc", "server 10.0.0.1:80;\nserver 10.0.0.2:70000;\n")
    write(tmp, "etc/servers/loop.inc", "server 10.0.0.1:80;\ninclude servers/loop.inc;\n")
    for name, inc, where, words in (
            ("bad.conf", "servers/bad.inc", "servers/bad.inc:2:", "invalid port"),
            ("gone.conf", "servers/gone.inc", "gone.conf:3:", "gone.inc: cannot open"),
            ("loop.conf", "servers/loop.inc", "servers/loop.inc:2:", "includes itself"),
            ("args.conf", "a b", "args.conf:3:", "invalid number of arguments")):
        conf = write(tmp, "etc/" + name,
                     f"upstream u {{\n  hash $k consistent;\n  include {inc};\n}}\n")
        refused(conf, where, words)
    write(tmp, "vcl/shards/bad.vcl", "varnish_vn5.add_backend(b1);\n"
          "varnish_vn5.reconfigure(replicas=0);\n")
    write(tmp, "vcl/shards/self.vcl", 'include "./self.vcl";\n')
    for inc, where, words in (("./shards/bad.vcl", "shards/bad.vcl:2:", "invalid replicas"),
                              ("nowhere.vcl", "main.vcl:", "no file 'nowhere.vcl'"),
                              ("./shards/self.vcl", "shards/self.vcl:1:", "includes itself")):
        conf = write(tmp, "vcl/main.vcl", top + '\ninclude "backends.vcl";\nsub vcl_init {\n'
                     f'  new varnish_vn5 = directors.shard();\n  include "{inc}";\n}}\n')
        refused(conf, where, words)


def refused(conf, where, words):
    lines = run(["locate", "--servers", conf, KEYS], expect=2).stderr.strip().splitlines()
    if len(lines) != 1 or where not in lines[0] or words not in lines[0]:
        fail(f"{conf}: expected one line naming {where} with {words!r}, got {lines}")


if __name__ == "__main__":
    test = globals().get("test_" + sys.argv[3])
    if test is None:
        fail("unknown test " + sys.argv[3])
    with tempfile.TemporaryDirectory(prefix="chsim_config_") as tmp:
        test(tmp)
    print("ok")
