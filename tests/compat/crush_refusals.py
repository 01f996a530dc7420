#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""CRUSH maps chsim refuses, against crushtool -c on the same text.

Usage: crush_refusals.py CHSIM

Each case is a small map in crushtool's text form with one fault. chsim must refuse it in one
line naming the map's file and the line of the fault, with exit 2 (`chsim locate --algorithm
straw2 --replicas 1 --strategy crush --crush-map MAP`). The cases marked "crushtool" must be
refused by `crushtool -c` as well (what crushtool refuses, chsim refuses); the cases marked
"not modelled" are maps crushtool compiles but chsim does not model, and "ambiguous" ones
crushtool accepts by letting a later definition win: chsim refuses both, saying so.
Exit 0 when every case holds, else 1 (each failure printed). Needs crushtool (ceph-base).
"""
import os
import subprocess
import sys
import tempfile

CRUSHTOOL = "/usr/bin/crushtool"
HEAD = """tunable choose_local_tries 0
tunable choose_local_fallback_tries 0
tunable choose_total_tries 50
tunable chooseleaf_descend_once 1
tunable chooseleaf_vary_r 1
tunable chooseleaf_stable 1
device 0 osd.0
device 1 osd.1
type 0 osd
type 1 root
"""  # lines 1-10
BUCKET = "root default { id -1 alg straw2 hash 0 item osd.0 weight 1.0 item osd.1 }\n"  # 11
RULE = ("rule r { id 0 type replicated min_size 1 max_size 10 step take default "
        "step choose firstn 0 type osd step emit }\n")  # line 12 (after HEAD + BUCKET)


def with_bucket(b):
    return HEAD + b + "\n" + RULE


def with_rule(r):
    return HEAD + BUCKET + r + "\n"


# (kind, text, line of the fault, words the refusal must say)
CASES = [
    ("crushtool", with_rule(RULE.replace("type osd", "type hots")), 12, "type 'hots' not defined"),
    ("crushtool", with_rule(RULE.replace("take default", "take nope")), 12,
     "item 'nope' not defined"),
    ("crushtool", with_bucket(BUCKET.replace("root default", "rak default")), 11,
     "bucket type 'rak' is not defined"),
    ("crushtool", with_bucket(BUCKET.replace("item osd.1", "item osd.9")), 11,
     "item 'osd.9' in bucket 'default' is not defined"),
    ("crushtool", with_bucket(BUCKET.replace("weight 1.0", "weight -1.0")), 11, "negative"),
    ("crushtool", with_bucket(BUCKET.replace("weight 1.0", "weight abc")), 11, "not a number"),
    ("crushtool", with_bucket(BUCKET.replace("weight 1.0", "weight 101")), 11,
     "above the limit"),
    ("crushtool", with_bucket(BUCKET.replace("alg straw2 ", "")), 11, "expected 'alg'"),
    ("crushtool", with_bucket(BUCKET.replace("id -1", "id 3")), 11, "not negative"),
    ("crushtool", HEAD + BUCKET + BUCKET.replace("root default", "root other") + RULE, 12,
     "Duplicate bucket id -1"),
    ("crushtool", "tunable foo 1\n" + HEAD + BUCKET + RULE, 1, "tunable 'foo' not recognized"),
    ("crushtool", HEAD + "device 2 osd.0\n" + BUCKET + RULE, 11, "defined twice"),
    ("crushtool", HEAD + "device 2 osd:2\n" + BUCKET + RULE, 11, "found ':'"),
    ("crushtool", with_rule(RULE.replace("min_size 1 ", "")), 12, "expected 'min_size'"),
    ("crushtool", with_rule(RULE.replace("type replicated", "type foo")), 12,
     "rule type 'foo'"),
    ("crushtool", HEAD + BUCKET + RULE.replace("step emit }", "step emit"), 12, "file ends"),
    ("crushtool", HEAD + BUCKET.replace("root default", "root osd.1") + RULE, 11,
     "already defined"),
    ("not modelled", with_bucket(BUCKET.replace("alg straw2", "alg straw")), 11,
     "straw2 buckets only"),
    ("not modelled", with_bucket(BUCKET.replace("hash 0", "hash 1")), 11, "rjenkins1"),
    ("not modelled", HEAD.replace("fallback_tries 0", "fallback_tries 5") + BUCKET + RULE, 2,
     "not modelled"),
    ("not modelled", "".join(HEAD.splitlines(True)[6:]) + BUCKET + RULE, 6,
     "legacy (argonaut)"),
    ("not modelled", with_rule(RULE.replace("take default", "take default class ssd")).replace(
        "device 1 osd.1", "device 1 osd.1 class ssd"), 12, "device classes"),
    ("ambiguous", HEAD + "device 1 osd.7\n" + BUCKET + RULE, 11, "device id 1 defined twice"),
    ("ambiguous", HEAD + "type 1 host\n" + BUCKET + RULE, 11, "type id 1 defined twice"),
]


def main():
    chsim = sys.argv[1]
    if not os.access(CRUSHTOOL, os.X_OK):
        sys.exit("crush_refusals: crushtool missing; scripts/install-deps --test installs ceph-base")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="chsim-crush-refusals-") as tmp:
        servers = os.path.join(tmp, "osds.txt")
        with open(servers, "w") as f:
            f.write("osd.0\nosd.1\n")
        for i, (kind, text, line, words) in enumerate(CASES):
            path = os.path.join(tmp, f"map{i}.txt")
            with open(path, "w") as f:
                f.write(text)
            ct = subprocess.run([CRUSHTOOL, "-c", path, "-o", path + ".bin"],
                                capture_output=True, text=True, timeout=60)
            crushtool_refuses = ct.returncode != 0 or not os.path.exists(path + ".bin")
            p = subprocess.run([chsim, "locate", "--servers", servers, "--algorithm", "straw2",
                                "--replicas", "1", "--strategy", "crush", "--crush-map", path, "-"],
                               input=b"k\n", capture_output=True, timeout=60)
            err = p.stderr.decode().strip()
            problems = []
            if crushtool_refuses != (kind == "crushtool"):
                problems.append(f"crushtool {'refuses' if crushtool_refuses else 'accepts'} it: "
                                f"{(ct.stderr or ct.stdout).strip()[:120]!r}")
            if p.returncode != 2 or "\n" in err or p.stdout:
                problems.append(f"chsim exit {p.returncode}, stderr {err!r}")
            if f"{path}:{line}:" not in err or words not in err:
                problems.append(f"chsim said {err!r}; expected {path}:{line}: and {words!r}")
            if problems:
                failures += 1
                print(f"FAIL case {i} ({kind}, {words}): " + "; ".join(problems))
    print(f"crush_refusals: {len(CASES) - failures} of {len(CASES)} cases refused in one line "
          "naming the line, crushtool agreeing where it refuses")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
