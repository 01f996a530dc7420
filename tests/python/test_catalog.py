# SPDX-License-Identifier: Apache-2.0
"""The catalog functions read chsim's registries: the same names, in the same order, as
`chsim list` prints, and the same algorithm entries a result file carries."""
import json
import re

import chsim
from conftest import cli


def listed():
    """{section: [names]} from `chsim list`."""
    out, section = {}, None
    for line in cli("list").decode().splitlines():
        m = re.match(r"^(\w[\w ]*):", line)
        if m:
            section = m.group(1)
            out[section] = []
        elif re.match(r"^  \S", line) and section:
            out[section].append(line.split()[0])
    return out


def test_names_equal_chsim_list():
    sections = listed()
    assert [p["name"] for p in chsim.profiles()] == sections["profiles"]
    assert [h["name"] for h in chsim.hashers()] == sections["hashers"]
    assert [a["name"] for a in chsim.algorithms()] == sections["algorithms"]
    assert [s["name"] for s in chsim.replica_strategies()] == sections["replica strategies"]
    assert [w["name"] for w in chsim.workloads()] == sections["workloads"]
    assert [m["name"] for m in chsim.metrics()] == sections["metrics"]


def test_algorithm_entries_equal_a_result_files(tmp):
    (tmp / "s.json").write_text(json.dumps({
        "schema_version": 1, "name": "cat", "nodes": {"count": 5},
        "algorithms": [{"algorithm": a["name"]} for a in chsim.algorithms()],
        "workload": {"type": "uniform", "keys": 10}, "on_unsupported": "skip"}))
    cli("run", tmp / "s.json", "-o", tmp / "r.json", "-q")
    written = json.loads((tmp / "r.json").read_text())["algorithms"]
    catalog = chsim.algorithms()
    assert [a["name"] for a in written] == [a["name"] for a in catalog]
    for w, c in zip(written, catalog):
        assert (w["summary"], w["paper"]) == (c["summary"], c["paper"])
        assert w["year"] == (c["year"] or None)
        assert [p["name"] for p in w["parameters"]] == [p["name"] for p in c["parameters"]]
        assert w["capabilities"]["removal"] == \
            ("any" if c["capabilities"]["arbitrary_removal"] else "last_added")


def test_entries_carry_ranges_defaults_capabilities_papers():
    ring = next(a for a in chsim.algorithms() if a["name"] == "ring")
    points = next(p for p in ring["parameters"] if p["name"] == "points_per_node")
    assert (points["type"], points["default"], points["minimum"], points["maximum"]) == \
        ("integer", 160, 1, 100000)
    assert ring["year"] == 1997 and "Karger" in ring["paper"]
    assert ring["capabilities"]["arbitrary_removal"] is True
    jump = next(a for a in chsim.algorithms() if a["name"] == "jump")
    assert jump["capabilities"]["arbitrary_removal"] is False
    hashers = {h["name"]: h["bits"] for h in chsim.hashers()}
    assert hashers["md5"] == 32 and hashers["xxh3"] == 64 and hashers["crc_spy"] == 15
    assert all(w["fields"] and w["unit"] for w in chsim.workloads())
    units = {m["name"]: m["unit"] for m in chsim.metrics()}
    assert units["remap.moved"] == "fraction" and units["throughput.ns_per_lookup"] == "ns"
    spy = chsim.profiles()[0]
    assert spy["name"] == "spymemcached" and spy["points_per_node"] == 160
    for s in chsim.replica_strategies():  # both sides of "applies to" agree
        for a in chsim.algorithms():
            assert (a["name"] in s["algorithms"]) == (s["name"] in a["replica_strategies"])
    chsim.algorithms()[0]["name"] = "changed"  # each call returns fresh dicts
    assert chsim.algorithms()[0]["name"] == "ring"
