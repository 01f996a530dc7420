# SPDX-License-Identifier: Apache-2.0
"""How chsim figures look: one colour per algorithm, sizes that read at the report's width,
legends and footers.

Colours. Every algorithm owns one hue, chosen by its place in the registry's catalog
(``catalog.catalog()``; algorithms it does not list follow, by name), so an algorithm has
the same colour in every figure, table and report. The settings of one algorithm (Ketama
profiles, ring hashers, points per node) are shades of its hue, darkest to lightest in the
catalog's order of their parameter values, among the settings ``register`` was given (the
loader registers every setting of the inputs, so every notebook of a report agrees).
``color(label)`` records what it hands out while a figure is drawn: the figure's JSON
sidecar lists each series' label, algorithm and colour.

Sizes. The report shows a figure at most ``REPORT_WIDTH_IN`` inches wide at its own type
size (wider ones are scaled down); ``use_style()`` sets no text under ``MIN_FONT_PT``, and
``panel_grid`` keeps its panels within that width.
"""
from __future__ import annotations

import colorsys
import math
import os
import re
from pathlib import Path

from . import catalog as _catalog
from .labels import algorithm_of, label_params

REPORT_WIDTH_IN = 12.5  # shown at 1200 CSS px (96 px per inch): text keeps its size
MIN_FONT_PT = 8
MAX_HEIGHT_IN = 18.0    # about two screens at that scale

# Well separated hues, in catalog order: the first fifteen, and the darkest shade of the first,
# at least 25 apart in CIELAB (a unit test checks); past them, golden-ratio steps around the circle.
BASE_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
               "#17becf", "#bcbd22", "#3b8f78", "#7f7f7f", "#637939", "#b35806", "#7b4173",
               "#e7ba52", "#5254a3", "#ad494a", "#393b79", "#843c39", "#6b6ecf"]

# Settings a notebook draws from its own computation rather than from the inputs (python_api's
# two clients). load_results registers them with the inputs' settings, so that they and the
# other settings of their algorithm have the same shades in every notebook of a report (the
# notebooks share one kernel: a setting registered later would reshade its family).
OWN_SETTINGS = ("ketama(spymemcached)", "ketama(libmemcached)")

_VARIANTS: dict = {}   # algorithm -> registered labels
_SHADES: dict = {}     # label -> colour, recomputed when a family changes
_EXTRA: list = []      # algorithms the catalog does not list, in the order first seen
_RECORD: list = []     # stack of {label: colour} dicts of the figures being drawn


def algorithm_index(name: str) -> int:
    """The algorithm's place: its position in the catalog, else after the catalog."""
    names = _catalog.catalog().names()
    if name in names:
        return names.index(name)
    if name not in _EXTRA:
        _EXTRA.append(name)
    return len(names) + _EXTRA.index(name)


def base_color(algorithm: str) -> str:
    i = algorithm_index(algorithm)
    if i < len(BASE_COLORS):
        return BASE_COLORS[i]
    h = (i * 0.618033988749895) % 1.0
    r, g, b = colorsys.hls_to_rgb(h, 0.42 if i % 2 else 0.55, 0.7)
    return _hex(r, g, b)


def _hex(r, g, b) -> str:
    return f"#{int(round(r * 255)):02x}{int(round(g * 255)):02x}{int(round(b * 255)):02x}"


def order_key(algorithm: str, label: str):
    """Sort key of a setting among its algorithm's: each parameter value's place in the
    catalog's choices for it, numbers by value."""
    cat = _catalog.catalog().entry("algorithms", algorithm) or {}
    choices = [p.get("choices") or [] for p in cat.get("parameters", [])]
    key = []
    for part in label_params(label):
        value = part.split("=", 1)[-1]
        pos = next((c.index(value) for c in choices if value in c), None)
        try:
            num = float(value)
        except ValueError:
            num = None
        key.append((0, pos, "") if pos is not None else (1, num, "") if num is not None
                   else (2, 0, value))
    return (len(key) > 0, key)


def register(labels) -> None:
    """Declares the settings the figures will show, so that shades are spread over them."""
    changed = set()
    for lab in labels:
        alg = algorithm_of(lab)
        fam = _VARIANTS.setdefault(alg, [])
        if lab not in fam:
            fam.append(lab)
            changed.add(alg)
    for alg in changed:
        fam = sorted(_VARIANTS[alg], key=lambda l: order_key(alg, l))
        _VARIANTS[alg] = fam
        for i, lab in enumerate(fam):
            _SHADES[lab] = shade(base_color(alg), i, len(fam))


