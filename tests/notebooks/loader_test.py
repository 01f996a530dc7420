#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of the notebooks' package notebooks/chsim_results/: the loader (format versions,
kinds, tables, runs and shards), the catalog, settings and labels, colours, the theory, the
figure book (outcomes and the values a figure draws) and the report (the side-by-side table,
metrics no figure draws)."""
import json
import math
import os
import subprocess
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


def sharded(doc, index, count, cases):
    """`doc` as shard index/count holding only `cases` (case indexes)."""
    d = json.loads(json.dumps(doc))
    d["shard"] = {"index": index, "count": count}
    for t in ("cases", "rows", "summary", "nodes", "transitions"):
        d[t] = [r for r in d[t] if r["case_index"] in cases]
    return d


def two_case_doc():
    d = results_doc()
    c2 = json.loads(json.dumps(d["cases"][0]))
    c2.update(case_id="jump/n=3", case_index=1, algorithm="jump", params={})
    d["cases"].append(c2)
    for t in ("rows", "summary"):
        r = json.loads(json.dumps(d[t][0]))
        r.update(case_id="jump/n=3", case_index=1, algorithm="jump", params={})
        d[t].append(r)
    return d


class RunsAndShards(unittest.TestCase):
    def test_shards_beside_their_merge_give_each_case_once(self):
        whole = two_case_doc()
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "p0.json"), sharded(whole, 0, 2, {0}))
            write(os.path.join(d, "p1.json"), sharded(whole, 1, 2, {1}))
            write(os.path.join(d, "merged.json"), whole)
            t = cr.load_all(d)
            self.assertEqual(sorted(t["rows"]["case_id"]), sorted(r["case_id"] for r in whole["rows"]))
            used = dict(zip(t["inputs"]["file"].map(os.path.basename), t["inputs"]["used"]))
            self.assertEqual(used["merged.json"], "all")
            self.assertTrue(used["p0.json"].startswith("none"))
            # The shards alone join into the whole run.
            t = cr.load_all([os.path.join(d, "p0.json"), os.path.join(d, "p1.json")])
            self.assertEqual(len(t["summary"]), len(whole["summary"]))
            self.assertEqual(set(t["rows"]["run"]), {"t"})

    def test_two_runs_of_one_name_are_told_apart(self):
        a, b = results_doc(), results_doc()
        b["provenance"]["seed"] = "9"
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "a.json"), a)
            write(os.path.join(d, "b.json"), b)
            t = cr.load_all(d)
            self.assertEqual(sorted(set(t["rows"]["run"])), ["t (a)", "t (b)"])
            self.assertEqual(len(t["rows"]), 2)

    def test_empty_tables_keep_their_columns(self):
        d = results_doc()
        d["nodes"] = []
        rf = cr.parse(d, "r.json")
        self.assertIn("step", rf.nodes.columns)
        self.assertEqual(len(rf.nodes), 0)
        e = cr.empty_results()
        self.assertIn("metric", e["summary"].columns)


class Catalog(unittest.TestCase):
    def test_list_and_object_forms(self):
        t = cr.algorithm_catalog([  # chsim's shape (results/README.md)
            {"name": "jump", "year": 2014, "paper": "Lamping & Veach",
             "capabilities": {"weights": False, "removal": "last_added", "incremental": True},
             "parameters": []},
            {"name": "ring", "year": 1997, "capabilities": {"arbitrary_removal": True,
                                                             "incremental": False, "weights": True},
             "parameters": [{"name": "points_per_node", "default": 160}]}])
        self.assertEqual(list(t["removals"]), ["last added only", "any node (rebuilds)"])
        self.assertEqual(t.loc[1, "parameters"], "points_per_node=160")
        self.assertIn("weights", t.loc[1, "capabilities"])
        t = cr.algorithm_catalog({"anchor": {"year": 2020, "capabilities": ["arbitrary_removal"]},
                                  "modulo": {"year": None, "capabilities": {"removal": "any"}},
                                  "x": {"capabilities": {"removals": "middle only"}}})
        self.assertEqual(list(t["name"]), ["anchor", "modulo", "x"])
        self.assertEqual(t.loc[0, "removals"], "arbitrary removal")
        self.assertEqual(t.loc[1, "removals"], "any node")
        self.assertEqual(t.loc[2, "removals"], "middle only")
        self.assertTrue(t["year"].isna()[1])  # year 0: none
        self.assertTrue(cr.algorithm_catalog(None).empty)

    def test_labels_come_from_the_case_id(self):
        self.assertEqual(cr.label_from_case_id("ring(hasher=md5,points_per_node=40)/n=20"),
                         "ring(md5, v=40)")
        self.assertEqual(cr.label_from_case_id("maglev(table_size=auto)/n=7/workload.keys=5"),
                         "maglev(M=auto)")
        self.assertEqual(cr.label_from_case_id("ring(hasher=md5,points_per_node=40)/n=20",
                                               drop=("points_per_node",)), "ring(md5)")
        self.assertEqual(cr.label_from_case_id("jump/n=1"), "jump")
        # A parameter the scenario left to "auto" (resolved per n in the case id) reads auto.
        d = results_doc()
        d["scenario"]["algorithms"] = [{"algorithm": "maglev", "table_size": "auto"}]
        for t in ("cases", "rows", "summary", "nodes"):
            for r in d[t]:
                r["case_id"] = "maglev(table_size=65537)/n=3"
                r["algorithm"] = "maglev"
        rf = cr.parse(d, "r.json")
        self.assertEqual(set(cr.case_label(rf.summary)), {"maglev(M=auto)"})
        self.assertEqual(set(cr.case_label(rf.nodes)), {"maglev(M=auto)"})

    def test_one_setting_one_label(self):
        """A case that names its defaults and one that does not are one setting, with the
        label that names the most; settings that would read alike say what differs."""
        with tempfile.TemporaryDirectory() as d:
            a, b = two_case_doc(), two_case_doc()
            a["scenario"]["name"], b["scenario"]["name"] = "a", "b"
            for doc, cid, params in ((a, "ketama/n=3", {"profile": "spymemcached"}),
                                     (b, "ketama(profile=spymemcached)/n=3",
                                      {"profile": "spymemcached"})):
                for t in ("cases", "rows", "summary"):
                    for r in doc[t]:
                        if r["case_index"] == 1:
                            r.update(case_id=cid, algorithm="ketama", params=params)
            write(os.path.join(d, "a.json"), a)
            write(os.path.join(d, "b.json"), b)
            t = cr.load_all(d)
        labels = set(cr.case_label(t["summary"]))
        self.assertIn("ketama(spymemcached)", labels)
        self.assertNotIn("ketama", labels)
        self.assertEqual(t["cases"]["setting"].nunique(), 2)


def _cielab(color):
    """sRGB hex -> CIELAB (D65)."""
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(int(color[i:i + 2], 16) / 255) for i in (1, 3, 5))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


class Colours(unittest.TestCase):
    def test_fifteen_algorithms_are_told_apart(self):
        """The first fifteen algorithm colours, and the darkest of three shades of the first,
        lie at least 25 apart in CIELAB (about the distance of tab10's nearest pair)."""
        from chsim_results import style
        colors = style.BASE_COLORS[:15] + [style.shade(style.BASE_COLORS[0], 0, 3)]
        worst = min((math.dist(_cielab(a), _cielab(b)), a, b) for i, a in enumerate(colors)
                    for b in colors[i + 1:] if not {a, b} <= {colors[0], colors[-1]})
        self.assertGreaterEqual(worst[0], 25, f"{worst[1]} and {worst[2]} are too alike")


class Figures(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.environ["CHSIM_FIGURES_DIR"] = self.dir
        os.environ["MPLBACKEND"] = "Agg"

    def test_outcomes_and_drawn_values(self):
        from chsim_results import figures as cf
        import matplotlib.pyplot as plt
        import numpy as np
        book = cf.Book("t")
        with book.figure("t_drawn", "drawn", needs="x") as f:
            fig, (a1, a2) = plt.subplots(1, 2)
            a1.plot([1, 2], [3, 4], label="line", color=cr.color("ring(md5)"))
            a1.errorbar([1, 2], [5, 6], yerr=[[1, 1], [2, 2]], fmt="o", label="eb")
            a1.errorbar([1, 2], [5, 6], yerr=[[1, float("nan")], [2, float("nan")]], fmt="o",
                        label="one whisker")  # a single trial has no interval
            a1.fill_between([1, 2, 3], [0, 0, 0], [1, 2, 3], label="band")
            a2.barh([0, 1], [7, 8], label="bars")
            a2.imshow(np.array([[1.0, np.nan], [3.0, 4.0]]))
            a2.set_title("right")
            f.save(fig, data={"k": [1, 2]})
        with book.figure("t_skip", "skip", needs="ring cases") as f:
            f.require(False, "these inputs have none")
        with book.figure("t_err", "err", needs="x") as f:
            raise KeyError("boom")
        status = {e["name"]: (e["status"], e["reason"]) for e in book.entries}
        self.assertEqual(status["t_drawn"][0], "drawn")
        self.assertEqual(status["t_skip"], ("skipped", "needs ring cases; these inputs have none"))
        self.assertEqual(status["t_err"][0], "error")
        with self.assertRaisesRegex(RuntimeError, "t_err"):
            book.finish()
        self.assertEqual(len(cf.read_index(self.dir)), 3)
        side = cf.load_sidecar(self.dir, "t_drawn")
        left, right = side["axes"]
        self.assertEqual(cf.series(left, "line")["y"], [3.0, 4.0])
        eb = cf.series(left, "eb")
        self.assertEqual((eb["low"], eb["high"]), ([4.0, 5.0], [7.0, 8.0]))
        self.assertEqual(cf.series(left, "one whisker")["high"], [7.0, None])
        band = cf.series(left, "band")
        self.assertEqual((band["x"], band["low"], band["high"]), ([1.0, 2.0, 3.0], [0.0] * 3, [1.0, 2.0, 3.0]))
        self.assertEqual(cf.series(right, "bars")["width"], [7.0, 8.0])
        self.assertEqual(right["images"][0]["array"], [[1.0, None], [3.0, 4.0]])
        self.assertEqual(side["data"], {"k": [1, 2]})
        self.assertEqual(side["series"], [{"label": "ring(md5)", "algorithm": "ring",
                                           "color": cr.color("ring(md5)")}])
        self.assertGreaterEqual(side["min_font_pt"], cr.MIN_FONT_PT - 1)
        self.assertEqual(side["overlapping_texts"], [])

    def test_footer_goes_under_a_legend_that_reaches_below_it(self):
        """A short figure (one algorithm, one panel) with its legend under the axes: a footer
        at a fixed figure fraction lands on the legend, cr.footer moves below it; and the
        sidecar's overlap check sees the difference."""
        from chsim_results import style
        import matplotlib.pyplot as plt
        text = "chsim 0.1.0+0123456789ab, AMD EPYC 7B13 64-Core Processor, 1 threads, 2026-12-05"
        found = []
        for place in (lambda fig: fig.text(0.01, -0.06, text, fontsize=8, va="top"),
                      lambda fig: cr.footer(fig, text, -0.06)):
            fig, ax = plt.subplots(figsize=(6, 2.2))
            ax.barh([0], [1])
            fig.legend([plt.Rectangle((0, 0), 1, 1)], ["moved at n = 3"], loc="upper center",
                       bbox_to_anchor=(0.5, 0.0), frameon=False, fontsize=8)
            fig.suptitle("two\nlines", y=1.02)
            fig.tight_layout()
            place(fig)
            found.append(style.overlapping_texts(fig))
            plt.close(fig)
        self.assertEqual(found[0], [text[:30] + " / legend"])
        self.assertEqual(found[1], [])


class StrategyLooks(unittest.TestCase):
    def test_every_strategy_and_level_has_looks_of_its_own(self):
        """The default suite's 14 replica strategies (9 strategies, some over racks) once
        overflowed the replicas notebook's 10 markers (KeyError, two figures lost)."""
        names = ["choosek", "copyset", "crush", "crush over racks", "mincopysets", "nts",
                 "nts over racks", "random", "salted", "salted over racks", "topk",
                 "topk over racks", "walk", "walk over racks"]
        markers, lines = cr.strategy_looks(names)
        self.assertEqual(sorted(markers), names)
        looks = {(markers[s], lines[s]) for s in names}
        self.assertEqual(len(looks), len(names))
        self.assertEqual(markers["walk"], markers["walk over racks"])
        self.assertEqual(lines["walk"], "-")
        self.assertNotEqual(lines["walk"], lines["walk over racks"])
        many = [f"s{i}" + (" over zones" if i % 3 else "") for i in range(40)]
        markers, lines = cr.strategy_looks(many)  # more than there are markers: they repeat
        self.assertEqual((sorted(markers), sorted(lines)), (sorted(many), sorted(many)))


class Headline(unittest.TestCase):
    def test_columns_without_data_say_what_would_supply_them(self):
        from chsim_results import sidebyside as sbs
        doc = two_case_doc()
        doc["summary"] += [dict(r, metric="structural.max_over_mean", mean=1.2)
                           for r in doc["summary"]]
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "a.json"), doc)
            t = cr.load_all(d)
        table = sbs.build(t)
        self.assertEqual(list(table.rows["algorithm"]), ["ring(md5, v=10)", "jump"])
        self.assertEqual(list(table.rows["max/mean"]), ["1.200", "1.200"])
        self.assertNotIn("ns per resize", table.rows.columns)  # no setting has it
        self.assertTrue(any("ns per resize: needs resize-time metrics" in n
                            for n in table.notes))
        self.assertEqual(table.n_ref, 3)

    def test_sweeps_are_one_line_and_empty_rows_left_out(self):
        from chsim_results import sidebyside as sbs
        doc = two_case_doc()
        rows = []
        for i, v in enumerate((10, 20, 40, 80)):
            cid = f"ring(hasher=md5,points_per_node={v})/n=3"
            c = {"case_id": cid, "case_index": 10 + i, "algorithm": "ring",
                 "params": {"hasher": "md5", "points_per_node": v}, "n": 3,
                 "axes": {"nodes.count": 3}}
            doc["cases"].append(dict(c, seed="1", workload={"type": "uniform"}, status="ok",
                                     steps=["initial"]))
            rows.append(dict(c, step=0, event="initial", metric="structural.max_over_mean",
                             trials=1, mean=1 + 1 / v, stddev=None, ci95_low=None,
                             ci95_high=None, unit="ratio", deterministic=True))
        doc["summary"] += rows
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "a.json"), doc)
            t = cr.load_all(d)
        table = sbs.build(t)
        self.assertEqual(len(table.sweep_lines), 1)
        self.assertIn("4 settings", table.sweep_lines[0])
        self.assertNotIn("ring(md5, v=40)", list(table.rows["algorithm"]))
        metric_cols = [c.name for c in sbs.COLUMNS if c.metric and c.name in table.rows]
        for _, r in table.rows.iterrows():
            self.assertFalse(all(r[c] == "n/a" for c in metric_cols), r.to_dict())

    def test_a_metric_the_catalog_lacks_gets_a_generic_table(self):
        """A metric no figure names and the catalog does not list: under "uncatalogued";
        the one a figure names (exactly) is left out (tests/notebooks/report_groups_test.py
        checks the catalog's groups)."""
        from chsim_results import report as rp
        doc = two_case_doc()
        for r in list(doc["summary"]):
            doc["summary"].append(dict(r, metric="balance.p99_over_mean", mean=1.5, unit="ratio"))
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "a.json"), doc)
            t = cr.load_all(d)
        groups = dict(rp.other_metrics(t, [{"metrics": ["structural.cv"]}]))
        self.assertEqual(list(groups), ["uncatalogued"])
        self.assertEqual(groups["uncatalogued"].shape, (2, 1))
        self.assertEqual(set(groups["uncatalogued"].iloc[:, 0]), {"1.5"})

    def test_long_lists_in_a_sentence_keep_both_ends(self):
        from chsim_results import report as rp
        runs = [f"run-{i}" for i in range(35)]
        text = rp._some(runs, 8)
        self.assertTrue(text.startswith("run-0, ") and text.endswith("run-33, run-34"), text)
        self.assertIn("... 27 more ...", text)
        self.assertEqual(len(text.split(", ")), 9)
        self.assertEqual(rp._some(runs[:8], 8), ", ".join(runs[:8]))

    def test_resize_metric_names(self):
        from chsim_results import sidebyside as rp
        self.assertEqual(rp.resize_metrics(["throughput.ns_per_add", "throughput.ns_per_remove",
                                            "throughput.resize_ms", "throughput.ns_per_lookup",
                                            "throughput.ns_per_lookup_removed_10pct",
                                            "remap.add"]),
                         ["throughput.ns_per_add", "throughput.ns_per_remove", "throughput.resize_ms"])

    def test_algorithm_benchmark_rows(self):
        """Lookup rows of chsim_algorithm_benchmark's JSON: names parsed, ns from
        items_per_second, repetitions -> median, failed and aggregate rows and other files
        left out."""
        bench = {"context": {}, "benchmarks": [
            {"name": "algo/lookup/anchor/removed:10/mode:tput/nodes:1000", "run_type": "iteration",
             "items_per_second": 1e8, "bytes_per_node": 24.0},
            {"name": "algo/lookup/anchor/removed:10/mode:tput/nodes:1000", "run_type": "iteration",
             "items_per_second": 5e7, "bytes_per_node": 24.0},
            {"name": "algo/lookup/anchor/removed:10/mode:tput/nodes:1000", "run_type": "iteration",
             "items_per_second": 4e7, "bytes_per_node": 24.0},
            {"name": "algo/lookup/anchor/removed:10/mode:tput/nodes:1000_mean",
             "run_type": "aggregate", "items_per_second": 1.0},
            {"name": "algo/lookup/maglev/removed:0/mode:lat/nodes:1000000", "error_occurred": True,
             "error_message": "table too small"},
            {"name": "algo/lookup/jump/removed:0/mode:lat/nodes:100", "items_per_second": 2.5e7},
            {"name": "algo/resize/jump/op:add/nodes:100", "items_per_second": 1e6}]}
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "algorithm_benchmark.json"), "w") as f:
                json.dump(bench, f)
            with open(os.path.join(d, "other.json"), "w") as f:
                json.dump({"kind": "chsim-results"}, f)
            B = cr.load_algorithm_benchmark(d)
        self.assertEqual(sorted(B["algorithm"]), ["anchor", "jump"])
        a = B[B["algorithm"] == "anchor"].iloc[0]
        self.assertEqual((a["removed"], a["mode"], a["nodes"]), (0.1, "tput", 1000))
        self.assertAlmostEqual(a["ns_per_lookup"], 20.0)  # median of 10, 20, 25 ns
        self.assertEqual(a["bytes_per_node"], 24.0)
        j = B[B["algorithm"] == "jump"].iloc[0]
        self.assertAlmostEqual(j["ns_per_lookup"], 40.0)
        self.assertTrue(math.isnan(j["bytes_per_node"]))
        self.assertEqual(len(cr.load_algorithm_benchmark("/no/such/file.json")), 0)



