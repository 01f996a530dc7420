# SPDX-License-Identifier: Apache-2.0
"""Every refusal the hostile-input table (tests/hostile/hostile.py) checks on the command
line has its Python exception: the same input given to the module raises ValueError (a
chsim.ScenarioError for scenarios) or RuntimeError with the CLI's one-line message, or,
where the message names a command-line flag, with the module's words for the same fact
(PY_WORDS). A row with no Python counterpart is listed in NO_COUNTERPART with the reason, so
a new row of the table must be placed in one of them. Then wrong types, None, huge integers,
empty lists and non-UTF-8 input: exceptions, never a crash."""
import importlib.util
import math
import os
import re

import numpy as np
import pytest

import chsim
from conftest import CHSIM, SOURCE, cli_error

_spec = importlib.util.spec_from_file_location("hostile", os.path.join(SOURCE, "tests", "hostile",
                                                                         "hostile.py"))
hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hostile)
hostile.CHSIM = CHSIM

# Rows whose CLI message names a flag: the Python message says the same with the argument's
# name (a regex it must match).
PY_WORDS = {
    "points per node -1": r"ring: points_per_node must be an integer 1\.\.100000 \(found -1\)",
    "tune nodes and servers": r"give exactly one of --nodes N \(N >= 2\) or --servers FILE",
    "tune 10^15 keys": r"--keys: found 1000000000000000; accepted: an integer 1\.\.1000000000",
    "run --threads 0": r"threads must be an integer 1\.\.1024 \(found 0\)",
    "run --seed -1": r"seed must be an integer 0\.\.18446744073709551615 \(found -1\)",
    "run --seed 2^64": r"seed must be an integer 0\.\.18446744073709551615 "
                       r"\(found 18446744073709551616\)",
    "points per node 2^32": r"ring: points_per_node must be an integer 1\.\.100000 "
                            r"\(found 4294967296\)",
    "run output is a directory": r"outdir: cannot write: Is a directory$",
}

NO_COUNTERPART = {
    "run output under a file is refused before the work":
        "the CLI refuses -o before the run; Results.to_json writes after it (RuntimeError)",
    "keys file missing": "keys come from memory in Python, not from a key file",
    "keys 2 MB line after good lines": "keys come from memory (a 2 MB key is a key)",
    "option without --algorithm": "a command-line flag mix: Python names the algorithm",
    "profile with --algorithm": "a command-line flag mix: Ring and Algorithm are two classes",
    "servers option missing": "a missing flag: Python arguments are required by signature",
    "no subcommand": "the command line only",
    "unknown subcommand": "the command line only",
    "unknown flag": "the command line only",
    "run --shard 5/4": "shards are a command-line feature (chsim run --shard, chsim merge)",
    "validate results: a truncated result file": "result files are read by chsim_results",
    "validate results: number 1e400": "result files are read by chsim_results",
    "validate results: nested 100,000 deep": "result files are read by chsim_results",
    "merge: kind is a number": "merge is a command-line feature",
    "merge: kind nested 100,000 deep": "merge is a command-line feature",
    "merge: result without its shard block": "merge is a command-line feature",
    "merge: not a result file": "merge is a command-line feature",
    "merge output on a full disk": "merge is a command-line feature",
    "run output on a full disk (RLIMIT_FSIZE)": "a file-size limit would bind the test process",
    "run keeps an old result on a full disk": "a file-size limit would bind the test process",
    "tune output on a full disk (RLIMIT_FSIZE)": "tune returns the dict; it writes no file",
    "scenario 1 GB line on stdin": "reads standard input ('-')",
    "servers 1 GB line on stdin": "reads standard input ('-')",
}

FLAG_PARAMS = {"--points": "points_per_node"}


def rows():
    for row in hostile.ROWS:
        if row.rc == 0 or "big" in row.tags or "nonroot" in row.tags:
            continue
        yield pytest.param(row, id=row.name)


