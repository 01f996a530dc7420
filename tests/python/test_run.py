# SPDX-License-Identifier: Apache-2.0
"""chsim.run and chsim.validate against `chsim run` and `chsim validate`: the same
deterministic rows, the same file from to_json, the tables chsim_results.load gives (both
from chsim.tables; the module imports no chsim_results), the same refusals, and Ctrl-C
stopping a run cleanly."""
import json
import os
import signal
import subprocess
import sys
import threading
import _thread

import pandas as pd
import pytest

import chsim
import chsim_results
from conftest import CHSIM, cli, cli_error

SCENARIO = {
    "schema_version": 1,
    "name": "py-run",
    "seed": 12,
    "trials": 2,
    "nodes": {"count": [10, 40]},
    "algorithms": [
        {"algorithm": "ring", "hasher": ["md5", "xxh3"], "points_per_node": [40, 160]},
        {"algorithm": "ketama", "profile": "libmemcached"},
        {"algorithm": "jump"},
        {"algorithm": "maglev", "table_size": "auto"},
        {"algorithm": "anchor"},
        {"algorithm": "bounded_load", "balance_factor": 1.25},
    ],
    "workload": {"type": "zipf", "keys": 5000, "requests": 20000, "exponent": 0.9},
    "events": [{"op": "add", "count": 1}, {"op": "remove", "random": 1},
               {"op": "fail", "fraction": 0.2}, {"op": "restore"}],
    "metrics": ["balance", "remap"],
    "on_unsupported": "rebuild",
    "output": {"per_node": "all", "transitions": True},
}


def without_provenance(doc):
    doc = dict(doc)
    doc.pop("provenance")
    return doc


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    path = d / "s.json"
    path.write_text(json.dumps(SCENARIO))
    cli("run", path, "-o", d / "cli.json", "-q", "--threads", 2)
    return d, path, chsim.run(SCENARIO, threads=1, progress=False), chsim.run(path, progress=False)


def test_rows_equal_the_cli(runs):
    d, path, from_dict, from_path = runs
    cli_doc = json.loads((d / "cli.json").read_text())
    assert from_dict.doc["rows"] == cli_doc["rows"]  # every metric here is deterministic
    assert all(r["deterministic"] for r in cli_doc["rows"])
    for part in ("summary", "nodes", "transitions", "cases", "algorithms", "scenario"):
        assert from_dict.doc[part] == cli_doc[part], part
    assert from_dict.doc["scenario_file"] == "<dict>"
    assert without_provenance(from_path.doc) == without_provenance(cli_doc)


def test_to_json_writes_the_cli_file(runs):
    d, path, _, from_path = runs
    from_path.to_json(d / "py.json")
    ours, theirs = (d / "py.json").read_bytes(), (d / "cli.json").read_bytes()
    # Byte for byte, but for the provenance block (times, command, threads).
    strip = lambda b: b"\n".join(l for l in b.split(b"\n") if b'"provenance"' not in l)
    assert strip(ours) == strip(theirs)
    assert json.loads(ours)["provenance"]["command"] == ["chsim.run", str(path)]
    cli("validate", "--results", d / "py.json")


def test_tables_equal_chsim_results_load(runs):
    d, _, from_dict, _ = runs
    from_dict.to_json(d / "dict.json")
    loaded = chsim_results.load(d / "dict.json")
    for ours, theirs in ((from_dict.rows, loaded.rows), (from_dict.summary, loaded.summary),
                         (from_dict.per_node, loaded.nodes), (from_dict.cases, loaded.cases),
                         (from_dict.transitions, loaded.transitions)):
        pd.testing.assert_frame_equal(ours, theirs)
    assert len(from_dict.per_node) > 0 and len(from_dict.transitions) > 0


SMALL = {"schema_version": 1, "name": "py-small", "nodes": {"count": 5},
         "algorithms": [{"algorithm": a["name"]} for a in chsim.algorithms()[:2]],
         "workload": {"type": "uniform", "keys": 100}}