def shade(color: str, i: int, k: int) -> str:
    """The i-th of k shades of `color`: the colour itself for k = 1, else lightness spread
    from dark to light around it."""
    if k <= 1:
        return color
    r, g, b = (int(color[j:j + 2], 16) / 255 for j in (1, 3, 5))
    h, l, s = colorsys.rgb_to_hls(r, g, b)
    lo, hi = max(0.18, l - 0.22), min(0.78, l + 0.26)
    return _hex(*colorsys.hls_to_rgb(h, lo + (hi - lo) * i / (k - 1), max(s, 0.45)))


_SETTING = re.compile(r"^[^\s(]+(\([^)]*\))?")


def color(label: str) -> str:
    """The colour of a setting or algorithm (see the module docstring); text after the
    setting's label (" n=100") is ignored. A label nobody registered gets its algorithm's
    own colour, and the shades handed out so far stay as they are."""
    label = str(label)
    m = _SETTING.match(label)
    c = _SHADES.get(label) or (_SHADES.get(m.group(0)) if m else None) \
        or base_color(algorithm_of(label))
    if _RECORD:
        _RECORD[-1][label] = c
    return c


MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p"]
LINESTYLES = ["-", "--", "-.", ":"]


def marker(label: str) -> str:
    """A marker telling a setting from the other settings of its algorithm (whose colours
    are shades of one hue): by its place among them."""
    fam = _VARIANTS.get(algorithm_of(label), [])
    return MARKERS[fam.index(label) % len(MARKERS)] if label in fam else MARKERS[0]


def linestyle(label: str) -> str:
    """A line style telling a setting from the other settings of its algorithm."""
    fam = _VARIANTS.get(algorithm_of(label), [])
    return LINESTYLES[fam.index(label) % len(LINESTYLES)] if label in fam else "-"


def strategy_looks(strategies) -> tuple[dict, dict]:
    """Markers and line styles for replica strategies named as the replicas notebook names
    them ("walk", or "walk over racks" when it spreads over a domain level): the marker by
    the strategy, the line style by the domain level (solid for none), each by its place in
    sorted order, so that every (strategy, level) pair has its own pair of looks while there
    are at most len(MARKERS) strategies and len(LINESTYLES) levels, and any number still
    gets looks (they repeat)."""
    names = sorted(set(strategies))
    split = {s: (s.split(" over ", 1) + [""])[:2] for s in names}
    bases = sorted({b for b, _ in split.values()})
    levels = sorted({lv for _, lv in split.values()})  # "" (no domain) first
    markers = {s: MARKERS[bases.index(b) % len(MARKERS)] for s, (b, _) in split.items()}
    lines = {s: LINESTYLES[levels.index(lv) % len(LINESTYLES)] for s, (_, lv) in split.items()}
    return markers, lines


def reset_colors():
    """Forgets the registered settings (a new report starts afresh)."""
    _VARIANTS.clear()
    _SHADES.clear()
    _EXTRA.clear()


def recording():
    """Starts recording the colours handed out; returns the {label: colour} dict."""
    _RECORD.append({})
    return _RECORD[-1]


def stop_recording(rec) -> None:
    """Stops recording into `rec`."""
    for i in range(len(_RECORD) - 1, -1, -1):
        if _RECORD[i] is rec:
            del _RECORD[i]


# --- matplotlib -------------------------------------------------------------------------

def _plain_log_ticks():
    """Log and symlog axes label their ticks as plain text ("100", "1e+04") instead of
    matplotlib's default mathtext ("10^2"), whose parsing was most of the time spent
    drawing a figure."""
    from matplotlib import scale, ticker
    for cls in (scale.LogScale, scale.SymmetricalLogScale):
        if getattr(cls, "_chsim_plain", False):
            continue
        orig = cls.set_default_locators_and_formatters

        def plain(self, axis, _orig=orig):
            _orig(self, axis)
            axis.set_major_formatter(ticker.LogFormatter(self.base))
            axis.set_minor_formatter(ticker.LogFormatter(
                self.base, labelOnlyBase=getattr(self, "subs", None) is not None))
        cls.set_default_locators_and_formatters = plain
        cls._chsim_plain = True


def use_style():
    """Matplotlib defaults for every chsim figure."""
    _plain_log_ticks()
    import matplotlib as mpl
    mpl.rcParams.update({
        "figure.figsize": (8, 5), "figure.dpi": 100, "axes.grid": True, "grid.alpha": 0.3,
        "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": MIN_FONT_PT,
        "xtick.labelsize": 9, "ytick.labelsize": 9, "axes.spines.top": False,
        "axes.spines.right": False, "savefig.facecolor": "white",
        "legend.title_fontsize": MIN_FONT_PT + 1, "figure.titlesize": 12,
    })


