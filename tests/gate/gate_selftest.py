#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Self-tests of scripts/bench-gate.

Without valgrind (always): the count comparison (a +10% regression fails, 2% is the edge,
identical counts pass), a changed toolchain is exit 77 (CTest: skipped) naming the re-record
command and never a pass, changed libraries or valgrind pass with a note, the parser of
callgrind's per-object costs, CTest reporting exit 77 as skipped, a missing valgrind failing
with what to install, wall-time noise of the size measured on these machines (5-10% CV)
passing the A/B mode, and the baseline changing only through --update --reason.

With the workloads binaries (EndToEnd, under valgrind): counts repeat exactly; a planted +3%
in chsim's own code fails; the same binary with a libc and a libcrypto of other hashes, or a
library made 4x slower, passes with the same figures; a changed compiler is exit 77; the SIMD
pin holds on any CPU and a level the CPU lacks is refused; CTest registers the gate with
SKIP_RETURN_CODE 77.

Usage: gate_selftest.py BENCH_GATE_SCRIPT [--workloads BIN --planted BIN --shim SO
                                            --ctest-dir BUILD] [unittest names...]"""
import argparse
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

_ap = argparse.ArgumentParser()
_ap.add_argument("script")
_ap.add_argument("--workloads")
_ap.add_argument("--planted")
_ap.add_argument("--shim")
_ap.add_argument("--ctest-dir")
ARGS, UNITTEST_ARGS = _ap.parse_known_args()
SCRIPT = os.path.abspath(ARGS.script)
WORKLOADS = ARGS.workloads
_loader = importlib.machinery.SourceFileLoader("bench_gate", SCRIPT)
_spec = importlib.util.spec_from_loader("bench_gate", _loader)
gate = importlib.util.module_from_spec(_spec)
_loader.exec_module(gate)

TOOLCHAIN = {"compiler": ["GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"], "machine": "x86_64",
             "workloads.simd": "avx2", "workloads.md5_batch_isa": "avx2"}
CONTEXT = {"valgrind": "valgrind-3.19.0", "libraries": {"libc.so.6": "6b4a45352fd0c540",
                                                        "libcrypto.so.3": "7c3c55df3d0972be"}}


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

    def counts(self, name, workloads, toolchain=TOOLCHAIN, context=CONTEXT, others=None):
        return self.write(name, {"schema": gate.SCHEMA, "toolchain": toolchain,
                                 "pins": {"CHSIM_SIMD": "avx2"}, "context": context,
                                 "workloads": workloads, "other_objects": others or {}})


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

    def test_changed_compiler_is_not_comparable_never_a_pass(self):
        head = dict(self.BASE, lookup=int(self.BASE["lookup"] * 1.5))
        for changed in ({"compiler": ["GCC: (Debian 13.2.0-1) 13.2.0"]}, {"machine": "aarch64"},
                        {"workloads.md5_batch_isa": "portable"}):
            code, out = run_gate("compare", self.counts("b.json", self.BASE),
                                 self.counts("h.json", head, dict(TOOLCHAIN, **changed)))
            self.assertEqual(code, gate.EXIT_NOT_COMPARABLE, out)
            self.assertEqual(code, 77)
            self.assertIn("NOT COMPARABLE", out)
            self.assertIn("--update --reason", out)
            self.assertNotIn("PASS", out)
            self.assertIn(next(iter(changed)), out)

    def test_other_libraries_and_valgrind_are_gated_on_own_code(self):
        # A Debian update of libc or libcrypto, or another valgrind: the own counts decide.
        ctx = {"valgrind": "valgrind-3.22.0",
               "libraries": {"libc.so.6": "0000000000000000", "libcrypto.so.3": "1111"}}
        others = {"lookup": {"libc.so.6": 5_000_000}}
        b = self.counts("b.json", self.BASE, others={"lookup": {"libc.so.6": 1_000}})
        code, out = run_gate("compare", b, self.counts("h.json", self.BASE, context=ctx,
                                                       others=others))
        self.assertEqual(code, 0, out)
        self.assertIn("PASS", out)
        self.assertIn("libraries differ from the baseline's (libc.so.6, libcrypto.so.3)", out)
        self.assertIn("libs 1,000 -> 5,000,000", out)
        over = dict(self.BASE, lookup=int(self.BASE["lookup"] * 1.03))
        code, out = run_gate("compare", b, self.counts("o.json", over, context=ctx))
        self.assertEqual(code, 1, out)

    def test_old_schema_is_a_usage_error_saying_re_record(self):
        old = self.write("old.json", {"schema": "chsim-bench-gate/1", "environment": {},
                                      "workloads": self.BASE})
        code, out = run_gate("compare", old, old)
        self.assertEqual(code, 2)
        self.assertIn("re-record", out)

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

    def test_without_valgrind_it_fails_saying_to_install_it(self):
        b = self.counts("b.json", self.BASE)
        env = dict(os.environ, PATH=self.dir)  # no valgrind on this PATH
        p = subprocess.run([sys.executable, SCRIPT, "callgrind", "--workloads", sys.executable,
                            "--baseline", b], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertRegex(p.stderr, r"valgrind not found.*install it")


class ObjectCosts(Tmp):
    def test_self_costs_per_object_skip_inclusive_call_costs(self):
        path = os.path.join(self.dir, "callgrind.out")
        with open(path, "w") as f:
            f.write("""# callgrind format
