#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The report in a real browser: headless Debian chromium, driven over its DevTools protocol
(--remote-debugging-pipe: NUL-separated JSON on fds 3 and 4, no socket, no network).

For each REPORT (a report.html), at a 1,400 x 900 window, it checks that:
- the page raises no JavaScript error (uncaught exception, console.error, error log entry);
- the page asks for nothing but file: and data: URLs (no network);
- every image has loaded (complete, with a width);
- there is a sortable table (the side-by-side table), or the page says why there is none;
- a mouse click on each column header of every sortable table sorts
  its rows by that column, ascending then descending on a second click, numerically where
  every cell of the column is a number, the rows' set unchanged;
- the page has no horizontal overflow at 1,400 px;
- the headline answers (the heading and each of its items) are within the first screen.

--plant-check also plants two bugs in a copy of the first REPORT's sort script (a call to a
function that does not exist in the click handler; numbers compared as strings) and fails
unless the checks above fail on each: the test is shown to catch a broken sort.

Chromium is started in its own process group and ended by that id (SIGTERM, then SIGKILL),
within --timeout seconds per page.

--work DIR adds the reports of tests/report/report_test.py's work folder: the one over every
input (DIR/all) and the one drawn from its smallest generated input (DIR/each/<its name>),
where most figures are missing.

