# SPDX-License-Identifier: Apache-2.0
"""chsim.tune returns the dict `chsim tune --json` writes for the same options, and refuses
what the command refuses with its messages."""
import json
import math
import os

import jsonschema
import pytest

import chsim
from conftest import SOURCE, cli, cli_error

with open(os.path.join(SOURCE, "results", "tune-schema.json")) as f:
    TUNE_SCHEMA = json.load(f)

SERVERS = ["10.0.0.%d:11211 %d" % (i + 1, 1 + i % 2) for i in range(12)]


def deterministic(doc):
    """The document without wall times (build and lookup costs)."""
    doc = json.loads(json.dumps(doc))
    for key in ("cost_current", "cost_answer"):
        for t in ("build_ms", "lookup_ns"):
            doc["answer"].get(key, {}).pop(t, None)
    return doc


CASES = [
    dict(nodes=50, max_over_mean=1.2, draws=40, seed=3),
    dict(nodes=30, max_over_mean=1.3, draws=30, hasher="xxh3", metric="sampled", keys=20000),
    dict(servers="list", profile="libmemcached", max_over_mean=1.15),
    dict(nodes=20, algorithm="maglev", max_over_mean=1.05, draws=20),
    dict(nodes=20, algorithm="maglev", max_excess_churn=0.02, draws=10),
    dict(servers="list", profile="envoy-ring", max_over_mean=1.3, min_ring_size=512,
         max_ring_size=65536),
    dict(servers="list", profile="envoy-maglev", max_over_mean=1.2, maglev_table_size=251),
]


def flags(options):
    out = []
    for k, v in options.items():
        out += ["--" + k.replace("_", "-"), str(v)]
    return out


@pytest.mark.parametrize("options", CASES, ids=lambda o: "-".join(map(str, o.values())))
def test_tune_equals_the_cli(tmp, options):
    options = dict(options, time_budget=1000, threads=2)  # the budget never cuts the draws
    if options.get("servers") == "list":
        (tmp / "s.txt").write_text("\n".join(SERVERS) + "\n")
        options["servers"] = str(tmp / "s.txt")
    cli("tune", *flags(options), "--quiet", "--json", tmp / "t.json")
    expected = json.loads((tmp / "t.json").read_text())
    got = chsim.tune(**options)
    assert deterministic(got) == deterministic(expected)
    assert got["kind"] == "tune" and isinstance(got["answer"]["value"], int)
    jsonschema.validate(got, TUNE_SCHEMA)  # results/README.md's format, as from the command
    if "servers" in options:  # the same list given as lines: the same answer
        lines = chsim.tune(**dict(options, servers=SERVERS))
        assert lines["request"]["servers"] == "<12 servers>"
        assert deterministic(lines)["answer"] == deterministic(expected)["answer"]


@pytest.mark.parametrize("options", [
    dict(max_over_mean=1.1),
    dict(nodes=1, max_over_mean=1.1),
    dict(nodes=10, max_over_mean=0.5),
    dict(nodes=10, max_over_mean=float("nan")),
    dict(nodes=10, max_over_mean=1.1, confidence=1.5),
    dict(nodes=10, max_over_mean=1.1, metric="sampled", keys=10**15),
    dict(nodes=10, max_over_mean=1.1, algorithm="jump"),
    dict(nodes=10, max_over_mean=1.1, algorithm="ring", hasher="sha3"),
    dict(nodes=10, max_over_mean=1.1, profile="nope"),
    dict(nodes=10, max_over_mean=1.1, metric="both"),
    dict(nodes=10),
])
def test_refusals_equal_the_cli(options):
    args = [a.replace("nan", "nan") for a in flags(options)]
    message = cli_error("tune", *args, "--quiet")
    with pytest.raises(ValueError) as e:
        chsim.tune(**options)
    if message.startswith("--keys: Value"):  # CLI11's range check comes first there
        assert str(e.value) == "--keys: found 1000000000000000; accepted: an integer 1..1000000000"
    else:
        assert str(e.value) == message


def test_tune_types():
    with pytest.raises(TypeError, match=r"nodes must be an integer 0\.\.4294967295 \(found str\)"):
        chsim.tune(nodes="10", max_over_mean=1.1)
    with pytest.raises(TypeError, match=r"max_over_mean must be a number \(found NoneType\)|"
                                        r"max_over_mean must be a number"):
        chsim.tune(nodes=10, max_over_mean=[1.1])
    with pytest.raises(TypeError):
        chsim.tune(10, 1.1)  # keywords only
    with pytest.raises(ValueError, match="nodes must be an integer"):
        chsim.tune(nodes=2**64, max_over_mean=1.1)
    with pytest.raises(ValueError, match="servers: no servers"):
        chsim.tune(servers=[], max_over_mean=1.1)


def test_envoy_sizes_are_passed(tmp):
    """min_ring_size, max_ring_size and maglev_table_size reach the search: the current
    setting is the one given, and a bound below the answer is reported as not reached."""
    ring = dict(servers=SERVERS, profile="envoy-ring", max_over_mean=1.3)
    small = chsim.tune(**ring, min_ring_size=100)
    large = chsim.tune(**ring, min_ring_size=4096)
    assert small["answer"] != large["answer"]
    bounded = chsim.tune(**ring, min_ring_size=16, max_ring_size=64)
    assert bounded["answer"] != chsim.tune(**ring, min_ring_size=16)["answer"]
    with pytest.raises(ValueError, match=r"minimum_ring_size \(1024\) > maximum_ring_size"):
        chsim.tune(**ring, max_ring_size=64)  # Envoy's refusal, as the command's
    maglev = dict(servers=SERVERS, profile="envoy-maglev", max_over_mean=1.2)
    assert chsim.tune(**maglev, maglev_table_size=251)["answer"] != \
        chsim.tune(**maglev, maglev_table_size=65537)["answer"]
    for bad in (dict(min_ring_size=0), dict(max_ring_size=2**23 + 1),
                dict(maglev_table_size=1)):
        with pytest.raises(ValueError, match=next(iter(bad))):
            chsim.tune(**ring, **bad)


def test_analytic_points_equal_theory():
    got = chsim.tune(nodes=200, max_over_mean=1.1, draws=20, time_budget=1000)
    assert math.isclose(got["answer"]["analytic_points"],
                        chsim.theory.points_for_target(200, 1.1, 0.95), rel_tol=1e-12)