def save(fig, name: str, directory) -> Path:
    """Saves `fig` as directory/name.png (150 dpi, or CHSIM_FIGURE_DPI; no timestamp
    metadata)."""
    p = Path(directory) / f"{name}.png"
    try:
        dpi = int(os.environ.get("CHSIM_FIGURE_DPI", "150"))
    except ValueError:
        dpi = 150
    fig.savefig(p, dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    return p


def provenance_line(files) -> str:
    """'chsim 0.1.0+sha, CPU, date' for figure footers and the report."""
    seen = []
    for rf in files:
        p = rf.provenance
        if not p:
            continue
        s = (f"{p.get('tool', 'chsim')} {p.get('tool_version', '?')}, {p.get('cpu', '?')}, "
             f"{p.get('threads', '?')} threads, {str(p.get('started_utc', ''))[:10]}")
        if s not in seen:
            seen.append(s)
    return "; ".join(seen[:2])


def footer(fig, text: str, y: float = -0.01):
    """Small grey source line under a figure: at `y` (figure fraction), or lower where the
    figure's own texts, legends and tick labels reach below `y`, so that it never covers them
    whatever the figure's height. Call it last, after the layout and every legend."""
    if not text:
        return
    lowest = fig.get_tightbbox().y0 / fig.get_size_inches()[1]  # inches -> figure fraction
    gap = 2.0 / 72 / fig.get_size_inches()[1]
    fig.text(0.01, min(y, lowest - gap), text, fontsize=MIN_FONT_PT, color="grey", ha="left",
             va="top")


def overlapping_texts(fig) -> list[str]:
    """Pairs of the figure's own texts and legends (suptitle, footers, figure legends) whose
    boxes overlap, as "a / b"; each text's first 30 characters, a legend as "legend"."""
    renderer = fig.canvas.get_renderer()
    items = [(t.get_text()[:30], t.get_window_extent(renderer)) for t in fig.texts
             if t.get_visible() and t.get_text().strip()]  # the suptitle is one of fig.texts
    items += [("legend", g.get_window_extent(renderer)) for g in fig.legends]
    out = []
    for i, (na, a) in enumerate(items):
        for nb, b in items[i + 1:]:
            if a.overlaps(b) and min(a.y1, b.y1) - max(a.y0, b.y0) > 1.0:  # over a pixel
                out.append(f"{na} / {nb}")
    return out


def legend_below(fig, axes, ncol: int | None = None, y: float = -0.02):
    """One legend for all panels, below them (entries of every panel, each label once), in
    columns that fit the figure's width and the longest label unless `ncol` is given.
    Returns where a footer fits under it."""
    handles, labels = [], []
    for ax in axes:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels and not l.startswith("_"):
                handles.append(h)
                labels.append(l)
    if not labels:
        return y
    size = MIN_FONT_PT
    if ncol is None:
        width_in = fig.get_size_inches()[0]
        longest = max(len(l) for l in labels)
        ncol = max(1, min(len(labels), int(width_in * 72 / (size * 0.6 * longest + 30))))
    rows = -(-len(labels) // ncol)
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, y), ncol=ncol,
               frameon=False, fontsize=size)
    height_in = fig.get_size_inches()[1]
    return y - rows * (size * 1.45 / 72) / height_in - 0.02


def legend_right(ax, **kw):
    """The legend of `ax` outside its data, to the right."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False,
              fontsize=MIN_FONT_PT, **kw)


def panel_grid(k: int, width: float = 4.6, height: float = 4.0, max_cols: int = 4, **kw):
    """`k` panels (at least 1) wrapped into rows of at most `max_cols`, the whole no wider
    than REPORT_WIDTH_IN; returns the figure and the k axes in reading order (unused cells
    are hidden)."""
    import matplotlib.pyplot as plt
    k = max(1, int(k))
    cols = min(k, max_cols)
    rows = -(-k // cols)
    width = min(width, (REPORT_WIDTH_IN - 0.7) / cols)  # room for the outer tick labels
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False,
                             **kw)
    flat = list(axes.flat)
    for ax in flat[k:]:
        ax.set_visible(False)
    return fig, flat[:k]


def spans_decades(values, decades: float = 1.5) -> bool:
    """True when the positive finite `values` span more than `decades` powers of ten (a
    log scale then reads better)."""
    v = [float(x) for x in values if x is not None and math.isfinite(float(x)) and float(x) > 0]
    return len(v) >= 2 and math.log10(max(v) / min(v)) > decades