class ReplicasHeadline(unittest.TestCase):
    """The replicas answer names strategies with how many of their settings qualify, not
    every (algorithm setting, strategy) series: a run of 14 strategies stays a sentence."""

    def test_strategies_with_the_share_of_their_settings(self):
        import pandas as pd
        from chsim_results import report
        strategy_of = pd.Series({"ring v=1 · walk": "walk", "ring v=4 · walk": "walk",
                                 "ring v=1 · salted": "salted", "jump · salted": "salted",
                                 "rendezvous · topk": "topk"})
        self.assertEqual(
            report._by_strategy(["ring v=4 · walk", "ring v=1 · walk", "jump · salted",
                                 "rendezvous · topk"], strategy_of),
            "salted (1 of 2 settings), topk (its one setting), walk (all 2 settings)")
        self.assertEqual(report._by_strategy([], strategy_of), "")
        excess = pd.Series({"ring v=1 · salted": 0.0003, "jump · salted": 0.0005,
                            "ring v=4 · walk": 0.0001})
        self.assertEqual(report._excess_by_strategy(excess, strategy_of),
                         "walk +0.01 points, salted +0.03 to +0.05 points")


class OneSourceOfTables(unittest.TestCase):
    def test_the_checkout_builds_tables_with_the_modules_file_without_the_module(self):
        """From the checkout with no chsim module on the path, chsim_results builds a result
        file's tables with the Python package's own sim/python/chsim/tables.py (the file
        chsim.Results uses) and imports no chsim."""
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "a.json"), two_case_doc())
            code = ("import sys; sys.path.insert(0, sys.argv[1]); import chsim_results as cr\n"
                    "rf = cr.load(sys.argv[2])\n"
                    "print(len(rf.cases), 'chsim' in sys.modules, cr._tables.tables.__file__)")
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            p = subprocess.run([sys.executable, "-c", code, os.path.join(root, "notebooks"),
                                os.path.join(d, "a.json")], capture_output=True, text=True,
                               env=env, cwd=d, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        cases, imported, where = p.stdout.split()
        self.assertEqual((cases, imported), ("2", "False"))
        self.assertEqual(os.path.realpath(where),
                         os.path.realpath(os.path.join(root, "sim", "python", "chsim", "tables.py")))


if __name__ == "__main__":
    unittest.main()
