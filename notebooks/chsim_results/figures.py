# SPDX-License-Identifier: Apache-2.0
"""The figures of a notebook: each drawn when its data is present, else one line saying why.

A notebook opens a ``Book`` and draws every figure inside ``book.figure(...)``:

    book = cf.Book("balance")
    with book.figure("balance_cv_vs_points", "Spread of node loads vs points per node",
                     needs="ring cases at two or more points-per-node values",
                     metrics=["structural.cv"], report=30) as f:
        f.require(len(ring) > 0, "these inputs have no ring or ketama case with equal weights")
        fig, ax = plt.subplots()
        ...
        f.save(fig)
    book.finish()

- ``f.require(condition, found)`` stops the figure when its data is absent: the notebook
  prints one line, ``NAME: not drawn: needs NEEDS; FOUND``, and the report repeats it.
- ``f.save(fig, data=None)`` writes ``NAME.png`` and ``NAME.json`` to ``figure_dir()`` and
  shows the PNG inline (drawn once). The JSON sidecar holds what the figure draws, read back
  from its matplotlib artists, per panel: lines (x, y), error bars (x, y, low, high), bars
  (x, y, width, height), filled bands (x, low, high), scatter offsets, images (arrays),
  texts, tick labels, titles, labels and scales; ``series``, each colour ``style.color``
  handed out for it (label, algorithm, colour); ``size_in`` (the PNG's width and height in
  inches), ``min_font_pt`` (its smallest text) and ``overlapping_texts`` (pairs of its
  figure-level texts and legends drawn over each other; empty when none); plus ``data``,
  any table the notebook passes. Tests check figures through it; humans can read the
  numbers behind a plot there.
- ``metrics``: the exact metric names the figure draws (a prefix such as ``"cache."`` is
  refused: ValueError). The report shows every metric of the results that no figure names
  in a generic table under its catalog group, so a new metric shows up without a new
  figure, whatever its name.
- ``report``: where the figure goes among the report's figures (a number, smaller first;
  None: only in its notebook's page). A notebook adds a figure to the report this way,
  with no edit to the report.
- Any other exception inside the block is recorded as an error (traceback printed) and
  the notebook goes on with the next figure; ``book.finish()`` then raises, so the notebook
  and ``scripts/make-report`` fail after drawing everything they could.

Every figure's outcome goes to ``figure_dir()/NOTEBOOK.figures.json`` (name, title,
status drawn | skipped | error, reason, files, metrics, report), which the report reads.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import traceback
from pathlib import Path

from . import style
from .load import figure_dir


class Missing(Exception):
    """The inputs lack what a figure needs (the message says what they have)."""


class _Figure:
    def __init__(self, book: "Book", entry: dict):
        self._book, self._entry = book, entry
        self._colors = style.recording()

    def _colors_list(self):
        """Each colour handed out while this figure was drawn: label, algorithm, colour."""
        return [{"label": k, "algorithm": style.algorithm_of(k), "color": v}
                for k, v in self._colors.items()]

    def note(self, text: str):
        """A line the report shows under this figure (e.g. what it leaves out)."""
        self._entry["note"] = text
        print(text)

    def require(self, condition, found: str):
        """Stops this figure unless `condition` holds; `found` says what the inputs have."""
        if not condition:
            raise Missing(found)

    def save(self, fig, data: dict | None = None, name: str | None = None) -> Path:
        """Writes the PNG and its JSON sidecar, shows the PNG, closes `fig`."""
        import matplotlib.pyplot as plt
        name = name or self._entry["name"]
        png = style.save(fig, name, figure_dir())
        side = {"figure": name, "title": self._entry["title"], "notebook": self._book.notebook,
                "series": self._colors_list(), "size_in": png_inches(png),
                "min_font_pt": min_font_pt(fig),
                "overlapping_texts": style.overlapping_texts(fig),
                "axes": figure_data(fig), "data": _jsonable(data or {})}
        sidecar = png.with_suffix(".json")
        sidecar.write_text(json.dumps(side, indent=None, allow_nan=False) + "\n",
                           encoding="utf-8")
        plt.close(fig)
        self._entry["status"] = "drawn"
        self._entry.setdefault("files", []).append(png.name)
        _show(png)
        return png


class Book:
    """The figures of one notebook and what became of each."""

    def __init__(self, notebook: str):
        self.notebook = notebook
        self.entries: list[dict] = []
        self.index = figure_dir() / f"{notebook}.figures.json"
        self._write()

    @contextlib.contextmanager
    def figure(self, name: str, title: str, needs: str, metrics=(), report=None):
        prefixes = [m for m in metrics if not m or str(m).endswith(".")]
        if prefixes:
            raise ValueError(f"figure {name}: metrics {prefixes}: declare the exact metric "
                             "names the figure draws (the report shows every other metric)")
        entry = {"name": name, "title": title, "needs": needs, "status": "running",
                 "reason": "", "metrics": list(metrics), "report": report}
        fig = _Figure(self, entry)
        try:
            yield fig
            if entry["status"] == "running":
                entry.update(status="skipped", reason=f"needs {needs}; nothing to draw")
        except Missing as e:
            entry.update(status="skipped", reason=f"needs {needs}; {e}")
        except Exception as e:  # noqa: BLE001 - recorded, reported, and raised by finish()
            traceback.print_exc()
            entry.update(status="error", reason=f"{type(e).__name__}: {e}")
        finally:
            import matplotlib.pyplot as plt
            plt.close("all")
            style.stop_recording(fig._colors)
            self.entries.append(entry)
            self._write()
        if entry["status"] == "skipped":
            print(f"{name}: not drawn: {entry['reason']}")
        elif entry["status"] == "error":
            print(f"{name}: FAILED: {entry['reason']}")

    def finish(self):
        """Prints what was drawn; raises if any figure failed."""
        for e in self.entries:
            print(f"{e['status']:>8}  {e['name']}" + (f"  ({e['reason']})" if e["reason"] else ""))
        bad = [e for e in self.entries if e["status"] == "error"]
        if bad:
            raise RuntimeError(f"{len(bad)} figure(s) failed: "
                               + "; ".join(f"{e['name']}: {e['reason']}" for e in bad))

    def _write(self):
        doc = {"notebook": self.notebook, "figures": self.entries}
        self.index.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def read_index(directory) -> list[dict]:
    """Every figure entry of every ``*.figures.json`` in `directory`, notebook order kept."""
    out = []
    for p in sorted(Path(directory).glob("*.figures.json")):
        doc = json.loads(p.read_text(encoding="utf-8"))
        out += [dict(e, notebook=doc.get("notebook")) for e in doc.get("figures", [])]
    return out


def _show(png: Path):
    try:
        from IPython import get_ipython
        from IPython.display import Image, display
    except ImportError:
        return
    if get_ipython() is not None:
        display(Image(filename=str(png)))


# --- what a figure draws, read back from matplotlib -------------------------------------

def _num(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return f if math.isfinite(f) else None


def _nums(seq):
    import numpy as np
    return [_num(v) for v in np.ma.filled(np.ma.asarray(seq, dtype=float), np.nan).ravel()]


def _jsonable(x):
    import numpy as np
    import pandas as pd
    if isinstance(x, pd.DataFrame):
        return [{k: _jsonable(v) for k, v in r.items()} for r in x.to_dict("records")]
    if isinstance(x, pd.Series):
        return _jsonable(x.to_dict())
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, float, np.integer, np.floating)):
        return _num(x)
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return str(x)


def _band(coll):
    """A fill_between polygon as x, low, high (vertices grouped by x)."""
    import numpy as np
    verts = np.concatenate([p.vertices for p in coll.get_paths()]) if coll.get_paths() else []
    by_x = {}
    for x, y in verts:
        if math.isfinite(x) and math.isfinite(y):
            lo, hi = by_x.get(x, (y, y))
            by_x[x] = (min(lo, y), max(hi, y))
    xs = sorted(by_x)
    return {"label": coll.get_label(), "x": _nums(xs), "low": _nums([by_x[x][0] for x in xs]),
            "high": _nums([by_x[x][1] for x in xs])}


def _errorbar(c):
    data_line, _, barcols = c.lines
    x, y = (data_line.get_xdata(), data_line.get_ydata()) if data_line is not None else ([], [])
    out = {"label": c.get_label(), "x": _nums(x), "y": _nums(y)}
    nan = float("nan")
    for col in barcols:
        # A whisker matplotlib could not draw (a NaN end) is an empty segment: None here.
        segs = [s if len(s) else [(nan, nan), (nan, nan)] for s in col.get_segments()]
        if len(segs) != len(out["x"]):
            continue
        if all(not abs(s[0][0] - s[-1][0]) > 1e-12 for s in segs):  # vertical (NaN too)
            out["low"] = _nums([min(s[0][1], s[-1][1]) for s in segs])
            out["high"] = _nums([max(s[0][1], s[-1][1]) for s in segs])
        else:
            out["xlow"] = _nums([min(s[0][0], s[-1][0]) for s in segs])
            out["xhigh"] = _nums([max(s[0][0], s[-1][0]) for s in segs])
    return out


def png_inches(png: Path) -> list[float]:
    """Width and height of a saved PNG in inches at the resolution it was saved with (its
    pHYs chunk), as the report shows it: 96 px per inch, at most REPORT_WIDTH_IN wide."""
    import struct
    data = png.read_bytes()
    w, h = struct.unpack(">II", data[16:24])
    i = data.find(b"pHYs")
    ppm = struct.unpack(">I", data[i + 4:i + 8])[0] if i > 0 else 0
    dpi = ppm * 0.0254 if ppm else float(os.environ.get("CHSIM_FIGURE_DPI", "150"))
    return [round(w / dpi, 3), round(h / dpi, 3)]


def min_font_pt(fig) -> float | None:
    """The smallest type size (points) of the visible, non-empty texts of `fig`."""
    from matplotlib.text import Text
    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip() and _shown(t)]
    return round(float(min(sizes)), 2) if sizes else None


def _shown(text) -> bool:
    """False for texts inside an invisible parent (hidden panels, unused ticks)."""
    a = getattr(text, "axes", None)
    return a is None or a.get_visible()


def figure_data(fig) -> list[dict]:
    """Per panel (matplotlib Axes, colour bars included), what it draws."""
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    from matplotlib.container import BarContainer, ErrorbarContainer
    panels = []
    for ax in fig.axes:
        taken = set()
        p = {"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
             "xscale": ax.get_xscale(), "yscale": ax.get_yscale(),
             "xlim": _nums(ax.get_xlim()), "ylim": _nums(ax.get_ylim()),
             "xticklabels": [t.get_text() for t in ax.get_xticklabels()],
             "yticklabels": [t.get_text() for t in ax.get_yticklabels()],
             "lines": [], "errorbars": [], "bars": [], "bands": [], "points": [], "images": [],
             "texts": [t.get_text() for t in ax.texts]}
        for c in ax.containers:
            if isinstance(c, ErrorbarContainer):
                p["errorbars"].append(_errorbar(c))
                taken.update(id(a) for a in c.get_children())
            elif isinstance(c, BarContainer):
                rects = list(c.patches)
                p["bars"].append({"label": c.get_label(),
                                  "orientation": getattr(c, "orientation", None),
                                  "x": _nums([r.get_x() for r in rects]),
                                  "y": _nums([r.get_y() for r in rects]),
                                  "width": _nums([r.get_width() for r in rects]),
                                  "height": _nums([r.get_height() for r in rects])})
                taken.update(id(a) for a in rects)
                if c.errorbar is not None:
                    taken.update(id(a) for a in c.errorbar.get_children())
        for line in ax.get_lines():
            if id(line) not in taken:
                p["lines"].append({"label": line.get_label(), "x": _nums(line.get_xdata()),
                                   "y": _nums(line.get_ydata())})
        for coll in ax.collections:
            if id(coll) in taken or isinstance(coll, LineCollection):
                continue
            if isinstance(coll, PathCollection):
                off = coll.get_offsets()
                p["points"].append({"label": coll.get_label(),
                                    "x": _nums([o[0] for o in off]),
                                    "y": _nums([o[1] for o in off])})
            elif isinstance(coll, PolyCollection):
                p["bands"].append(_band(coll))
        for im in ax.images:
            import numpy as np
            arr = np.ma.filled(np.ma.asarray(im.get_array(), dtype=float), np.nan)
            p["images"].append({"shape": list(arr.shape),
                                "array": [_nums(r) for r in arr.reshape(arr.shape[0], -1)]})
        panels.append(p)
    return panels


def load_sidecar(directory, name) -> dict:
    """A figure's sidecar (for tests and readers)."""
    return json.loads((Path(directory) / f"{name}.json").read_text(encoding="utf-8"))


def panels(side: dict, title_contains: str = "") -> list[dict]:
    """The panels of a sidecar whose title contains `title_contains`."""
    return [p for p in side["axes"] if title_contains in p["title"]]


def series(panel: dict, label: str, kinds=("lines", "errorbars", "bars", "bands", "points")):
    """The first drawn element of `panel` with this legend label."""
    for k in kinds:
        for e in panel.get(k, []):
            if e.get("label") == label:
                return e
    raise KeyError(f"no series '{label}' in panel '{panel.get('title')}' "
                   f"(labels: {[e.get('label') for k in kinds for e in panel.get(k, [])]})")

