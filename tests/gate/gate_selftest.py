#!/usr/bin/python3
"""Self-tests of scripts/bench-gate: a synthetic +10% regression fails it, identical inputs
pass it, wall-time noise of the size measured on these machines (5-10% CV, limits.md) passes
the A/B mode, and the baseline only changes through --update --reason.

Usage: gate_selftest.py BENCH_GATE_SCRIPT [WORKLOADS_BINARY [unittest names...]]
With WORKLOADS_BINARY, also the end-to-end cases under valgrind (one small workload)."""
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import random
import sys
import tempfile
import unittest

SCRIPT = sys.argv[1]
WORKLOADS = sys.argv[2] if len(sys.argv) > 2 else None
_loader = importlib.machinery.SourceFileLoader("bench_gate", SCRIPT)
_spec = importlib.util.spec_from_loader("bench_gate", _loader)
gate = importlib.util.module_from_spec(_spec)
_loader.exec_module(gate)

ENV = {"valgrind": "valgrind-3.19.0", "workloads.md5_batch_isa": "avx2"}


def run_gate(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = gate.main(list(args))
    return code, out.getvalue() + err.getvalue()


class Tmp(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, doc):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def counts(self, name, workloads, env=ENV):
        return self.write(name, {"schema": gate.SCHEMA, "environment": env,
                                 "workloads": workloads})


class CompareCounts(Tmp):
    BASE = {"build": 77_424_556, "lookup": 32_798_488, "hash": 394_003}

    def test_identical_counts_pass(self):
        b = self.counts("b.json", self.BASE)
        code, out = run_gate("compare", b, b)
        self.assertEqual(code, 0, out)
        self.assertIn("PASS", out)

    def test_synthetic_ten_percent_regression_fails(self):
        head = dict(self.BASE, lookup=int(self.BASE["lookup"] * 1.10))
        code, out = run_gate("compare", self.counts("b.json", self.BASE),
                             self.counts("h.json", head))
        self.assertEqual(code, 1, out)
        self.assertRegex(out, r"lookup .*\+10\.00%\s+REGRESSION")

    def test_two_percent_is_the_edge(self):
        b = self.counts("b.json", self.BASE)
        under = dict(self.BASE, build=int(self.BASE["build"] * 1.019))
        over = dict(self.BASE, build=int(self.BASE["build"] * 1.021))
        self.assertEqual(run_gate("compare", b, self.counts("u.json", under))[0], 0)
        self.assertEqual(run_gate("compare", b, self.counts("o.json", over))[0], 1)

    def test_improvement_passes_and_says_so(self):
        head = dict(self.BASE, hash=int(self.BASE["hash"] * 0.5))
        code, out = run_gate("compare", self.counts("b.json", self.BASE),
                             self.counts("h.json", head))
        self.assertEqual(code, 0)
        self.assertIn("improved", out)

    def test_other_environment_is_not_gated(self):
        head = dict(self.BASE, lookup=int(self.BASE["lookup"] * 1.5))
        code, out = run_gate("compare", self.counts("b.json", self.BASE),
                             self.counts("h.json", head, dict(ENV, valgrind="valgrind-3.22.0")))
        self.assertEqual(code, 0, out)
        self.assertIn("environment differs", out)

    def test_new_workload_is_reported_not_failed(self):
        code, out = run_gate("compare", self.counts("b.json", self.BASE),
                             self.counts("h.json", dict(self.BASE, extra=5)))
        self.assertEqual(code, 0)
        self.assertIn("new (not gated)", out)

    def test_bad_input_is_a_usage_error_naming_the_file(self):
        bad = os.path.join(self.dir, "bad.json")
        with open(bad, "w") as f:
            f.write("{\n  oops")
        code, out = run_gate("compare", bad, bad)
        self.assertEqual(code, 2)
        self.assertIn("bad.json: line 2", out)
        code, out = run_gate("compare", self.write("s.json", {"schema": "x"}), bad)
        self.assertEqual(code, 2)
        self.assertIn("/schema", out)

    def test_update_needs_a_reason(self):
        b = self.counts("b.json", self.BASE)
        code, out = run_gate("callgrind", "--workloads", "/bin/true", "--baseline", b, "--update")
        self.assertEqual(code, 2)
        self.assertIn("--reason", out)
        with open(b) as f:
            self.assertEqual(json.load(f)["workloads"], self.BASE)


def gbench(path, samples):
    rows = []
    for name, values in samples.items():
        for i, v in enumerate(values):
            rows.append({"name": name, "run_name": name, "run_type": "iteration",
                         "repetition_index": i, "cpu_time": v, "real_time": v * 1.3})
        rows.append({"name": name + "_mean", "run_name": name, "run_type": "aggregate",
                     "aggregate_name": "mean", "cpu_time": sum(values) / len(values),
                     "real_time": 0})
    with open(path, "w") as f:
        json.dump({"context": {}, "benchmarks": rows}, f)
    return path


def noisy(rng, n, mean, cv):
    # Log-normal noise (timing noise is skewed: interference only slows down).
    return [mean * rng.lognormvariate(0, cv) for _ in range(n)]


class MannWhitney(unittest.TestCase):
    def test_exact_p_value(self):
        # y all above x: 1 arrangement of C(6,3) = 20.
        self.assertAlmostEqual(gate.mann_whitney_greater([1, 2, 3], [4, 5, 6]), 1 / 20)
        self.assertAlmostEqual(gate.mann_whitney_greater([4, 5, 6], [1, 2, 3]), 1.0)
        # One swap: U = 8 of 9; P(U >= 8) = 2/20.
        self.assertAlmostEqual(gate.mann_whitney_greater([1, 2, 4], [3, 5, 6]), 2 / 20)

    def test_normal_approximation_agrees_with_exact(self):
        rng = random.Random(3)
        x = [rng.random() for _ in range(30)]
        y = [rng.random() + 0.2 for _ in range(30)]
        exact = gate.mann_whitney_greater(x, y)
        ties = x[:1] + x  # one tie forces the approximation
        approx = gate.mann_whitney_greater(ties[1:] + [x[0]], y)
        self.assertAlmostEqual(exact, approx, delta=0.01)

    def test_benjamini_hochberg(self):
        q = gate.benjamini_hochberg([0.01, 0.04, 0.03, 0.2])
        self.assertEqual([round(v, 4) for v in q], [0.04, 0.0533, 0.0533, 0.2])


class AbMode(Tmp):
    NAMES = [f"lookup/ring:spymemcached/mode:tput/nodes:{n}" for n in range(40)]

    def test_identical_files_pass(self):
        rng = random.Random(1)
        p = gbench(os.path.join(self.dir, "a.json"), {n: noisy(rng, 10, 100, 0.08)
                                                     for n in self.NAMES})
        code, out = run_gate("ab", p, p)
        self.assertEqual(code, 0, out)

    def test_machine_noise_passes(self):
        # 5% and 10% CV, 5 and 10 repetitions, 40 benchmarks, 20 seeds: 1,600 null comparisons.
        for seed in range(20):
            for cv in (0.05, 0.10):
                for reps in (5, 10):
                    rng = random.Random(seed * 100 + reps + int(cv * 1000))
                    base = gbench(os.path.join(self.dir, "b.json"),
                                  {n: noisy(rng, reps, 100, cv) for n in self.NAMES})
                    head = gbench(os.path.join(self.dir, "h.json"),
                                  {n: noisy(rng, reps, 100, cv) for n in self.NAMES})
                    code, out = run_gate("ab", base, head)
                    self.assertEqual(code, 0, f"seed {seed} cv {cv} reps {reps}\n{out}")

    def test_ten_percent_regression_fails(self):
        rng = random.Random(5)
        slow = self.NAMES[7]
        base = {n: noisy(rng, 10, 100, 0.02) for n in self.NAMES}
        head = {n: noisy(rng, 10, 110 if n == slow else 100, 0.02) for n in self.NAMES}
        b = gbench(os.path.join(self.dir, "b.json"), base)
        h = gbench(os.path.join(self.dir, "h.json"), head)
        code, out = run_gate("ab", b, h)
        self.assertEqual(code, 1, out)
        flagged = [l for l in out.splitlines() if l.endswith("SLOWER")]
        self.assertEqual(len(flagged), 1, out)
        self.assertTrue(flagged[0].startswith(slow))
        code, out = run_gate("ab", b, h, "--advisory")
        self.assertEqual(code, 0)
        self.assertIn("ADVISORY", out)

    def test_ten_percent_regression_under_five_percent_noise_fails(self):
        rng = random.Random(9)
        base = {n: noisy(rng, 20, 100, 0.05) for n in self.NAMES[:5]}
        head = {n: noisy(rng, 20, 110, 0.05) for n in self.NAMES[:5]}
        code, out = run_gate("ab", gbench(os.path.join(self.dir, "b.json"), base),
                             gbench(os.path.join(self.dir, "h.json"), head))
        self.assertEqual(code, 1, out)

    def test_not_a_benchmark_file(self):
        code, out = run_gate("ab", self.write("x.json", {"a": 1}), self.write("y.json", {}))
        self.assertEqual(code, 2)
        self.assertIn("x.json: /benchmarks missing", out)


@unittest.skipUnless(WORKLOADS, "needs the workloads binary")
class EndToEnd(Tmp):
    """The real callgrind path on one small workload."""
    FILTER = "^hash_xxh3_32B$"

    def test_counts_repeat_and_a_synthetic_regression_fails(self):
        base = os.path.join(self.dir, "baseline.json")
        code, out = run_gate("callgrind", "--workloads", WORKLOADS, "--baseline", base,
                             "--filter", self.FILTER, "--update", "--reason", "self-test")
        self.assertEqual(code, 0, out)
        code, out = run_gate("callgrind", "--workloads", WORKLOADS, "--baseline", base,
                             "--filter", self.FILTER)
        self.assertEqual(code, 0, out)
        self.assertRegex(out, r"\+0\.00%\s+ok")  # exactly repeatable
        with open(base) as f:
            doc = json.load(f)
        self.assertEqual(doc["history"][-1]["reason"], "self-test")
        # A baseline 10% cheaper than the code: the head is a +10% regression.
        doc["workloads"] = {k: int(v / 1.10) for k, v in doc["workloads"].items()}
        with open(base, "w") as f:
            json.dump(doc, f)
        code, out = run_gate("callgrind", "--workloads", WORKLOADS, "--baseline", base,
                             "--filter", self.FILTER)
        self.assertEqual(code, 1, out)
        self.assertIn("REGRESSION", out)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:])