Usage: browser_test.py [REPORT...] [--work DIR] [--plant-check] [--chromium PATH] [--timeout S]
Exit 0 all pass, 1 a check failed, 2 chromium missing or not answering.
"""
import argparse
import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDTH, HEIGHT = 1400, 900
# What the report says in place of its side-by-side table when no setting has a figure of
# merit (notebooks/report.ipynb): such a page passes without a sortable table.
NO_TABLE = "No algorithm setting with a figure of merit in these inputs."

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--remote-debugging-pipe", f"--window-size={WIDTH},{HEIGHT}"]


class Unusable(Exception):
    """Chromium could not be started or stopped answering."""


class Browser:
    def __init__(self, exe, timeout):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="chsim-chromium-")
        cmd_r, self.cmd_w = os.pipe()
        self.out_r, out_w = os.pipe()

        def fds():  # the browser reads commands on fd 3 and writes answers on fd 4
            r, w = os.dup(cmd_r), os.dup(out_w)  # above 4, so that dup2 clears close-on-exec
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={self.profile}",
                                      "about:blank"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     preexec_fn=fds, close_fds=False, start_new_session=True)
        os.close(cmd_r)
        os.close(out_w)
        self.buf, self.next_id, self.events, self.session = b"", 0, [], None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Unusable(f"no answer from chromium within {self.timeout} s")
            r, _, _ = select.select([self.out_r], [], [], left)
            if r:
                chunk = os.read(self.out_r, 1 << 20)
                if not chunk:
                    err = self.proc.stderr.read1(4000).decode(errors="replace") \
                        if self.proc.poll() is not None else ""
                    raise Unusable(f"chromium closed its pipe (exit {self.proc.poll()}): {err}")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise Unusable(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method):
        deadline = time.monotonic() + self.timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                del self.events[i]
                return m
        while True:
            m = self._read(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise AssertionError(f"checker script failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def close(self):
        try:
            if self.proc.poll() is None:
                os.write(self.cmd_w, json.dumps({"id": 0, "method": "Browser.close"}).encode()
                         + b"\0")
                self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)  # its group: the renderer and helpers too
            except ProcessLookupError:
                break
            try:
                self.proc.wait(5)
                break
            except subprocess.TimeoutExpired:
                continue
        for fd in (self.cmd_w, self.out_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


def open_page(b, path):
    target = next(t for t in b.send("Target.getTargets")["targetInfos"] if t["type"] == "page")
    b.session = b.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                 "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        b.send(f"{domain}.enable")
    b.send("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT,
                                                  "deviceScaleFactor": 1, "mobile": False})
    b.send("Page.navigate", {"url": Path(path).resolve().as_uri()})
    b.wait_event("Page.loadEventFired")
    # Images decode after load; wait for each (data: URLs, no network).
    b.eval("Promise.all(Array.from(document.images).map(i => i.decode().catch(() => 0)))")


# Written here, not taken from the page: what the page shows, for the checks below.
LAYOUT_JS = r"""(() => {
  const de = document.documentElement;
  const wide = Array.from(document.body.querySelectorAll('*'))
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
    .slice(0, 5).map(e => e.tagName + '.' + e.className + ' ' +
                      Math.round(e.getBoundingClientRect().right) + 'px');
  const imgs = Array.from(document.images).map((im, k) => ({k: k, ok: im.complete &&
                       im.naturalWidth > 0, alt: im.alt || im.src.slice(0, 40)}));
  const h = document.getElementById('Headline-answers');
  let head = null;
  if (h) {
    const items = [];
    for (let e = h.closest('.jp-Cell') || h; e; e = e.nextElementSibling) {
      if (e !== (h.closest('.jp-Cell') || h) && e.querySelector('h1, h2')) break;
      e.querySelectorAll('li, p, tr').forEach(x => items.push(x));
    }
    head = {top: h.getBoundingClientRect().top + window.scrollY,
            bottoms: items.map(x => x.getBoundingClientRect().bottom + window.scrollY),
            texts: items.map(x => x.textContent.slice(0, 60))};
  }
  return {scrollWidth: de.scrollWidth, innerWidth: window.innerWidth,
          innerHeight: window.innerHeight, wide: wide, imgs: imgs, head: head,
          tables: document.querySelectorAll('table.chsim-sortable').length,
          headers: Array.from(document.querySelectorAll('table.chsim-sortable'))
                        .map(t => t.querySelectorAll('thead th').length)};
})()"""

HEADER_JS = r"""(() => {
  const th = document.querySelectorAll('table.chsim-sortable')[%d].querySelectorAll('thead th')[%d];
  th.scrollIntoView({block: 'center'});
  const r = th.getBoundingClientRect();
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, name: th.textContent};
})()"""

COLUMN_JS = r"""(() => {
  const t = document.querySelectorAll('table.chsim-sortable')[%d];
  const rows = Array.from(t.tBodies[0].rows);
  const keys = rows.map(r => r.cells[%d].dataset.sort || '');
  const ne = keys.filter(k => k !== '');
  let lexUp = true, lexDown = true;
  for (let i = 1; i < ne.length; i++) {
    if (ne[i - 1].localeCompare(ne[i]) > 0) lexUp = false;
    if (ne[i - 1].localeCompare(ne[i]) < 0) lexDown = false;
  }
  return {keys: keys, rows: rows.map(r => r.cells[0].textContent), lexUp: lexUp,
          lexDown: lexDown};
})()"""


def click(b, x, y):
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        b.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                            "clickCount": 1})


def is_num(s):
    try:
        return math.isfinite(float(s))
    except ValueError:
        return False


def check_sorted(col, up):
    keys = col["keys"]
    filled = [k for k in keys if k != ""]
    if any(k != "" for k in keys[len(filled):]) or any(k == "" for k in keys[:len(filled)]):
        return "empty cells not last"
    if filled and all(is_num(k) for k in filled):
        v = [float(k) for k in filled]
        ok = v == sorted(v, reverse=not up)
        return None if ok else f"not in {'ascending' if up else 'descending'} numeric order: {filled}"
    ok = col["lexUp"] if up else col["lexDown"]
    return None if ok else f"not in {'ascending' if up else 'descending'} text order: {filled}"


def errors_of(events):
    out = []
    for m in events:
        p, meth = m.get("params", {}), m.get("method")
        if meth == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            out.append("exception: " + d.get("exception", {}).get("description", d.get("text")))
        elif meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.error: " + " ".join(str(a.get("value", a.get("description")))
                                                    for a in p.get("args", [])))
        elif meth == "Log.entryAdded" and p["entry"].get("level") == "error":
            out.append("log: " + p["entry"].get("text", ""))
        elif meth == "Network.requestWillBeSent":
            url = p["request"]["url"]
            if not url.startswith(("file:", "data:", "about:")):
                out.append(f"network request: {url[:100]}")
    return out


def check_page(exe, path, timeout):
    """The list of failures on one report (empty: it passes)."""
    bad = []
    b = Browser(exe, timeout)
    try:
        open_page(b, path)
        lay = b.eval(LAYOUT_JS)
        if lay["scrollWidth"] > lay["innerWidth"]:
            bad.append(f"horizontal overflow at {WIDTH} px: scrollWidth {lay['scrollWidth']}; "
                       f"widest: {lay['wide']}")
        bad += [f"image {i['k']} ({i['alt']}) did not load" for i in lay["imgs"] if not i["ok"]]
        h = lay["head"]
        if h is None or not h["bottoms"]:
            bad.append("no headline answers (#Headline-answers and its items)")
        else:
            late = [t for t, y in zip(h["texts"], h["bottoms"]) if y > lay["innerHeight"]]
            if h["top"] > lay["innerHeight"] or late:
                bad.append(f"headline answers below the first screen ({lay['innerHeight']} px):"
                           f" heading at {h['top']:.0f} px; items past it: {late}")
        says_why = b.eval(f"document.body.innerText.includes({json.dumps(NO_TABLE)})")
        if not lay["tables"] and not says_why:
            bad.append(f"no sortable table (table.chsim-sortable), and no '{NO_TABLE}'")
        numeric = 0
        for t, ncols in enumerate(lay["headers"]):
            before = sorted(b.eval(COLUMN_JS % (t, 0))["rows"])
            for c in range(ncols):
                for up in (True, False):
                    th = b.eval(HEADER_JS % (t, c))
                    click(b, th["x"], th["y"])
                    col = b.eval(COLUMN_JS % (t, c))
                    why = check_sorted(col, up)
                    if why:
                        bad.append(f"table {t}, column '{th['name']}', click {1 if up else 2}: "
                                   f"{why}")
                    if sorted(col["rows"]) != before:
                        bad.append(f"table {t}, column '{th['name']}': rows changed by sorting")
                filled = [k for k in col["keys"] if k]
                numeric += bool(filled) and all(is_num(k) for k in filled)
        if lay["tables"] and not numeric:
            bad.append("no numeric column in the sortable tables: numeric sorting unproven")
        bad += errors_of(b.events)
        print(f"{path}: {len(lay['imgs'])} images, {sum(lay['headers'])} columns "
              f"({numeric} numeric) sorted, width {lay['scrollWidth']} px, headline items end "
              f"at {max(h['bottoms']) if h and h['bottoms'] else '-'} px")
    finally:
        b.close()
    return bad


PLANTS = [("a call to a missing function in the click handler",
           "var up = th.dataset.up !== '1';", "var up = th.dataset.up !== '1'; noSuchHelper();"),
          ("numbers compared as strings", "x - y", "x.localeCompare(y)")]


def plant_check(exe, path, timeout):
    html = Path(path).read_text(encoding="utf-8")
    failures = []
    with tempfile.TemporaryDirectory(prefix="chsim-planted-") as d:
        for what, old, new in PLANTS:
            if html.count(old) != 1:
                failures.append(f"planted bug '{what}': '{old}' not once in the sort script "
                                "(update PLANTS to the report's sort code)")
                continue
            p = Path(d) / "report.html"
            p.write_text(html.replace(old, new), encoding="utf-8")
            got = check_page(exe, p, timeout)
            if got:
                print(f"planted bug '{what}': caught ({got[0][:120]})")
            else:
                failures.append(f"planted bug '{what}': the checks passed; they must fail")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reports", nargs="*")
    ap.add_argument("--work")
    ap.add_argument("--plant-check", action="store_true")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    if not os.access(a.chromium, os.X_OK):
        print(f"FAIL: no chromium at {a.chromium} (scripts/install-deps --test)", file=sys.stderr)
        sys.exit(2)
    if a.work:
        w = Path(a.work)
        gen = sorted((w / "results").glob("gen-*.json"), key=lambda p: (p.stat().st_size, p.name))
        a.reports += [str(w / "all" / "report.html")] + \
            [str(w / "each" / gen[0].stem / "report.html")] * bool(gen)
    if not a.reports:
        ap.error("no REPORT and no --work")
    t0 = time.time()
    failures = []
    try:
        for r in a.reports:
            if not Path(r).is_file():
                failures.append(f"{r}: no such report")
                continue
            failures += [f"{r}: {f}" for f in check_page(a.chromium, r, a.timeout)]
        if a.plant_check:
            failures += plant_check(a.chromium, a.reports[0], a.timeout)
    except Unusable as e:
        print(f"FAIL: chromium: {e}", file=sys.stderr)
        sys.exit(2)
    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    print(f"browser test: {len(a.reports)} reports in {time.time() - t0:.1f} s")
    if failures:
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