def _python(code, path):
    """Runs Debian's python3 on code with only `path` on PYTHONPATH (no notebooks/ folder);
    returns its stdout."""
    env = dict(os.environ, PYTHONPATH=path)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_results_tables_come_from_chsim_tables_not_the_notebooks():
    """No circle: Results builds its tables with chsim.tables and never imports the
    notebooks' chsim_results (though it lies beside chsim on the path); the chsim_results
    copied beside the package builds its tables with that same chsim.tables."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(chsim.__file__)))
    out = _python(f"import json, sys, chsim\n"
                  f"r = chsim.run({SMALL!r}, progress=False)\n"
                  f"print(len(r.summary), len(r.cases))\n"
                  f"print(sorted(m for m in sys.modules if m.split('.')[0] == 'chsim_results'))\n"
                  f"print(sys.modules['chsim.tables'].__file__)", here)
    sizes, imported, where = out.splitlines()
    assert int(sizes.split()[0]) > 0 and int(sizes.split()[1]) == 2
    assert imported == "[]"
    assert where == os.path.join(os.path.dirname(chsim.__file__), "tables.py")
    beside = os.path.join(here, "chsim_results")
    if os.path.isdir(beside):  # the build's python/ folder, or an installed package
        out = _python("import sys, chsim, chsim.tables, chsim_results\n"
                      "l = sys.modules['chsim_results.load']\n"
                      "print(chsim_results._tables.tables is chsim.tables, "
                      "l.TABLE_COLUMNS is chsim.tables.TABLE_COLUMNS)", here)
        assert out.split() == ["True", "True"]


def test_seed_and_threads(runs):
    d, path, from_dict, _ = runs
    cli("run", path, "-o", d / "seed.json", "-q", "--seed", 99)
    assert chsim.run(SCENARIO, seed=99, progress=False).doc["rows"] == \
        json.loads((d / "seed.json").read_text())["rows"]
    assert chsim.run(SCENARIO, threads=2, progress=False).doc["rows"] == from_dict.doc["rows"]


def test_validate_equals_the_cli(runs):
    d, path, _, _ = runs
    v = chsim.validate(SCENARIO)
    out = cli("validate", path).decode()
    assert out.startswith(f"{path}: ok ({v['cases']} cases, {v['trials']} trials, "
                          f"{v['events']} events")
    assert v["scenario"] == "py-run" and v["skipped"] == []


@pytest.mark.parametrize("change", [
    {"trials": 0}, {"nodes": {"count": 0}}, {"seed": -1},
    {"algorithms": [{"algorithm": "ring", "points_per_node": 10**9}]},
    {"algorithms": [{"algorithm": "consistent"}]},
    {"events": [{"op": "remove", "random": 11}], "nodes": {"count": 10}},
    {"workload": {"type": "uniform", "keys": 10**15}},
    {"nodes": {"count": 10**6}, "algorithms": [{"algorithm": "ring", "points_per_node": 100000}]},
])
def test_refusals_equal_the_cli(tmp, change):
    doc = dict(SCENARIO, **change)
    (tmp / "bad.json").write_text(json.dumps(doc))
    for cmd in ("run", "validate"):
        message = cli_error(cmd, tmp / "bad.json", *(["-o", tmp / "o.json"] if cmd == "run" else []))
        with pytest.raises(chsim.ScenarioError) as e:
            (chsim.run if cmd == "run" else chsim.validate)(str(tmp / "bad.json"))
        assert str(e.value) == message
        with pytest.raises(ValueError) as e:  # ScenarioError is a ValueError
            (chsim.run if cmd == "run" else chsim.validate)(doc)
        assert str(e.value) == message.replace(str(tmp / "bad.json"), "<dict>")
    assert not os.path.exists(tmp / "o.json")


def test_scenario_types():
    with pytest.raises(TypeError, match="scenario: found int; accepted: a dict or the path"):
        chsim.run(5)
    with pytest.raises(TypeError, match="found bytes"):
        chsim.validate(dict(SCENARIO, name=b"x"))
    with pytest.raises(chsim.ScenarioError, match="not valid JSON"):
        chsim.validate(dict(SCENARIO, seed=float("nan")))
    with pytest.raises(chsim.ScenarioError, match="/seed"):
        chsim.validate(dict(SCENARIO, seed=2**80))
    with pytest.raises(chsim.ScenarioError, match="no-such.json: cannot open"):
        chsim.run("no-such.json")
    with pytest.raises(TypeError, match="threads must be an integer 1..1024"):
        chsim.run(SCENARIO, threads="2")
    with pytest.raises(ValueError, match=r"threads must be an integer 1\.\.1024 \(found 0\)"):
        chsim.run(SCENARIO, threads=0)
    import numpy as np
    assert chsim.validate(dict(SCENARIO, seed=np.int64(5)))["cases"] == 18


BIG = dict(SCENARIO, name="py-big", nodes={"count": [10, 20, 30, 40, 50, 60, 70, 80]},
           workload={"type": "uniform", "keys": 3_000_000}, trials=5)


def test_keyboard_interrupt_stops_a_run():
    timer = threading.Timer(0.5, _thread.interrupt_main)  # as Ctrl-C: the SIGINT flag
    timer.start()
    with pytest.raises(KeyboardInterrupt, match=r"chsim.run: interrupted after finishing \d+ of "
                                                r"72 cases; no results"):
        chsim.run(BIG, threads=2, progress=False)
    timer.cancel()
    # The stop request is cleared: the next run runs.
    assert len(chsim.run(SCENARIO, progress=False).doc["rows"]) > 0


def test_sigint_stops_a_run_in_a_process(tmp):
    code = ("import chsim, json, sys\n"
            "print('started', flush=True)\n"
            f"chsim.run(json.loads({json.dumps(json.dumps(BIG))}), threads=2, progress=False)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=os.environ)
    assert p.stdout.readline() == b"started\n"
    threading.Event().wait(0.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=300)  # hung, if it takes this long
    assert p.returncode in (1, -signal.SIGINT), err  # Python re-raises SIGINT at exit
    assert b"KeyboardInterrupt: chsim.run: interrupted after finishing" in err
    assert os.listdir(tmp) == []
