#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""chsim reads the proxies' own configurations as the programs read them.

    check_configs.py --chsim PATH/chsim [--golden DIR]

golden-proxies/configs/ holds the nginx.conf, haproxy.cfg and VCL that
tests/compat/generate-proxies ran (nginx 1.22, HAProxy 2.6 and varnishd 7.1 themselves), and
index.tsv, MAP<TAB>FILE:BLOCK[<TAB>NAME=LABEL,...] (the goldens' label of each server the
configuration names otherwise: HAProxy's s1, s2, ... are the lists' addresses). For every row
this runs

    chsim locate --servers configs/FILE:BLOCK KEYS

with no --profile (the configuration implies it: `hash ... consistent` is nginx, `hash` is
nginx-hash, a hashing backend with `hash-type consistent` is haproxy with its hash function, a
shard director is varnish with its replicas) over the keys of MAP, the program's
own answers, and compares them key for key. Blocks only the configurations hold
(configs/map/) exercise what the readers replay: servers marked down, parameters that do not
change the mapping, HAProxy's named defaults, default-server weight, weight 0, backup servers
and ids, vcl_init programs that reconfigure, remove, clear and re-add.
Exits 1 on any mismatch, listing the first ones.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chsim", required=True)
    ap.add_argument("--golden", default=os.path.join(HERE, "golden-proxies"))
    a = ap.parse_args()
    configs = os.path.join(a.golden, "configs")
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(configs, "index.tsv"))]
    if not rows:
        print("FAIL: configs/index.tsv is empty")
        return 1
    failed = 0
    with tempfile.TemporaryDirectory(prefix="chsim-configs-") as tmp:
        for row in rows:
            golden, spec = row[0], row[1]
            rename = dict(x.split("=", 1) for x in row[2].split(",")) if len(row) > 2 else {}
            lines = open(os.path.join(a.golden, golden), "rb").read().split(b"\n")[:-1]
            keys = [l.rsplit(b"\t", 1)[0] for l in lines]
            want = [l.rsplit(b"\t", 1)[1] for l in lines]
            path = os.path.join(tmp, "keys.txt")
            with open(path, "wb") as f:
                f.write(b"".join(k + b"\n" for k in keys))
            p = subprocess.run([a.chsim, "locate", "--servers", os.path.join(configs, spec), path],
                               capture_output=True, timeout=300)
            if p.returncode != 0 or not want:
                print(f"FAIL {spec}: exit {p.returncode} over {len(want)} keys: "
                      f"{p.stderr.decode(errors='replace').strip()}")
                failed += 1
                continue
            got = [l.rsplit(b"\t", 1)[1] for l in p.stdout.split(b"\n")[:-1]]
            got = [rename.get(g.decode(), g.decode()).encode() for g in got]
            bad = [(k, w, g) for k, w, g in zip(keys, want, got) if w != g]
            if len(got) != len(want) or bad:
                failed += 1
                print(f"FAIL {spec} against {golden}: {len(bad)} of {len(want)} keys differ, "
                      f"{len(got)} answers; first: {bad[:3]}")
            else:
                print(f"ok   {spec}: {len(want)} keys as {golden}")
    print(f"{len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
