#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Script tests of `chsim run/validate/merge` as a user runs them.

Usage: cli_test.py CHSIM SOURCE_DIR TEST, TEST one of: schemas, determinism,
shard_merge, interrupt, bad_input, help, plan, locate, tune. Each exits non-zero on
failure with a message saying what differed.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from signal_mid_run import FROZEN, run_frozen  # noqa: E402

CHSIM, SOURCE = sys.argv[1], sys.argv[2]
# Set by tests/sim/tests.cmake in a sanitizer build (CHSIM_SANITIZER_RUN): the smaller twin.
SANITIZED = os.environ.get("CHSIM_TEST_SANITIZED") == "1"
# A guard against a hang, not a speed requirement: every run here takes seconds.
HANG_S = 300

SMALL = {
    "schema_version": 1, "name": "cli-small", "seed": 31, "trials": 2,
    "nodes": {"count": [8, 30]},
    "algorithms": [
        {"algorithm": "ring", "hasher": ["md5", "xxh3"], "points_per_node": 40},
        {"algorithm": "ketama", "profile": "libmemcached"},
        {"algorithm": "jump"}, {"algorithm": "bounded_load"}, {"algorithm": "maglev"},
    ],
    "workload": {"type": "zipf", "keys": 2000, "requests": 20000, "exponent": 1.1},
    "events": [{"op": "add", "count": 1}, {"op": "remove", "random": 1},
               {"op": "fail", "fraction": 0.2}, {"op": "restore"}],
    "on_unsupported": "rebuild",
    "metrics": ["balance", "remap", "throughput"],
    "throughput": {"keys": 1024, "min_time_ms": 1, "repetitions": 1},
    "output": {"per_node": "all", "transitions": True},
}
if SANITIZED:
    # Every check here compares runs of the same scenario (threads, shards, an interrupt):
    # a tenth of the requests still sends keys through every algorithm, event and metric,
    # which is what the sanitizers watch, in seconds rather than a minute under TSan.
    SMALL["workload"] = dict(SMALL["workload"], keys=1000, requests=2000)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, expect=0, timeout=300):
    try:
        p = subprocess.run([CHSIM] + args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # e.g. a 10^12-key run that should have been refused
        fail(f"chsim {' '.join(args)}: hung: still running after {timeout} s, expected exit {expect}")
    if p.returncode != expect:
        fail(f"chsim {' '.join(args)}: exit {p.returncode}, expected {expect}\n{p.stderr}")
    return p


def write(tmp, name, doc):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(doc, f) if not isinstance(doc, str) else f.write(doc)
    return path


def deterministic(doc):
    """The parts of a result file that must not depend on threads or shards."""
    return json.dumps({
        "rows": [r for r in doc["rows"] if r["deterministic"]],
        "summary": [r for r in doc["summary"] if r["deterministic"]],
        "nodes": doc["nodes"], "transitions": doc["transitions"], "cases": doc["cases"],
        "scenario": doc["scenario"],
    }, sort_keys=True)


def test_schemas(tmp):
    with open(os.path.join(SOURCE, "scenarios", "schema.json")) as f:
        scenario_schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(scenario_schema)
    names = sorted(n for n in os.listdir(os.path.join(SOURCE, "scenarios"))
                   if n.endswith(".json") and n != "schema.json")
    if len(names) < 6:
        fail(f"expected the default suite in scenarios/, found {names}")
    perf = sorted(os.path.join("perf", n) for n in os.listdir(os.path.join(SOURCE, "scenarios", "perf"))
                  if n.endswith(".json"))  # the runner-speed scenarios (bench/runner-speed)
    if len(perf) < 2:
        fail(f"expected the runner-speed scenarios in scenarios/perf/, found {perf}")
    # chsim validate plans every case (state-of-the-art's 10^6-node ones take 7 s in a
    # release build, 80 under ThreadSanitizer): the release run validates the default suite,
    # a sanitized run the smallest of it (PlanProperty covers the planner there).
    for name in names + perf:
        with open(os.path.join(SOURCE, "scenarios", name)) as f:
            jsonschema.validate(json.load(f), scenario_schema)
    chsim_checks = names + perf
    if SANITIZED:
        chsim_checks = [min(names, key=lambda n: os.path.getsize(
            os.path.join(SOURCE, "scenarios", n)))]
    for name in chsim_checks:
        run(["validate", os.path.join(SOURCE, "scenarios", name)])
    # A scenario the schema rejects is rejected by chsim too, and vice versa.
    bad = dict(SMALL, trials=0)
    try:
        jsonschema.validate(bad, scenario_schema)
        fail("python jsonschema accepted trials: 0")
    except jsonschema.ValidationError:
        pass
    run(["validate", write(tmp, "bad.json", bad)], expect=2)

    scenario = write(tmp, "small.json", SMALL)
    out = os.path.join(tmp, "out.json")
    run(["run", scenario, "-o", out, "--threads", "2", "--quiet"])
    with open(os.path.join(SOURCE, "results", "schema.json")) as f:
        results_schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(results_schema)
    with open(out) as f:
        doc = json.load(f)
    jsonschema.validate(doc, results_schema)
    run(["validate", "--results", out])
    metrics = {r["metric"] for r in doc["rows"]}
    for m in ["structural.max_over_mean", "sampled.chi2_p", "remap.excess",
              "remap.cumulative.moved", "theory.wh99_high", "throughput.ns_per_lookup_with_hash"]:
        if m not in metrics:
            fail(f"metric {m} missing from the result rows")
    if doc["provenance"]["seed"] != "31" or doc["scenario"]["seed"] != "31":
        fail("seed not recorded as a decimal string")
    if not doc["nodes"] or not doc["transitions"]:
        fail("per-node or transition tables are empty")


def test_determinism(tmp):
    scenario = write(tmp, "small.json", SMALL)
    docs = []
    for threads in ["1", "2"]:
        out = os.path.join(tmp, f"t{threads}.json")
        run(["run", scenario, "-o", out, "--threads", threads, "--quiet"])
        with open(out) as f:
            docs.append(json.load(f))
    if deterministic(docs[0]) != deterministic(docs[1]):
        a = [r for r in docs[0]["rows"] if r["deterministic"]]
        b = [r for r in docs[1]["rows"] if r["deterministic"]]
        diff = next((x, y) for x, y in zip(a, b) if x != y) if len(a) == len(b) else (len(a), len(b))
        fail(f"1 and 2 threads differ: {diff}")
    # --seed changes the numbers.
    out = os.path.join(tmp, "seed.json")
    run(["run", scenario, "-o", out, "--seed", "32", "--quiet"])
    with open(out) as f:
        if deterministic(json.load(f)) == deterministic(docs[0]):
            fail("--seed 32 gave the same rows as seed 31")


def run_in_shards(tmp, name, doc):
    """Runs doc whole and as 3 shards; checks that the merged shards equal the whole run.
    Returns the scenario's path, the whole run's result and the 3 shards' paths."""
    scenario = write(tmp, f"{name}.json", doc)
    whole = os.path.join(tmp, f"{name}-whole.json")
    run(["run", scenario, "-o", whole, "--quiet"])
    parts = []
    for i in range(3):
        part = os.path.join(tmp, f"{name}-part{i}.json")
        run(["run", scenario, "-o", part, "--shard", f"{i}/3", "--quiet"])
        parts.append(part)
    merged = os.path.join(tmp, f"{name}-merged.json")
    run(["merge", parts[2], parts[0], parts[1], "-o", merged])
    with open(whole) as f, open(merged) as g:
        a, b = json.load(f), json.load(g)
    if deterministic(a) != deterministic(b):
        fail(f"{name}: merged shards differ from one run")
    if [r["metric"] for r in a["rows"]] != [r["metric"] for r in b["rows"]]:
        fail(f"{name}: row order differs (timing rows included)")
    return scenario, a, parts


def test_shard_merge(tmp):
    scenario, a, parts = run_in_shards(tmp, "small", SMALL)
    if SANITIZED:
        # Each merge below reads and schema-checks every shard, one thread, and under TSan
        # that costs 20x a release build per megabyte (SMALL's shards hold 2.5 MB). So the
        # listings, refusals and the shard on stdin read the shards of one algorithm at 3
        # node counts (a case per shard): the same scenario fields, events and output
        # tables, so every merge path runs on every kind of row; SMALL's shards, merged
        # above, still run every algorithm on the sharded runner's threads.
        tiny = dict(SMALL, algorithms=[{"algorithm": "jump"}], nodes={"count": [8, 9, 30]})
        scenario, a, parts = run_in_shards(tmp, "tiny", tiny)
    merged = os.path.join(tmp, "merged.json")
    run(["merge", parts[0], parts[1], "-o", os.path.join(tmp, "x.json")], expect=2)
    # merge --missing: the same verdict as a listing (exit 0 complete, 3 with holes, 2 misuse).
    p = run(["merge", "--missing", "--scenario", scenario] + parts)
    if json.loads(p.stdout)["complete"] is not True:
        fail(f"merge --missing on every shard: {p.stdout}")
    p = run(["merge", "--missing", parts[2], parts[0]], expect=3)
    listing = json.loads(p.stdout)
    if (listing["count"], listing["missing"], listing["rerun"]) != (3, [1], "1") or \
            "shard(s) 1 of 3 missing" not in p.stderr:
        fail(f"merge --missing without shard 1: {p.stdout} {p.stderr!r}")
    p = run(["merge", "--missing", "--scenario", scenario, "--seed", "32"] + parts, expect=3)
    if json.loads(p.stdout)["foreign"] != parts:
        fail(f"merge --missing against another seed should call every part foreign: {p.stdout}")
    run(["merge", "--missing", "--shards", "5"] + parts, expect=3)
    run(["merge", "--missing"] + parts + ["-o", os.path.join(tmp, "x.json")], expect=2)
    run(["merge", "--missing"], expect=2)
    run(["merge", "--shards", "3"] + parts + ["-o", os.path.join(tmp, "x.json")], expect=2)
    # A shard on stdin ("-") merges like a file, and gets the same schema check.
    with open(parts[1]) as f:
        text = f.read()
    p = subprocess.run([CHSIM, "merge", parts[2], parts[0], "-", "-o", merged], input=text,
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"merge with a shard on stdin: exit {p.returncode} {p.stderr!r}")
    with open(merged) as g:
        if deterministic(json.load(g)) != deterministic(a):
            fail("merged shards (one on stdin) differ from one run")
    bad = json.loads(text)
    bad["rows"][0]["value"] = "not a number"  # valid JSON, right kind, wrong type for the schema
    for source in ("file", "stdin"):
        bad_path = write(tmp, "bad-part1.json", bad)
        args = ["merge", parts[2], parts[0], bad_path if source == "file" else "-", "-o",
                os.path.join(tmp, "y.json")]
        p = subprocess.run([CHSIM] + args, input=json.dumps(bad), capture_output=True, text=True)
        if p.returncode != 2 or "/rows/0/value" not in p.stderr or "results/schema.json" not in p.stderr:
            fail(f"merge of a schema-invalid shard from {source}: exit {p.returncode} {p.stderr!r}")
        if os.path.exists(os.path.join(tmp, "y.json")):
            fail(f"merge of a schema-invalid shard from {source} wrote a file")


def interrupt_mid_run(scenario, out, *flags):
    """SIGINT delivered while the run's cases run (tests/signal_mid_run.py: at its first
    progress line, never after a guessed sleep). Returns chsim's stderr; fails unless the
    run stopped cleanly with exit 130."""
    for attempt in range(3):
        rc, err, how = run_frozen([CHSIM, "run", scenario, "-o", out, *flags], signal.SIGINT,
                                  HANG_S)
        if how == FROZEN or rc is None:
            break
    if rc is None:
        fail(f"chsim run {scenario}: {err}")
    if how != FROZEN:
        fail(f"three runs of {scenario} each ended before their first progress line")
    if rc != 130:
        fail(f"exit {rc} after SIGINT mid-run, expected 130\n{err}")
    return err


def test_interrupt(tmp):
    big = dict(SMALL, trials=50, metrics=["balance", "remap"])
    big["workload"] = {"type": "uniform", "keys": 2000000}
    scenario = write(tmp, "big.json", big)
    out = os.path.join(tmp, "big.out.json")
    err = interrupt_mid_run(scenario, out, "--threads", "2")
    if "interrupted by SIGINT after finishing" not in err or "no result file written" not in err:
        fail(f"no message saying what finished: {err!r}")
    leftovers = [n for n in os.listdir(tmp) if n.startswith("big.out.json")]
    if leftovers:
        fail(f"partial files left: {leftovers}")


def test_bad_input(tmp):
    cases = [
        ({**SMALL, "trails": 2}, "/trails"),
        ({**SMALL, "nodes": {"count": -3}}, "/nodes/count"),
        ({**SMALL, "algorithms": [{"algorithm": "ring", "hasher": "xxh4"}]}, "/algorithms/0/hasher"),
        ({**SMALL, "events": [{"op": "explode"}]}, "/events/0/op"),
        ({**SMALL, "workload": {"type": "file", "path": "nope.txt"}}, "/workload/path"),
        # 16 distinct keys for 10,000: repeated keys would read as bad balance.
        ({**SMALL, "workload": {"type": "sequential", "keys": 10000, "shape": "k{hex:1}"}},
         "/workload/shape"),
        ({**SMALL, "on_unsupported": "error"}, "/events/1"),  # jump, random removal (the plan)
        ({**SMALL, "events": [{"op": "remove", "nodes": ["10.9.9.9:1"]}]}, "/events/0"),
        ("{ not json", "not valid JSON"),
        # 10^12 keys per case is valid JSON but hours of work: refused without --force.
        ({**SMALL, "workload": {"type": "uniform", "keys": 10**12}}, "--force"),
    ]
    for i, (doc, pointer) in enumerate(cases):
        path = write(tmp, f"bad{i}.json", doc)
        p = run(["run", path, "-o", os.path.join(tmp, f"bad{i}.out"), "--quiet"], expect=2,
                timeout=60)
        lines = p.stderr.strip().split("\n")
        if len(lines) != 1:
            fail(f"case {i}: expected a one-line error, got {p.stderr!r}")
        if path not in lines[0] or pointer not in lines[0]:
            fail(f"case {i}: error does not name {path} and {pointer}: {lines[0]}")
        if os.path.exists(os.path.join(tmp, f"bad{i}.out")):
            fail(f"case {i}: wrote a result file")
    # With --force the same run starts: its cases run (interrupted once they do).
    huge = write(tmp, "huge.json", {**SMALL, "workload": {"type": "uniform", "keys": 10**12}})
    interrupt_mid_run(huge, os.path.join(tmp, "huge.out"), "--force")
    for flags in (["--shard", "3/3"], ["--seed", "x"], ["--threads", "0"]):
        run(["run", write(tmp, "ok.json", SMALL)] + flags, expect=2)
    run(["run", os.path.join(tmp, "missing.json")], expect=2)


def help_files_exist():
    """Every scenario a --help text cites exists (--results results/X.json: scenarios/X.json's
    run), and
    --remove's help names no algorithms (each spec's capabilities say how it removes)."""
    top = run(["--help"]).stdout
    commands = re.findall(r"^  ([a-z]+) {2,}", top, re.M)
    if len(commands) < 5:
        fail(f"chsim --help lists too few subcommands: {commands}")
    for cmd in commands:
        text = run([cmd, "--help"]).stdout
        cited = re.findall(r"(?<![\w/])scenarios/([\w.-]+)\.json", text)
        cited += re.findall(r"--results results/([\w.-]+)\.json", text)  # a default run's output
        for stem in cited:
            if stem != "schema" and not os.path.exists(os.path.join(SOURCE, "scenarios",
                                                                   stem + ".json")):
                fail(f"chsim {cmd} --help cites {stem}.json: no scenarios/{stem}.json")
    names = [a["name"] for a in json.loads(run(["list", "--json"]).stdout)["algorithms"]]
    remove = re.search(r"--remove[^\n]*(?:\n {20,}[^\n]*)*", run(["locate", "--help"]).stdout)
    if not remove:
        fail("chsim locate --help has no --remove")
    named = [n for n in names if re.search(rf"\b{n}\b", remove.group(0))]
    if named:
        fail(f"chsim locate --help: --remove names {named}, but every algorithm takes it")


def test_help(tmp):
    for cmd in ["run", "validate", "merge"]:
        p = run([cmd, "--help"])
        if "Example" not in p.stdout:
            fail(f"chsim {cmd} --help has no examples")
    help_files_exist()
    p = run(["run", write(tmp, "small.json", SMALL), "--dry-run"])
    if "ring(hasher=md5,points_per_node=40)/n=8" not in p.stdout:
        fail(f"--dry-run does not list the cases: {p.stdout}")
    p = run(["list"])
    for word in ["metrics:", "workloads:", "algorithms:", "remap.excess", "zipf"]:
        if word not in p.stdout:
            fail(f"chsim list lacks {word}")


def test_plan(tmp):
    """validate, run --dry-run and run agree, from the command line."""
    bad = write(tmp, "bad.json", {**SMALL, "algorithms": [{"algorithm": "anchor", "capacity": 9}],
                                  "nodes": {"count": 8}, "on_unsupported": "error",
                                  "events": [{"op": "add", "count": 2}]})
    messages = []
    for args in (["validate", bad], ["run", bad, "--dry-run"],
                 ["run", bad, "-q", "-o", os.path.join(tmp, "bad.out")]):
        p = run(args, expect=2)
        messages.append([l for l in p.stderr.splitlines() if "capacity" in l])
    if not messages[0] or messages[0] != messages[1] or messages[0] != messages[2]:
        fail(f"validate, --dry-run and run differ: {messages}")
    if "/events/0: anchor cannot add 2 (anchor: capacity 9 reached" not in messages[0][0]:
        fail(f"unexpected refusal: {messages[0]}")
    if os.path.exists(os.path.join(tmp, "bad.out")):
        fail("a refused run wrote a result file")
    # The same under "skip": accepted, and the plan says which case stops and why.
    skip = write(tmp, "skip.json", {**json.load(open(bad)), "on_unsupported": "skip"})
    p = run(["validate", skip])
    if "1 cases will be skipped" not in p.stdout:
        fail(f"validate does not count the skipped case: {p.stdout}")
    p = run(["run", skip, "--dry-run"])
    if "\tskipped: at /events/0 (add 2): anchor: capacity 9 reached" not in p.stdout:
        fail(f"--dry-run does not show the plan: {p.stdout}")
    # validate takes run's flags that change what run refuses.
    run(["validate", "--seed", "3", "--shard", "0/2", "--force", skip])


def tune_files(tmp):
    """chsim tune --json over the shapes its file takes: drawn names, a server list, an
    algorithm with its own parameter and the churn objective, and a budget that runs out
    (any real check outlasts 1 ns, so that answer is never settled)."""
    servers = write(tmp, "s.txt", "".join(f"10.0.0.{i}:11211 {1 + i % 2}\n" for i in range(1, 9)))
    shapes = {
        "drawn": ["--nodes", "20", "--max-over-mean", "1.3", "--draws", "20"],
        "list": ["--servers", servers, "--profile", "libmemcached", "--max-over-mean", "1.2"],
        "churn": ["--nodes", "10", "--algorithm", "maglev", "--max-excess-churn", "0.05",
                  "--draws", "5"],
        "unsettled": ["--nodes", "20", "--max-over-mean", "1.1", "--draws", "10",
                      "--time-budget", "1e-9"],
    }
    docs = {}
    for name, args in shapes.items():
        out = os.path.join(tmp, name + ".json")
        run(["tune", *args, "--threads", "2", "--quiet", "--json", out])
        docs[name] = out
    return docs


def test_tune(tmp):
    """Tune files validate against results/tune-schema.json, in chsim validate --results and
    in Python's jsonschema alike; a damaged one is refused in one line naming its pointer."""
    with open(os.path.join(SOURCE, "results", "tune-schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    docs = tune_files(tmp)
    for name, path in docs.items():
        with open(path) as f:
            doc = json.load(f)
        jsonschema.validate(doc, schema)
        run(["validate", "--results", path])
        if (doc["answer"]["doubt_low"] is None) != doc["answer"]["settled"]:
            fail(f"{name}: doubt_low is null exactly when settled: {doc['answer']}")
    with open(docs["unsettled"]) as f:
        if json.load(f)["answer"]["settled"]:
            fail("a 1 ns budget settled the answer")
    with open(docs["drawn"]) as f:
        good = json.load(f)
    damages = [
        ("/answer", lambda d: d["answer"].pop("value")),
        ("/answer/value", lambda d: d["answer"].update(value="12")),
        ("/estimates/0/method", lambda d: d["estimates"][0].update(method="guess")),
        ("/request/confidence", lambda d: d["request"].update(confidence=1.5)),
        ("/kind: found \"tunes\"; accepted: \"chsim-results\"", lambda d: d.update(kind="tunes")),
    ]
    for pointer, damage in damages:
        doc = json.loads(json.dumps(good))
        damage(doc)
        bad = write(tmp, "bad.json", doc)
        p = run(["validate", "--results", bad], expect=2)
        errors = [l for l in p.stderr.splitlines() if "bad.json" in l]
        if len(errors) != 1 or pointer not in errors[0]:
            fail(f"damage at {pointer}: expected one line naming it, got {p.stderr!r}")
        if jsonschema.Draft7Validator(schema).is_valid(doc):
            fail(f"jsonschema accepts the damage at {pointer}")


def locate(args, expect=0):
    data = os.path.join(SOURCE, "tests", "algorithms", "data")
    p = run(["locate", "--servers", os.path.join(data, "servers.txt")] + args +
            [os.path.join(data, "keys.txt")], expect=expect)
    return [line.split("\t")[1] for line in p.stdout.splitlines()] if expect == 0 else p.stderr


def test_locate(tmp):
    """locate's flags come from the specs; --remove applies removals in order."""
    a1, a2, a3 = "10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"
    full = locate(["--algorithm", "anchor"])
    removed = locate(["--algorithm", "anchor", "--remove", a2])
    if a2 in removed or any(f != r for f, r in zip(full, removed) if f != a2):
        fail("anchor --remove moved keys other than the removed server's")
    if locate(["--algorithm", "anchor", "--remove", a2]) != removed:
        fail("--remove is not reproducible")
    both = locate(["--algorithm", "anchor", "--capacity", "3", "--remove", a1, "--remove", a2])
    if set(both) != {a3}:
        fail(f"two removals leave one server: {set(both)}")
    # A peer profile: a removal is the ring rebuilt without the server.
    listed = os.path.join(tmp, "two.txt")
    with open(listed, "w") as f:
        f.write(f"{a1}\n{a3}\n")
    data = os.path.join(SOURCE, "tests", "algorithms", "data")
    p = run(["locate", "--servers", listed, os.path.join(data, "keys.txt")])
    if locate(["--remove", a2]) != [l.split("\t")[1] for l in p.stdout.splitlines()]:
        fail("profile --remove differs from the list without the server")
    # Parameters as flags, from the specs: --points is --points-per-node.
    if locate(["--algorithm", "ring", "--points", "40"]) != locate(
            ["--algorithm", "ring", "--points-per-node", "40"]):
        fail("--points and --points-per-node differ")
    if locate(["--algorithm", "maglev", "--table-size", "auto"]) != locate(
            ["--algorithm", "maglev", "--table-size", "65537"]):
        fail("--table-size auto is not 65537 for 3 servers")
    for args, words in ((["--algorithm", "ring", "--probes", "3"], "ring has no parameter 'probes'"),
                        (["--algorithm", "multi_probe", "--probes", "2000"],
                         "probes must be an integer 1..1024 (found 2000)"),
                        (["--algorithm", "jump", "--remove", a1], "can only remove the most recently"),
                        (["--algorithm", "anchor", "--remove", a1, "--remove", a1], "already removed"),
                        (["--algorithm", "anchor", "--remove", "nope:1"], "found no such server"),
                        (["--probes", "3"], "--probes needs --algorithm")):
        err = locate(args, expect=2)
        if words not in err or len(err.strip().splitlines()) != 1:
            fail(f"locate {args}: expected one line with {words!r}, got {err!r}")


if __name__ == "__main__":
    test = globals().get("test_" + sys.argv[3])
    if test is None:
        fail("unknown test " + sys.argv[3])
    with tempfile.TemporaryDirectory(prefix="chsim_cli_") as tmp:
        test(tmp)
    print("ok")