version: 1
positions: line
events: Ir
summary: 1175

ob=(1) /build/bench/chsim_gate_workloads
fl=(1) gate.cc
fn=(1) chsim_gate_measure
10 100
cob=(2) /lib/x86_64-linux-gnu/libc.so.6
cfi=(2) ???
cfn=(2) memcpy
calls=3 0
+2 1000
* 5
ob=(2)
fl=(2)
fn=(2)
0 1000
ob=(1)
fn=(3) chsim::Ring::Locate
-1 50
+1 20
""")
        costs = gate.object_costs(path)
        self.assertEqual(costs, {"/build/bench/chsim_gate_workloads": 175,
                                 "/lib/x86_64-linux-gnu/libc.so.6": 1000})
        with open(path, "a") as f:
            f.write("+1 1\n")
        with self.assertRaisesRegex(RuntimeError, "add up to 1176"):
            gate.object_costs(path)


class CTestSkips(Tmp):
    """CTest reports the gate's exit 77 as skipped, not passed (SKIP_RETURN_CODE)."""

    def test_exit_77_shows_as_skipped(self):
        if not shutil.which("cmake") or not shutil.which("ctest"):
            self.fail("cmake/ctest not found: they run every test of this project")
        base = {"big": 1000}
        b = self.counts("b.json", base)
        h = self.counts("h.json", base, dict(TOOLCHAIN, compiler=["clang version 99"]))
        src = os.path.join(self.dir, "src")
        os.makedirs(src)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write(f"""cmake_minimum_required(VERSION 3.20)
project(gate_skip NONE)
enable_testing()
add_test(NAME gate COMMAND {sys.executable} {SCRIPT} compare {b} {h})
set_tests_properties(gate PROPERTIES SKIP_RETURN_CODE 77)
""")
        build = os.path.join(self.dir, "build")
        subprocess.run(["cmake", "-S", src, "-B", build], check=True, capture_output=True)
        p = subprocess.run(["ctest", "--test-dir", build, "-V"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertRegex(p.stdout, r"gate \.+\s*\*+Skipped")
        self.assertIn("NOT COMPARABLE", p.stdout)
        self.assertNotRegex(p.stdout, r"gate \.+\s+Passed")


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


class EndToEnd(Tmp):
    """The real callgrind path on two small workloads: chsim's own MD5, and XXH3 from libxxhash."""
    FILTER = "^(hash_md5_32B|hash_xxh3_32B)$"

    def setUp(self):
        super().setUp()
        if not (WORKLOADS and ARGS.planted and ARGS.shim):
            self.fail("EndToEnd needs --workloads, --planted and --shim")
        self.base = os.path.join(self.dir, "baseline.json")
        code, out = run_gate("callgrind", "--workloads", WORKLOADS, "--baseline", self.base,
                             "--filter", self.FILTER, "--update", "--reason", "self-test")
        self.assertEqual(code, 0, out)
        with open(self.base) as f:
            self.doc = json.load(f)

    def gate(self, workloads=None, env=None):
        head = os.path.join(self.dir, "head.json")
        saved = dict(os.environ)
        os.environ.update(env or {})
        try:
            code, out = run_gate("callgrind", "--workloads", workloads or WORKLOADS,
                                 "--baseline", self.base, "--filter", self.FILTER, "--out", head)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        if not os.path.exists(head):
            return code, out, None
        with open(head) as f:
            return code, out, json.load(f)

    def test_counts_repeat_exactly_and_the_simd_path_is_pinned(self):
        self.assertEqual(self.doc["pins"], {"CHSIM_SIMD": "avx2"})
        self.assertEqual(self.doc["toolchain"]["workloads.simd"], "avx2")
        self.assertEqual(self.doc["toolchain"]["workloads.md5_batch_isa"], "avx2")
        self.assertEqual(self.doc["history"][-1]["reason"], "self-test")
        # Library instructions are recorded beside the own count: XXH3 runs in libxxhash.
        self.assertGreater(sum(self.doc["other_objects"]["hash_xxh3_32B"].values()), 0)
        code, out, head = self.gate()
        self.assertEqual(code, 0, out)
        self.assertEqual(len(re.findall(r"\+0\.00%\s+ok", out)), 2, out)
        self.assertEqual(head["workloads"], self.doc["workloads"])

    def test_planted_three_percent_in_own_code_fails(self):
        code, out, head = self.gate(ARGS.planted)
        self.assertEqual(code, 1, out)
        for name in ("hash_md5_32B", "hash_xxh3_32B"):
            change = head["workloads"][name] / self.doc["workloads"][name] - 1
            self.assertGreater(change, 0.025, name)
            self.assertLess(change, 0.035, name)
            self.assertRegex(out, name + r" .*REGRESSION")

    def test_other_libc_and_libcrypto_pass_with_the_same_figures(self):
        libdir = os.path.join(self.dir, "lib")
        os.makedirs(libdir)
        ldd = subprocess.run(["ldd", WORKLOADS], capture_output=True, text=True).stdout
        for soname in ("libc.so.6", "libcrypto.so.3"):
            path = re.search(re.escape(soname) + r" => (\S+)", ldd).group(1)
            copy = os.path.join(libdir, soname)
            shutil.copyfile(path, copy)
            with open(copy, "ab") as f:  # another build of the same library: another sha256
                f.write(b"\0chsim gate self-test\0")
        code, out, head = self.gate(env={"LD_LIBRARY_PATH": libdir})
        self.assertEqual(code, 0, out)
        self.assertIn("libraries differ from the baseline's (libc.so.6, libcrypto.so.3)", out)
        for soname in ("libc.so.6", "libcrypto.so.3"):
            self.assertNotEqual(head["context"]["libraries"][soname],
                                self.doc["context"]["libraries"][soname])
        self.assertEqual(head["workloads"], self.doc["workloads"])

    def test_a_slower_library_passes_with_the_same_figures(self):
        code, out, head = self.gate(env={"LD_PRELOAD": os.path.abspath(ARGS.shim)})
        self.assertEqual(code, 0, out)
        self.assertEqual(head["workloads"], self.doc["workloads"])
        lib_base = sum(self.doc["other_objects"]["hash_xxh3_32B"].values())
        lib_head = sum(head["other_objects"]["hash_xxh3_32B"].values())
        self.assertGreater(lib_head, 2 * lib_base)

    def test_changed_compiler_is_skipped_with_the_re_record_command(self):
        self.doc["toolchain"]["compiler"] = ["GCC: (Debian 11.3.0-12) 11.3.0"]
        with open(self.base, "w") as f:
            json.dump(self.doc, f)
        code, out, _ = self.gate()
        self.assertEqual(code, 77, out)
        self.assertIn("compiler: baseline", out)
        self.assertIn(f"callgrind --workloads {WORKLOADS} --baseline {self.base} --update", out)
        self.assertNotIn("PASS", out)

    def test_a_simd_level_the_cpu_lacks_is_refused(self):
        # Valgrind's virtual CPU has AVX2 and no AVX-512 on every x86-64 host.
        for level, message in (("avx512", "cannot run avx512"), ("sse9", "unknown SIMD level")):
            p = subprocess.run(["valgrind", "--tool=none", "-q", WORKLOADS, "--env"],
                               capture_output=True, text=True,
                               env=dict(os.environ, CHSIM_SIMD=level))
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn("CHSIM_SIMD", p.stderr)
            self.assertIn(message, p.stderr)
        self.doc["pins"] = {"CHSIM_SIMD": "avx512"}
        with open(self.base, "w") as f:
            json.dump(self.doc, f)
        code, out, _ = self.gate()
        self.assertEqual(code, 2, out)
        self.assertIn("cannot run avx512", out)

    def test_ctest_registers_the_gate_with_skip_return_code_77(self):
        if not ARGS.ctest_dir:
            self.fail("needs --ctest-dir")
        p = subprocess.run(["ctest", "--test-dir", ARGS.ctest_dir, "--show-only=json-v1",
                            "-R", "^bench_gate_callgrind$"], capture_output=True, text=True,
                           check=True)
        tests = json.loads(p.stdout)["tests"]
        self.assertEqual(len(tests), 1)
        props = {pr["name"]: pr["value"] for pr in tests[0]["properties"]}
        self.assertEqual(str(props.get("SKIP_RETURN_CODE")), "77")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + UNITTEST_ARGS)
