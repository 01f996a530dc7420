#!/usr/bin/python3
"""Unit tests of notebooks/chsim_results.py: format versions, kinds, tables, theory."""
import json
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "notebooks"))
import chsim_results as cr  # noqa: E402


def results_doc(version=1):
    case = {"case_id": "ring(hasher=md5,points_per_node=10)/n=3", "case_index": 0,
            "algorithm": "ring", "params": {"hasher": "md5", "points_per_node": 10}, "n": 3,
            "axes": {"nodes.count": 3}}
    return {
        "schema_version": version, "kind": "chsim-results", "scenario": {"name": "t"},
        "provenance": {"tool": "chsim", "tool_version": "x"},
        "cases": [dict(case, seed="1", workload={"type": "uniform"}, status="ok", steps=["initial"])],
        "rows": [dict(case, trial=0, step=0, event="initial", metric="structural.cv", value=0.3,
                      unit="ratio", deterministic=True)],
        "summary": [dict(case, step=0, event="initial", metric="structural.cv", trials=1,
                         mean=0.3, stddev=None, ci95_low=None, ci95_high=None, unit="ratio",
                         deterministic=True)],
        "nodes": [{"case_id": case["case_id"], "case_index": 0, "trial": 0, "step": 0, "node": i,
                   "label": f"n{i}", "weight": 1, "load": 10.0, "expected": 10.0, "ratio": 1.0,
                   "share": 1 / 3, "moved_in": None, "moved_out": None} for i in range(3)],
        "transitions": [],
    }


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


class Versions(unittest.TestCase):
    def test_refuses_unknown_results_version(self):
        with self.assertRaises(cr.UnsupportedResultFile) as e:
            cr.parse(results_doc(2), "r.json")
        msg = str(e.exception)
        for part in ["r.json", "/schema_version", "found 2", "chsim-results", "version(s) 1"]:
            self.assertIn(part, msg)

    def test_refuses_missing_or_text_version(self):
        for bad in [None, "1", 1.5]:
            d = results_doc()
            d["schema_version"] = bad
            with self.assertRaises(cr.UnsupportedResultFile):
                cr.parse(d, "r.json")

    def test_refuses_unknown_kind_and_peers_version(self):
        with self.assertRaisesRegex(cr.UnsupportedResultFile, "/kind: found \"bench\""):
            cr.parse({"kind": "bench", "schema_version": 1}, "b.json")
        with self.assertRaisesRegex(cr.UnsupportedResultFile, "/schema: found \"2\""):
            cr.parse({"schema": "chsim-peers/2", "rows": []}, "p.json")

    def test_bad_json_names_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{\n "kind": \n')
        with self.assertRaisesRegex(cr.UnsupportedResultFile, "line 3"):
            cr.load(f.name)
        os.unlink(f.name)


class Tables(unittest.TestCase):
    def test_results_tables_are_normalized(self):
        rf = cr.parse(results_doc(), "r.json")
        self.assertIn("params.hasher", rf.rows.columns)
        self.assertEqual(rf.rows["params.points_per_node"].iloc[0], 10)
        self.assertEqual(rf.rows["workload.type"].iloc[0], "uniform")
        # Per-node rows gain the case's algorithm and parameters.
        self.assertEqual(list(rf.nodes["algorithm"]), ["ring"] * 3)
        self.assertEqual(len(rf.transitions), 0)

    def test_tune_and_peers(self):
        tune = {"schema_version": 1, "kind": "tune",
                "request": {"nodes": 10, "max_over_mean": 1.1, "confidence": 0.95},
                "answer": {"value": 600, "current": {"median_max_over_mean": 1.12}},
                "estimates": [{"points_per_node": 600, "probability": 0.95}]}
        t = cr.parse(tune, "t.json")
        self.assertEqual(t.answer["current.median_max_over_mean"].iloc[0], 1.12)
        self.assertEqual(t.estimates["request.nodes"].iloc[0], 10)
        peers = {"schema": "chsim-peers/1", "rows": [{"peer": "x", "ns": 1.0, "samples": [1, 2]}],
                 "comparisons": [], "agreement": [], "targets": []}
        p = cr.parse(peers, "p.json")
        self.assertNotIn("samples", p.rows.columns)

    def test_load_all_picks_the_kind_and_skips_others(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "a.json"), results_doc())
            write(os.path.join(d, "t.json"), {"schema_version": 1, "kind": "tune", "request": {},
                                              "answer": {}, "estimates": []})
            write(os.path.join(d, "other.json"), [1, 2])
            t = cr.load_all(d)
            self.assertEqual(len(t["files"]), 1)
            self.assertEqual(list(t["rows"]["source"]), ["a.json"])
            with self.assertRaisesRegex(cr.UnsupportedResultFile, "accepted here"):
                cr.load_all(os.path.join(d, "t.json"))
            # A chsim file of a newer format in a directory is an error, not skipped silently.
            write(os.path.join(d, "new.json"), results_doc(7))
            with self.assertRaisesRegex(cr.UnsupportedResultFile, "found 7"):
                cr.load_all(d)
        with self.assertRaises(FileNotFoundError):
            cr.load_all(tempfile.gettempdir() + "/no-such-chsim-dir/*.json")


class Theory(unittest.TestCase):
    def test_wilson_hilferty(self):
        v = 160
        a = 1 / (9 * v)
        self.assertAlmostEqual(cr.wh_quantile(v, 0.5), (1 - a) ** 3, places=12)
        self.assertAlmostEqual(cr.wh_quantile(v, 0.995), (1 - a + 2.5758293035489 * math.sqrt(a)) ** 3,
                               places=9)

    def test_max_quantile_grows_with_n_and_shrinks_with_v(self):
        self.assertLess(cr.max_ratio_quantile(10, 160, 0.5), cr.max_ratio_quantile(1000, 160, 0.5))
        self.assertLess(cr.max_ratio_quantile(100, 1000, 0.5), cr.max_ratio_quantile(100, 100, 0.5))

    def test_points_for_target_inverts_the_quantile(self):
        v = cr.points_for_target(200, 1.10, 0.95)
        self.assertAlmostEqual(cr.max_ratio_quantile(200, v, 0.95), 1.10, places=6)
        self.assertEqual(cr.points_for_target(10, 1.0 + 1e-9, 0.95), float("inf"))


if __name__ == "__main__":
    unittest.main()
