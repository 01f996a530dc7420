# SPDX-License-Identifier: Apache-2.0
"""chsim's result files in pandas, and what the notebooks and the report draw from them.

    import chsim_results as cr
    T = cr.load_all("results/")           # every chsim result file in a folder
    rf = cr.load("results/remap-events.json")
    rf.summary                            # pandas tables: cases, rows, summary, nodes, ...

Modules (each importable on its own, e.g. ``from chsim_results import theory``):

- ``load``: reading any file chsim writes (result files, tune answers, peers runs,
  benchmark JSON) into tables; inputs named by environment variables; the figure folder.
- ``catalog``: the registry's catalog (``chsim list --json``): algorithms in registry
  order with their parameters and capabilities, workloads, metrics, profiles, hashers.
- ``labels``: one setting per algorithm and parameters as run, and its short label.
- ``theory``: the ring-balance theory (Wilson-Hilferty), as chsim's own ``theory.*`` rows.
- ``style``: one colour per algorithm (shades for its settings), type sizes, legends.
- ``tables``: small helpers over the tables.
- ``figures``: the ``Book`` a notebook draws its figures in, and their JSON sidecars.
- ``report``: the report's sections: what was run, the headline answers, the side-by-side
  table, metrics no figure draws, the inputs.

The names below are the ones notebooks use most, re-exported here.
"""
from . import catalog, figures, labels, report, sidebyside, style, tables, theory
from .catalog import CATALOG_COLUMNS, Catalog, algorithm_catalog, removals_text
from .labels import algorithm_of, case_label, label_from_case_id
from .load import (SUPPORTED, TABLE_COLUMNS, ResultFile, UnsupportedResultFile, describe,
                   empty_results, expand_spec, figure_dir, input_row, input_spec, load,
                   load_algorithm_benchmark, load_all, load_results, parse, results_dir,
                   run_key)
from .style import (MIN_FONT_PT, REPORT_WIDTH_IN, color, footer, legend_below, legend_right,
                    linestyle, marker, panel_grid, provenance_line, reset_colors, spans_decades,
                    strategy_looks, use_style)
from .tables import best_per_key, column, metric, natural_key, pick_spread, ring_points, wide
from .theory import (cv_band, max_ratio_quantile, points_for_target, theory_cv,
                     theory_max_over_mean, wh_quantile)


def save(fig, name: str):
    """Saves `fig` as figure_dir()/name.png (see style.save)."""
    return style.save(fig, name, figure_dir())
