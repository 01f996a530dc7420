#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compare chsim's CLI with the goldens recorded from the real peers (see generate).

    check_golden.py --chsim PATH/chsim [--variant V[,V...]] [--list L[,L...]] [--examples N]

For every variant in golden/variants.tsv and every list it has a map for, runs
    chsim locate --servers golden/lists/LIST.txt ARGS KEYS_FILE
(KEYS_FILE = the golden map's keys, in order) and compares its KEY<TAB>SERVER lines key for
key; for every golden ring, runs
    chsim ring --servers golden/lists/LIST.txt ARGS
and compares its POINT<TAB>SERVER lines line for line.  Prints per-variant counts, the first
mismatches, a final line "N passed, M failed", and exits 1 on any mismatch or chsim error
(2 on a usage error).

Nothing missing passes silently: a variant of variants.tsv without its map directory, a
map directory that variants.tsv does not name, an empty map directory, and an empty golden
file each count as a failure.
"""

import argparse
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def read_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data.split(b"\n")[:-1]


def show(b):
    return b.decode("utf-8", errors="backslashreplace")


def run_chsim(cmd, timeout):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"hung: no exit within {timeout}s"
    except OSError as e:
        return None, str(e)
    if r.returncode != 0:
        err = r.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return None, f"exit {r.returncode}: " + (" | ".join(err[:3]) if err else "(no stderr)")
    return r.stdout, None


def split_filter(values):
    out = set()
    for v in values or []:
        out.update(x for x in v.split(",") if x)
    return out


def main():
    ap = argparse.ArgumentParser(description="Compare chsim with the peer goldens.")
    ap.add_argument("--chsim", required=True, help="path to the chsim binary")
    ap.add_argument("--golden", default=os.path.join(HERE, "golden"),
                    help="golden directory (default: golden/ beside this script)")
    ap.add_argument("--variant", action="append", help="only these variants (repeat or comma)")
    ap.add_argument("--list", action="append", help="only these lists (repeat or comma)")
    ap.add_argument("--examples", type=int, default=3, help="mismatches shown per comparison")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per chsim run")
    ap.add_argument("--no-rings", action="store_true", help="skip the ring comparisons")
    a = ap.parse_args()

    golden = a.golden
    chsim = os.path.abspath(a.chsim) if os.sep in a.chsim else a.chsim
    vfile = os.path.join(golden, "variants.tsv")
    if not os.path.isfile(vfile):
        print(f"check_golden: {vfile} not found", file=sys.stderr)
        return 2
    variants = []
    with open(vfile) as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if ln and not ln.startswith("#"):
                name, args = ln.split("\t", 1)
                variants.append((name, shlex.split(args)))
    want_v, want_l = split_filter(a.variant), split_filter(a.list)
    known_v = {v for v, _ in variants}
    for v in sorted(want_v - known_v):
        print(f"check_golden: unknown variant '{v}' (known: {', '.join(sorted(known_v))})",
              file=sys.stderr)
        return 2

    passed = failed = 0
    mroot = os.path.join(golden, "map")
    orphans = sorted(set(os.listdir(mroot)) - known_v) if os.path.isdir(mroot) else []
    for o in orphans:
        print(f"  FAIL map/{o}: a golden directory that variants.tsv does not name")
        failed += 1
    with tempfile.TemporaryDirectory(prefix="chsim-check-") as tmp:
        for variant, args in variants:
            if want_v and variant not in want_v:
                continue
            mdir = os.path.join(golden, "map", variant)
            rdir = os.path.join(golden, "ring", variant)
            if not os.path.isdir(mdir):
                print(f"  FAIL {variant}: no golden directory map/{variant} "
                      "(regenerate with tests/compat/generate)")
                failed += 1
                continue
            jobs = [("map", fn[:-4]) for fn in sorted(os.listdir(mdir)) if fn.endswith(".tsv")]
            if not jobs:
                print(f"  FAIL {variant}: map/{variant} holds no golden file")
                failed += 1
                continue
            if os.path.isdir(rdir) and not a.no_rings:
                jobs += [("ring", fn[:-4]) for fn in sorted(os.listdir(rdir)) if fn.endswith(".tsv")]
            jobs = [j for j in jobs if not want_l or j[1] in want_l]
            if not jobs:
                continue
            vp = vf = keys_total = keys_bad = 0
            print(f"== {variant}  ({' '.join(args)})")
            for kind, lname in jobs:
                lpath = os.path.join(golden, "lists", f"{lname}.txt")
                expect = read_lines(os.path.join(golden, kind, variant, f"{lname}.tsv"))
                if not expect:
                    print(f"  FAIL {kind} {lname}: the golden file {kind}/{variant}/{lname}.tsv "
                          "is empty")
                    vf += 1
                    continue
                if kind == "map":
                    kpath = os.path.join(tmp, "keys.txt")
                    with open(kpath, "wb") as f:
                        f.write(b"".join(ln.split(b"\t", 1)[0] + b"\n" for ln in expect))
                    cmd = [chsim, "locate", "--servers", lpath, *args, kpath]
                else:
                    cmd = [chsim, "ring", "--servers", lpath, *args]
                out, err = run_chsim(cmd, a.timeout)
                tag = f"{kind} {lname}"
                if err is not None:
                    print(f"  FAIL {tag}: chsim failed: {err}")
                    print(f"       command: {' '.join(shlex.quote(c) for c in cmd)}")
                    vf += 1
                    if kind == "map":
                        keys_total += len(expect)
                        keys_bad += len(expect)
                    continue
                got = out.split(b"\n")
                if got and got[-1] == b"":
                    got.pop()
                bad = []
                for i, e in enumerate(expect):
                    g = got[i] if i < len(got) else None
                    if g != e:
                        bad.append((i, e, g))
                extra = max(0, len(got) - len(expect))
                if kind == "map":
                    keys_total += len(expect)
                    keys_bad += len(bad)
                if bad or extra:
                    vf += 1
                    unit = "keys" if kind == "map" else "lines"
                    print(f"  FAIL {tag}: {len(bad)} of {len(expect)} {unit} differ"
                          + (f", {extra} extra output lines" if extra else "")
                          + (f" (chsim printed {len(got)} lines)" if len(got) != len(expect) else ""))
                    for i, e, g in bad[:a.examples]:
                        print(f"       line {i + 1}: expected {show(e)!r}, got "
                              f"{show(g)!r}" if g is not None else
                              f"       line {i + 1}: expected {show(e)!r}, got nothing")
                else:
                    vp += 1
            print(f"  {variant}: {vp} passed, {vf} failed; keys {keys_total - keys_bad}/{keys_total} agree")
            passed += vp
            failed += vf
    print(f"{passed} passed, {failed} failed")
    if passed + failed == 0:
        print("check_golden: nothing selected", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
