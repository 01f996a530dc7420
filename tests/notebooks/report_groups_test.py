#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The report's generic table groups metrics by the catalog's groups, not by name prefix.
Usage: report_groups_test.py CHSIM

From `CHSIM list --json`: for every name prefix of the catalog's metrics (structural,
sampled, remap, ...) and every metric group (balance, remap, ...), a metric the report has
never seen, `<prefix>.probe_in_<group>`, is added to a copy of the catalog in that group,
and `<prefix>.probe_uncatalogued` is left out of it. A result file holds every catalogued
metric and every probe; with every catalogued metric drawn by a figure, the generic table
(report.other_metrics) must show each probe under its group ("uncatalogued" for those the
catalog lacks), and nothing else; with no figure, each catalogued metric the report does not
show itself appears under its catalog group. The report's first paragraph names the
catalog's groups, and a figure that declares a prefix instead of metric names is refused.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "notebooks"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

CHSIM = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("CHSIM")
CATALOG = json.loads(subprocess.run([CHSIM, "list", "--json"], check=True,
                                    stdout=subprocess.PIPE, text=True).stdout)
GROUPS = list(CATALOG["metric_groups"])
REAL = {m["name"]: m for m in CATALOG["metrics"]}
PREFIXES = sorted({name.split(".")[0] for name in REAL if "." in name})


def probe(prefix, group=None):
    return f"{prefix}.probe_in_{group}" if group else f"{prefix}.probe_uncatalogued"


PROBES = {probe(p, g): g for p in PREFIXES for g in GROUPS}
UNCATALOGUED = [probe(p) for p in PREFIXES]


def results_doc(metrics):
    """Two cases (a ring and another algorithm of the catalog), a step-0 summary row per
    metric, value 1 + its place in `metrics` / 1000 (so each column's value is known)."""
    algs = [a["name"] for a in CATALOG["algorithms"][:2]]
    cases, summary = [], []
    for i, alg in enumerate(algs):
        c = {"case_id": f"{alg}/n=3", "case_index": i, "algorithm": alg, "params": {}, "n": 3,
             "axes": {"nodes.count": 3}}
        cases.append(dict(c, seed="1", workload={"type": CATALOG["workloads"][0]["name"]},
                          status="ok", steps=["initial"]))
        for k, m in enumerate(metrics):
            summary.append(dict(c, step=0, event="initial", metric=m, trials=1,
                                mean=1 + k / 1000, stddev=None, ci95_low=None, ci95_high=None,
                                unit="ratio", deterministic=True))
    return {"schema_version": 1, "kind": "chsim-results", "scenario": {"name": "groups"},
            "provenance": {"tool": "chsim", "tool_version": "x"}, "cases": cases,
            "rows": [], "summary": summary, "nodes": [], "transitions": []}


class ReportGroups(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cat = dict(CATALOG, metrics=CATALOG["metrics"] + [
            {"name": name, "group": g, "unit": "ratio", "deterministic": True,
             "meaning": "a metric the report has never seen"} for name, g in PROBES.items()])
        path = os.path.join(cls.tmp.name, "catalog.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(cat, f)
        os.environ["CHSIM_CATALOG"] = path  # catalog.catalog() reads it, as make-report's
        import chsim_results as cr
        from chsim_results import report
        cls.rp = report
        cls.metrics = sorted(REAL) + sorted(PROBES) + UNCATALOGUED
        with open(os.path.join(cls.tmp.name, "r.json"), "w", encoding="utf-8") as f:
            json.dump(results_doc(cls.metrics), f)
        cls.R = cr.load_all(os.path.join(cls.tmp.name, "r.json"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def columns(self, figs):
        """{group: [metric, ...]} of the generic table."""
        return {g: [c.rsplit(" (", 1)[0] for c in t.columns]
                for g, t in self.rp.other_metrics(self.R, figs)}

    def test_setup_has_prefixes_and_groups(self):
        self.assertGreaterEqual(len(PREFIXES), 2, PREFIXES)
        self.assertGreaterEqual(len(GROUPS), 2, GROUPS)

    def test_every_unseen_metric_appears_under_its_group(self):
        got = self.columns([{"metrics": sorted(REAL)}])
        self.assertEqual(list(got), GROUPS + ["uncatalogued"])
        for g in GROUPS:
            self.assertEqual(got[g], sorted(m for m, pg in PROBES.items() if pg == g), g)
        self.assertEqual(got["uncatalogued"], sorted(UNCATALOGUED))

    def test_a_sibling_of_a_drawn_metric_still_appears(self):
        """Prefix by prefix: the probes appear though every metric of their prefix is drawn."""
        for p in PREFIXES:
            drawn = [m for m in REAL if m.startswith(p + ".")]
            got = self.columns([{"metrics": drawn}])
            for m, g in PROBES.items():
                if m.startswith(p + "."):
                    self.assertIn(m, got.get(g, []), (p, g))
            self.assertFalse(set(drawn) & {m for ms in got.values() for m in ms}, p)

    def test_undrawn_catalogued_metrics_go_under_their_catalog_group(self):
        got = self.columns([])
        shown = set(self.rp.SHOWN_BY_REPORT) | set(self.rp.resize_metrics(list(REAL)))
        where = {m: g for g, ms in got.items() for m in ms}
        for name, m in REAL.items():
            if name in shown:
                self.assertNotIn(name, where)
            elif m.get("group"):
                self.assertEqual(where.get(name), m["group"], name)

    def test_first_paragraph_names_the_catalog_groups(self):
        text = self.rp.what_was_run(self.R)
        clause = text.split("metric groups: ", 1)[1].rstrip(".")
        self.assertEqual(clause.split(", "), GROUPS + ["uncatalogued"])

    def test_a_figure_declaring_a_prefix_is_refused(self):
        from chsim_results import figures as cf
        os.environ["CHSIM_FIGURES_DIR"] = self.tmp.name
        book = cf.Book("groups_test")
        with self.assertRaisesRegex(ValueError, "exact metric names"):
            with book.figure("t", "t", needs="x", metrics=[PREFIXES[0] + "."]):
                pass


if __name__ == "__main__":
    unittest.main()