def typed(algorithm, param, text):
    """A flag's text as the Python value of that parameter."""
    spec = next(p for a in chsim.algorithms() if a["name"] == algorithm
                for p in a["parameters"] if p["name"] == param)
    if spec["type"] == "integer":
        return text if text == "auto" else int(text)
    if spec["type"] == "number":
        return float(text)
    return text


def parse_flags(args):
    flags, positional = {}, []
    it = iter(args)
    for a in it:
        if a.startswith("-") and a not in ("-", "-q", "--quiet"):
            flags[a] = next(it)
        elif a not in ("-q", "--quiet"):
            positional.append(a)
    return flags, positional


def python_call(row, d):
    """The Python call of a row, as a function; None when the row has none."""
    args = [a.replace("{d}", str(d)) for a in row.args]
    command, (flags, pos) = args[0], parse_flags(args[1:])
    if command == "locate":
        servers = flags.pop("--servers")
        name = flags.pop("--algorithm", None)
        if name is None:
            return lambda: chsim.Ring(servers, profile=flags.get("--profile", "spymemcached"),
                                      hash_algorithm=flags.get("--hash-algorithm"),
                                      hasher=flags.get("--hasher"))
        params = {}
        for flag, text in flags.items():
            param = FLAG_PARAMS.get(flag, flag[2:].replace("-", "_"))
            params[param] = typed(name, param, text)
        return lambda: chsim.Algorithm(name, servers, **params)
    if command == "tune":
        options = {}
        for flag, text in flags.items():
            key = flag[2:].replace("-", "_")
            options[key] = (int(text) if key in ("nodes", "keys", "draws") else
                            float(text) if key in ("max_over_mean", "max_excess_churn", "confidence",
                                                   "time_budget") else text)
        return lambda: chsim.tune(**options)
    if command in ("run", "validate") and pos and pos[0] != "-":
        kw = {}
        if "--threads" in flags:
            kw["threads"] = int(flags["--threads"])
        if "--seed" in flags:
            kw["seed"] = int(flags["--seed"])
        if command == "validate":
            return lambda: chsim.validate(pos[0], **kw)
        out = flags.get("-o")
        return lambda: chsim.run(pos[0], progress=False, **kw).to_json(out)
    return None


@pytest.mark.parametrize("row", rows())
def test_hostile_row_has_its_python_exception(row, tmp):
    d = tmp / "row"
    d.mkdir()
    hostile.make_files(str(d), row.files)
    if row.pre:
        row.pre(str(d))
    if row.name in NO_COUNTERPART:
        pytest.skip(NO_COUNTERPART[row.name])
    call = python_call(row, d)
    assert call is not None, f"row '{row.name}' has no Python counterpart: map it or list it"
    expected = cli_error(*[a.replace("{d}", str(d)) for a in row.args])
    with pytest.raises((ValueError, RuntimeError)) as e:
        call()
    message = str(e.value)
    assert "\n" not in message and len(message) < 1000
    if row.rc == 1:
        assert e.type is RuntimeError
    else:
        assert issubclass(e.type, ValueError)
        if row.args[0] in ("run", "validate") and row.name not in PY_WORDS:
            assert e.type is chsim.ScenarioError
    if row.name in PY_WORDS:
        assert re.search(PY_WORDS[row.name], message), message
        return
    pattern = row.err.replace("^chsim: error: ", "")
    assert re.search(pattern, message), (message, pattern)
    # The CLI's message, or it with a flag named in front ("--points-per-node/--points: ").
    assert message == expected or expected.endswith(": " + message), (message, expected)


def test_every_mapped_name_is_a_row():
    names = {r.name for r in hostile.ROWS}
    assert set(PY_WORDS) <= names and set(NO_COUNTERPART) <= names


# --- wrong types, None, huge integers, empty lists, non-UTF-8 ---------------------------

HOSTILE_VALUES = [None, True, 1.5, float("nan"), -1, 0, 2**64, 10**400, "", "x", b"x",
                  bytearray(b"x"), [], [None], {}, {"a": None}, object(), "\udc80", b"\xff\xfe",
                  np.array([]), np.zeros((2, 2)), np.array([1, 2]), np.array([b"a"])[0]]


@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=repr)
def test_hostile_values_raise_never_crash(value):
    ring = chsim.Ring(["a:1", "b:1"])
    algo = chsim.Algorithm("bounded_load", ["a:1", "b:1"])
    calls = [
        lambda: chsim.Ring(value), lambda: chsim.Ring(["a:1"], profile=value),
        lambda: chsim.Ring(["a:1"], hasher=value), lambda: chsim.Algorithm(value, 3),
        lambda: chsim.Algorithm("ring", value), lambda: chsim.Algorithm("ring", 3, points_per_node=value),
        lambda: chsim.Algorithm("bounded_load", 3, balance_factor=value),
        lambda: chsim.Algorithm("maglev", 3, table_size=value),
        lambda: ring.locate(value), lambda: ring.locate_batch(value),
        lambda: ring.locate_batch([value]), lambda: algo.locate_batch([value, "k"]),
        lambda: ring.add(value), lambda: ring.add("c:1", value), lambda: ring.remove(value),
        lambda: chsim.hash(value, ["k"]), lambda: chsim.hash("md5", value),
        lambda: chsim.run(value), lambda: chsim.validate({"schema_version": value}),
        lambda: chsim.tune(nodes=value, max_over_mean=1.1, draws=10, time_budget=1),
        lambda: chsim.tune(nodes=10, max_over_mean=value, draws=10, time_budget=1),
        lambda: chsim.theory.cv(value), lambda: chsim.theory.wh_quantile(160, value),
        lambda: chsim.theory.points_for_target(value, 1.1),
    ]
    for call in calls:
        try:
            call()
        except (TypeError, ValueError, chsim.ScenarioError) as e:
            assert str(e) and "\n" not in str(e), (call, e)
    assert len(ring) == 2  # nothing changed


def test_non_utf8_and_empty_inputs():
    ring = chsim.Ring(["a:1", "b:1", "c:1"])
    assert ring.locate(b"\xff\xfe") in ("a:1", "b:1", "c:1")  # bytes are keys as they are
    assert len(ring.locate_batch([])) == 0
    assert len(ring.locate_batch(np.array([], dtype="S1"))) == 0
    assert len(chsim.hash("md5", [])) == 0
    with pytest.raises(ValueError, match=r"keys\[1\]: a str that is not valid Unicode"):
        ring.locate_batch(["k", "\udc80"])
    with pytest.raises(ValueError, match=r"keys\[0\]: a str that is not valid Unicode"):
        ring.locate_batch(np.array(["\udc80"]))
    with pytest.raises(ValueError, match=r"servers: no servers"):
        chsim.Ring([])
    with pytest.raises(ValueError, match=r"servers\[1\]: duplicate server 'a:1' "
                                         r"\(first at servers\[0\]\)"):
        chsim.Ring(["a:1", "a:1"])
    with pytest.raises(ValueError, match=r"servers\[0\]: bad port '70000'"):
        chsim.Ring(["a:70000"])
    with pytest.raises(ValueError, match=r"servers\[0\]: a line break inside one entry"):
        chsim.Ring(["a:1\nb:1"])
    labels = chsim.Ring({b"\xff".decode("utf-8", "surrogateescape") + "x:1": 1}).nodes
    assert labels == ["\udcffx:1"]  # a label's bytes survive as surrogates
    with pytest.raises(ValueError, match="add\\('a:1'\\): ketama: node 'a:1' is already live"):
        ring.add("a:1")
    with pytest.raises(ValueError, match="remove\\('z:1'\\): found no such node"):
        ring.remove("z:1")
    with pytest.raises(ValueError, match="weight must be an integer 1..2147483647 \\(found 0\\)"):
        ring.add("d:1", 0)
    assert math.isinf(chsim.theory.points_for_target(10**6, 1.0000001))
