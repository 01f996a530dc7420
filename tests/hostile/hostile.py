#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile-input table: every input boundary of chsim against bad input.

Each row is one command line, the input files the row creates in a fresh
temporary directory, the expected exit code and a regex the error line must
match. Every row also checks what must hold for any input:

  * the process ends by itself (no hang: a per-row timeout) and is not killed
    by a signal (no crash, no SIGXFSZ death on a full disk);
  * on failure, stderr holds exactly one "chsim: error: ..." line, short (no
    echo of a 1 GB input), and nothing that looks like a crash (terminate
    called, sanitizer report, assertion, stack trace);
  * the directory holds no file the row did not create or expect (no partial
    result, no temporary file left behind).

Big inputs (a 1 GB line, 10^6 servers) are generated at run time, streamed
through a pipe where possible, never committed.

Usage: hostile.py CHSIM [--only SUBSTRING] [--list] [--tag TAG] [--skip-tag TAG]
Exit status 0 when every row passes.
"""

import argparse
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

CHSIM = None  # the binary under test (set by main)
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))

CRASH_MARKERS = re.compile(
    r"terminate called|Sanitizer|runtime error:|Assertion|Segmentation|core dumped|"
    r"Traceback|stack trace|what\(\):")
SUMMARY = re.compile(r"^chsim: error: \d+ of \d+ files invalid$")  # chsim validate's tally
MAX_ERROR_LINE = 600  # bytes; an error names the value, it never echoes a huge input


class Row:
  """One hostile input.

  args:    argv after "chsim"; "{d}" is replaced by the row's directory.
  files:   name -> bytes, or a callable(path) that writes the file.
  stdin:   bytes, or a generator of byte chunks streamed to the process.
  rc:      expected exit code.
  err:     regex searched in the error line (rc != 0) or in stdout (rc == 0).
  outputs: names the command may create (checked: whole, or absent on error).
  fsize:   RLIMIT_FSIZE in bytes for the child (a full disk).
  pre:     callable(dir) run after files are made (e.g. chmod).
  check:   callable(dir, stdout) -> error string or None, extra checks.
  xfail:   a known bug (reported, with the reason); the row must still fail,
           and an unexpected pass is an error so the marker gets removed.
  tags:    e.g. "big" for rows that take seconds and memory.
  timeout: a guard against a hang, far above the row's expected time; the child
           is killed and the row fails saying "hung".
  max_rss_mb: the child is killed (and the row fails) above it: a refusal of a
           huge allocation must come before the allocation.
  max_read: the most bytes the child may read (rchar of /proc/PID/io, read at
           its exit): a refusal of a huge input must come before reading it.
           Work done is measured by what was done, never by seconds.
  """

  def __init__(self, name, args, rc, err, files=None, stdin=None, outputs=(), fsize=None,
               pre=None, check=None, xfail=None, tags=(), timeout=120, max_rss_mb=3000, max_read=None):
    self.name, self.args, self.rc, self.err = name, args, rc, err
    self.files = files or {}
    self.stdin, self.outputs, self.fsize = stdin, tuple(outputs), fsize
    self.pre, self.check, self.xfail, self.tags = pre, check, xfail, set(tags)
    self.timeout, self.max_rss_mb, self.max_read = timeout, max_rss_mb, max_read


# ---------------------------------------------------------------------------
# Input generators (deterministic).

def junk(n, seed):
  r = random.Random(seed)
  return bytes(r.randrange(256) for _ in range(n))


def long_line(total, chunk=1 << 20, byte=b"a"):
  """Streams `total` bytes of one line without a newline."""
  block = byte * chunk
  sent = 0
  while sent < total:
    n = min(chunk, total - sent)
    yield block[:n]
    sent += n


def servers(n, start=0, weights=False):
  def write(path):
    with open(path, "w") as f:
      for i in range(start, start + n):
        w = " 1" if weights else ""
        f.write("10.%d.%d.%d:11211%s\n" % (i >> 16 & 255, i >> 8 & 255, i & 255, w)
                if i < 1 << 24 else "h%d:11211%s\n" % (i, w))
  return write


def sparse(size):
  """A sparse file of `size` NUL bytes: no disk blocks written."""
  def write(path):
    with open(path, "wb") as f:
      f.truncate(size)
  return write


def numbered_keys(n):
  """A key file of n lines (about 13 bytes each), written when the row runs."""
  def write(path):
    with open(path, "wb") as f:
      f.write(b"".join(b"user:%d\n" % i for i in range(n)))
  return write


def chmod(name, mode):
  def pre(d):
    os.chmod(os.path.join(d, name), mode)
  return pre


S3 = b"10.0.0.1:11211\n10.0.0.2:11211\n10.0.0.3:11211\n"
KEYS = b"user:1\nuser:2\nuser:3\n"
GB = 1_000_000_000
MiB = 1 << 20
# A refusal of a huge allocation comes before it: the process stays under this
# (a release build peaks at about 120 MB on the largest of these rows); under a
# sanitizer, times its runtime's own memory (rss_factor).
REFUSAL_RSS_MB = 500


def locate(servers_file="s.txt", *extra):
  return ["locate", "--servers", "{d}/" + servers_file, *extra, "{d}/k.txt"]


def slist(name, content, rc, err, **kw):
  """A server-list row: chsim locate --servers s.txt k.txt."""
  files = {"s.txt": content, "k.txt": KEYS}
  files.update(kw.pop("files", {}))
  return Row(name, locate(), rc, err, files=files, **kw)


def algo(name, extra, rc, err, **kw):
  files = {"s.txt": S3, "k.txt": KEYS}
  return Row(name, locate("s.txt", *extra), rc, err, files=files, **kw)


def sc(**changes):
  """A small valid scenario; each change is a "/"-separated path (as a keyword,
  "__" for "/") set to a value, or deleted when the value is DELETE."""
  doc = {"schema_version": 1, "name": "t", "nodes": {"count": 10},
         "algorithms": [{"algorithm": "ring"}],
         "workload": {"type": "uniform", "keys": 1000}}
  for path, value in changes.items():
    keys = path.split("__")
    node = doc
    for k in keys[:-1]:
      node = node[int(k)] if isinstance(node, list) else node[k]
    last = int(keys[-1]) if isinstance(node, list) else keys[-1]
    if value is DELETE:
      del node[last]
    else:
      node[last] = value
  return json.dumps(doc).encode()


DELETE = object()


def scen(name, content, rc, err, cmd="run", args=(), files=None, **kw):
  """A scenario row: chsim run s.json -o out.json (or chsim validate s.json)."""
  all_files = {"s.json": content}
  all_files.update(files or {})
  argv = (["run", "{d}/s.json", "-o", "{d}/out.json", "-q", *args] if cmd == "run" else
          [cmd, *args, "{d}/s.json"])
  return Row(name, argv, rc, err, files=all_files, outputs=["out.json"], **kw)


def ptr(pointer, found=""):
  """The scenario error: FILE: /json/pointer: found X; accepted: Y."""
  return r"s\.json: %s: .*%s" % (re.escape(pointer), found)


def deep(n):
  return b"[" * n + b"]" * n


def absurd_sweep():
  r = list(range(1, 1001))
  return json.dumps({"schema_version": 1, "name": "t", "nodes": {"count": r},
                     "algorithms": [{"algorithm": "ring", "points_per_node": r}],
                     "workload": {"type": "uniform", "keys": r}}).encode()


def line_err(n, what):
  return r"^chsim: error: \S*s\.txt:%d: %s" % (n, what)


# ---------------------------------------------------------------------------
# The table.

ROWS = [
    # --- server lists ------------------------------------------------------
    slist("servers empty file", b"", 2, r"s\.txt: no servers \(expected lines HOST"),
    slist("servers only comments", b"# nothing\n\n   \n", 2, r"s\.txt: no servers"),
    slist("servers binary junk", junk(4096, 1), 2, r"s\.txt:\d+: "),
    slist("servers NUL byte", b"10.0.0.1:11211\n10.0.0.2\x00:11211\n", 2,
          line_err(2, r"NUL byte in server line; expected HOST\[:PORT\]")),
    slist("servers sparse 1 GB of NUL", sparse(GB), 2,
          r"s\.txt: larger than the 268435456-byte limit", tags=["big"], max_read=MiB),
    slist("servers 100 kB line", b"a" * 100_000 + b"\n", 2,
          line_err(1, r"line is 100000 bytes long; accepted: at most 4096 bytes per server line")),
    Row("servers 1 GB line on stdin", ["locate", "--servers", "-", "{d}/k.txt"], 2,
        r"^chsim: error: -: larger than the 268435456-byte limit", files={"k.txt": KEYS},
        stdin=lambda: long_line(GB), tags=["big"], timeout=120, max_read=256 * MiB + MiB),
    Row("servers larger than the file limit", ["locate", "--servers", "-", "{d}/k.txt"], 2,
        r"^chsim: error: -: .*(larger|limit)", files={"k.txt": KEYS},
        stdin=lambda: long_line((1 << 28) + (1 << 20), byte=b"10.0.0.1:11211\n"[:1]),
        tags=["big"], timeout=120),
    # --- proxies' configurations as server lists (docs/proxies.md) ----------
    Row("config nginx binary junk", locate("s.conf"), 2, r"^chsim: error: \S*s\.conf",
        files={"s.conf": junk(4096, 2), "k.txt": KEYS}),
    Row("config nginx 10^5 nested blocks", locate("s.conf"), 2,
        r"^chsim: error: \S*s\.conf:1: blocks nested more than 64 deep",
        files={"s.conf": b"a {" * 100_000, "k.txt": KEYS}),
    Row("config haproxy binary junk", locate("s.cfg"), 2, r"^chsim: error: \S*s\.cfg",
        files={"s.cfg": junk(4096, 3), "k.txt": KEYS}),
    Row("config varnish binary junk", locate("s.vcl"), 2, r"^chsim: error: \S*s\.vcl",
        files={"s.vcl": junk(4096, 4), "k.txt": KEYS}),
    Row("config envoy binary junk", locate("s.yaml"), 2, r"^chsim: error: \S*s\.yaml",
        files={"s.yaml": junk(4096, 5), "k.txt": KEYS}),
    Row("config envoy 10^5 nested lists", locate("s.yaml"), 2, r"^chsim: error: \S*s\.yaml:\d+: ",
        files={"s.yaml": b"[" * 100_000, "k.txt": KEYS}),
    slist("servers duplicate", S3 + b"10.0.0.1:11211\n", 2,
          line_err(4, r"duplicate server '10\.0\.0\.1:11211' \(first on line 1\)")),
    slist("servers duplicate spelled differently", b"a:11211\na:11211 1\n", 2,
          line_err(2, r"duplicate server 'a:11211'")),
    slist("servers weight 0", b"10.0.0.1:11211 0\n", 2,
          line_err(1, r"bad weight '0'; expected an integer 1\.\.2147483647")),
    slist("servers weight negative", b"10.0.0.1:11211 -5\n", 2, line_err(1, r"bad weight '-5'")),
    slist("servers weight NaN", b"10.0.0.1:11211 NaN\n", 2, line_err(1, r"bad weight 'NaN'")),
    slist("servers weight 1e308", b"10.0.0.1:11211 1e308\n", 2, line_err(1, r"bad weight '1e308'")),
    slist("servers weight 2^31", b"10.0.0.1:11211 2147483648\n", 2,
          line_err(1, r"bad weight '2147483648'")),
    slist("servers weight 20 digits", b"10.0.0.1:11211 18446744073709551617\n", 2,
          line_err(1, r"bad weight '18446744073709551617'")),
    slist("servers weight fraction", b"10.0.0.1:11211 1.5\n", 2, line_err(1, r"bad weight '1\.5'")),
    slist("servers port 0", b"10.0.0.1:0\n", 2,
          line_err(1, r"bad port '0'; expected an integer 1\.\.65535")),
    slist("servers port 70000", b"10.0.0.1:70000\n", 2, line_err(1, r"bad port '70000'")),
    slist("servers port empty", b"10.0.0.1:\n", 2, line_err(1, r"bad port ''")),
    slist("servers port negative", b"10.0.0.1:-1\n", 2, line_err(1, r"bad port '-1'")),
    slist("servers empty host", b":11211\n", 2, line_err(1, r"empty host in ':11211'")),
    slist("servers IPv6 unclosed", b"[::1:11211\n", 2, line_err(1, r"bad IPv6 address")),
    slist("servers IPv6 without brackets", b"::1:11211\n", 2, line_err(1, r"address '::1:11211' has several ':'")),
    slist("servers four fields", b"a:1 1 n extra\n", 2, line_err(1, r"found 4 fields")),
    slist("servers name without weight", b"a:1 name\n", 2, line_err(1, r"bad weight 'name'")),
    slist("servers non-printable shown escaped", b"a:1 \x01\x02\n", 2,
          line_err(1, r"bad weight '\\x01\\x02'")),
    Row("servers 10^6 accepted (jump)",
        ["locate", "--servers", "{d}/s.txt", "--algorithm", "jump", "{d}/k.txt"], 0,
        r"^user:1\t\S+\nuser:2\t", files={"s.txt": servers(10**6), "k.txt": KEYS},
        tags=["big"], timeout=300),
    Row("servers 10^6 + 1 refused", ["locate", "--servers", "{d}/s.txt", "{d}/k.txt"], 2,
        line_err(1000001, r"more than 1000000 servers"),
        files={"s.txt": servers(10**6 + 1), "k.txt": KEYS}, tags=["big"], timeout=300),
    Row("servers file missing", locate("missing.txt"), 2,
        r"missing\.txt: cannot open: No such file or directory", files={"k.txt": KEYS}),
    Row("servers file is a directory", ["locate", "--servers", "{d}", "{d}/k.txt"], 2,
        r"^chsim: error: \S+: read error: Is a directory", files={"k.txt": KEYS}),
    Row("servers file unreadable", locate(), 2, r"s\.txt: cannot open: Permission denied",
        files={"s.txt": S3, "k.txt": KEYS}, pre=chmod("s.txt", 0), tags=["nonroot"]),
    Row("keys file missing", ["locate", "--servers", "{d}/s.txt", "{d}/nokeys.txt"], 2,
        r"nokeys\.txt: cannot open: No such file or directory", files={"s.txt": S3}),
    Row("keys with NUL bytes are keys", locate(), 0, r"^a\x00b\t10\.0\.0\.\d:11211\n",
        files={"s.txt": S3, "k.txt": b"a\x00b\n"}),
    Row("keys 1 GB line on stdin",
        ["locate", "--servers", "{d}/s.txt", "-"], 2,
        r"^chsim: error: -:1: key line longer than 1048576 bytes; accepted: keys up to 1 MiB",
        files={"s.txt": S3}, stdin=lambda: long_line(GB), tags=["big"], timeout=120,
        max_read=4 * MiB),
    Row("keys 2 MB line after good lines", locate(), 2,
        r"k\.txt:3: key line longer than 1048576 bytes",
        files={"s.txt": S3, "k.txt": b"a\nb\n" + b"x" * 2_000_000 + b"\nc\n"}),

    # --- profiles, hashers, algorithms and their parameters -----------------
    algo("unknown profile", ["--profile", "nope"], 2,
         r"unknown profile 'nope' \(valid: spymemcached, .*libmemcached"),
    algo("unknown hasher (profile)", ["--profile", "twemproxy", "--hasher", "nope"], 2,
         r"unknown hasher for twemproxy 'nope' \(valid: md5"),
    algo("hasher on a profile without one", ["--profile", "uhashring", "--hasher", "md5"], 2,
         r"profile 'uhashring' takes no --hasher \(got 'md5'\)"),
    algo("unknown spymemcached hash algorithm", ["--hash-algorithm", "MD4_HASH"], 2,
         r"MD4_HASH.*KETAMA_HASH"),
    algo("unknown algorithm", ["--algorithm", "consistent"], 2,
         r"unknown algorithm 'consistent'; valid: ring, ketama, jump"),
    algo("unknown hasher (algorithm)", ["--algorithm", "ring", "--hasher", "sha3"], 2,
         r"ring: hasher must be one of md5.* \(found sha3\)"),
    algo("points per node 0", ["--algorithm", "ring", "--points", "0"], 2,
         r"points_per_node must be an integer 1\.\.100000 \(found 0\)"),
    algo("points per node 10^9", ["--algorithm", "ring", "--points", "1000000000"], 2,
         r"points_per_node must be an integer 1\.\.100000 \(found 1000000000\)"),
    algo("ring of 3 x 10^8 points (7 GB)", ["--algorithm", "ring", "--points", "100000000"], 2,
         r"points_per_node must be an integer 1\.\.100000 \(found 100000000\)",
         max_rss_mb=REFUSAL_RSS_MB),
    algo("points per node 2^32", ["--algorithm", "ring", "--points", "4294967296"], 2,
         r"--points.*4294967296"),
    algo("points per node -1", ["--algorithm", "ring", "--points", "-1"], 2, r"--points"),
    algo("bounded_load points 10^9", ["--algorithm", "bounded_load", "--points", "1000000000"], 2,
         r"bounded_load: points_per_node must be an integer 1\.\.100000"),
    algo("maglev table size not prime", ["--algorithm", "maglev", "--table-size", "65536"], 2,
         r"table_size must be a prime 2\.\.268435456 or \"auto\" \(found 65536\)"),
    algo("maglev table size 0", ["--algorithm", "maglev", "--table-size", "0"], 2, r"table"),
    algo("maglev table size 10^12", ["--algorithm", "maglev", "--table-size", "1000000000039"], 2,
         r"table_size must be a prime 2\.\.268435456 or \"auto\" \(found 1000000000039\)"),
    algo("maglev table size 2^32-5 (17 GB)",
         ["--algorithm", "maglev", "--table-size", "4294967291"], 2, r"table_size must be a prime 2\.\.268435456 or \"auto\" \(found 4294967291\)",
         max_rss_mb=REFUSAL_RSS_MB),
    algo("maglev table smaller than nodes", ["--algorithm", "maglev", "--table-size", "2"], 2,
         r"table"),
    algo("multi_probe probes 0", ["--algorithm", "multi_probe", "--probes", "0"], 2, r"probes"),
    algo("bounded_load balance factor 1", ["--algorithm", "bounded_load", "--balance-factor", "1"],
         2, r"balance"),
    algo("bounded_load balance factor NaN",
         ["--algorithm", "bounded_load", "--balance-factor", "nan"], 2, r"balance|nan"),
    algo("anchor capacity below nodes", ["--algorithm", "anchor", "--capacity", "2"], 2,
         r"capacity"),
    Row("weights on jump refused", locate("s.txt", "--algorithm", "jump"), 2,
        r"s\.txt: .*weight", files={"s.txt": b"a:1 2\nb:1 1\n", "k.txt": KEYS}),

    # --- command line ------------------------------------------------------
    Row("no subcommand", [], 2, r"^chsim: error: .*subcommand"),
    Row("unknown subcommand", ["frobnicate"], 2, r"^chsim: error: unknown subcommand 'frobnicate'; valid: .*locate"),
    Row("unknown flag", ["list", "--frob"], 2, r"^chsim: error: .*--frob"),
    Row("option without --algorithm", locate("s.txt", "--points", "100"), 2,
        r"--points needs --algorithm NAME", files={"s.txt": S3, "k.txt": KEYS}),
    Row("profile with --algorithm", locate("s.txt", "--algorithm", "jump", "--profile",
                                           "twemproxy"), 2,
        r"--profile selects a peer profile", files={"s.txt": S3, "k.txt": KEYS}),
    Row("servers option missing", ["ring"], 2, r"--servers is required"),
    Row("tune target below 1", ["tune", "--nodes", "10", "--max-over-mean", "0.5", "--quiet"], 2,
        r"max-over-mean|target"),
    Row("tune target NaN", ["tune", "--nodes", "10", "--max-over-mean", "nan", "--quiet"], 2,
        r"max-over-mean|target"),
    Row("tune confidence 1.5",
        ["tune", "--nodes", "10", "--max-over-mean", "1.1", "--confidence", "1.5", "--quiet"], 2,
        r"confidence"),
    Row("tune time budget 0", ["tune", "--nodes", "10", "--max-over-mean", "1.1",
                               "--time-budget", "0", "--quiet"], 2,
        r"--time-budget must be a number of seconds > 0, or inf .*\(got 0"),
    Row("tune time budget NaN", ["tune", "--nodes", "10", "--max-over-mean", "1.1",
                                 "--time-budget", "nan", "--quiet"], 2, r"--time-budget must be"),
    Row("tune one node", ["tune", "--nodes", "1", "--max-over-mean", "1.1", "--quiet"], 2,
        r"at least 2 nodes \(got 1\)"),
    Row("tune nodes and servers", ["tune", "--nodes", "3", "--servers", "{d}/s.txt",
                                   "--max-over-mean", "1.1", "--quiet"], 2,
        r"--nodes excludes --servers", files={"s.txt": S3}),
    Row("tune 10^15 keys", ["tune", "--nodes", "10", "--max-over-mean", "1.1", "--metric",
                            "sampled", "--keys", "1000000000000000", "--quiet"], 2,
        r"--keys.*1000000000000000.*1000000000", timeout=20),

    # --- scenarios (chsim run / validate) -------------------------------------
    scen("scenario empty file", b"", 2, r"s\.json: not valid JSON: parse error"),
    scen("scenario binary junk", junk(2048, 2), 2, r"s\.json: not valid JSON"),
    scen("scenario NUL byte in a string", sc().replace(b'"t"', b'"t\x00"'), 2,
         r"s\.json: not valid JSON"),
    scen("scenario escaped NUL in the name", sc(name="a\u0000b"), 2, ptr("/name")),
    scen("scenario sparse 1 GB of NUL", sparse(GB), 2, r"s\.json: larger than the \d+-byte limit",
         max_read=MiB),
    Row("scenario 1 GB line on stdin", ["run", "-", "-o", "{d}/out.json", "-q"], 2,
        r"^chsim: error: -: larger than the \d+-byte limit", stdin=lambda: long_line(GB),
        outputs=["out.json"], max_read=64 * MiB + MiB),
    scen("scenario truncated", sc()[:-7], 2, r"s\.json: not valid JSON: parse error at line 1"),
    scen("scenario not an object", b"[1, 2]", 2, ptr("/", r"accepted: an object")),
    scen("scenario nested 100,000 deep", deep(100_000), 2,
         r"s\.json: JSON nested more than 64 levels deep"),
    scen("scenario nested deep in a field", sc(description="X").replace(b'"X"', deep(100_000)), 2,
         r"s\.json: JSON nested more than 64 levels deep"),
    scen("scenario unknown key", sc(sed=7), 2, ptr("/sed")),
    scen("scenario key with a newline", sc(**{"ev\nts": 1}), 2,
         r"s\.json: /ev\\x0ats: unknown key 'ev\\x0ats'"),
    scen("scenario schema_version 2", sc(schema_version=2), 2, ptr("/schema_version", "found 2")),
    scen("scenario name with spaces", sc(name="my run"), 2, ptr("/name")),
    scen("scenario seed negative", sc(seed=-1), 2, ptr("/seed", "found -1")),
    scen("scenario seed 2^64", sc(seed="18446744073709551616"), 2, ptr("/seed")),
    scen("scenario trials 0", sc(trials=0), 2, ptr("/trials", "found 0")),
    scen("scenario trials 10^9", sc(trials=10**9), 2, ptr("/trials")),
    scen("scenario NaN weight", sc(nodes={"count": 2, "weights": [1, 1]}).replace(b"[1, 1]", b"[1, NaN]"),
         2, r"s\.json: not valid JSON"),
    scen("scenario weight 1e308", sc(nodes={"count": 2, "weights": [1, 1e308]}), 2,
         ptr("/nodes/weights/1", r"found 1e\+308; accepted: an integer 1\.\.2147483647")),
    scen("scenario weight negative", sc(nodes={"count": 2, "weights": [-3, 1]}), 2,
         ptr("/nodes/weights/0", "found -3")),
    scen("scenario weight 0", sc(nodes={"count": 2, "weights": [0, 1]}), 2,
         ptr("/nodes/weights/0", "found 0")),
    scen("scenario weight count mismatch", sc(nodes={"count": 3, "weights": [1, 1]}), 2,
         ptr("/nodes/weights", "found 2 weights for 3 nodes")),
    scen("scenario weight range reversed", sc(nodes={"count": 3, "weights": {"min": 5, "max": 1}}),
         2, ptr("/nodes/weights/max", "found 1; accepted: an integer 5")),
    scen("scenario node count 0", sc(nodes={"count": 0}), 2, ptr("/nodes/count", "found 0")),
    scen("scenario node count 10^7", sc(nodes={"count": 10**7}), 2,
         ptr("/nodes/count", "found 10000000.*1000000")),
    scen("scenario node count a string", sc(nodes={"count": "ten"}), 2, ptr("/nodes/count")),
    scen("scenario pattern without {i}", sc(nodes={"count": 2, "pattern": "same"}), 2,
         ptr("/nodes/pattern", "found no \\{i\\}")),
    scen("scenario pattern colliding labels", sc(nodes={"count": 300, "pattern": "h{i%256}"}), 2,
         r"s\.json: .*(duplicate|same label|twice)"),
    scen("scenario node file with a duplicate", sc(nodes={"file": "n.txt"}), 2,
         r"s\.json: /nodes/file: \S*n\.txt:4: duplicate server '10\.0\.0\.2:11211' \(first on line 2\)",
         files={"n.txt": S3 + b"10.0.0.2:11211\n"}),
    scen("scenario node file missing", sc(nodes={"file": "none.txt"}), 2,
         r"/nodes/file: \S*none\.txt: cannot open"),
    # .json is read as an Envoy configuration (docs/proxies.md), and a scenario holds no cluster
    scen("scenario node file is the scenario", sc(nodes={"file": "s.json"}), 2,
         r"/nodes/file: \S*s\.json: no cluster in the file \(a proxy configuration"),
    scen("scenario points per node 0", sc(algorithms=[{"algorithm": "ring", "points_per_node": 0}]),
         2, ptr("/algorithms/0/points_per_node", "found 0")),
    scen("scenario points per node 10^9",
         sc(algorithms=[{"algorithm": "ring", "points_per_node": 10**9}]), 2,
         ptr("/algorithms/0/points_per_node", "found 1000000000")),
    scen("scenario 10^6 nodes x 10^5 points",
         sc(nodes={"count": 10**6}, algorithms=[{"algorithm": "ring", "points_per_node": 100000}]),
         2, ptr("/algorithms/0", "ring would have 100000000000 points; the limit is 268435456"),
         max_rss_mb=REFUSAL_RSS_MB),
    scen("scenario table size not prime",
         sc(algorithms=[{"algorithm": "maglev", "table_size": 65536}]), 2,
         r"s\.json: /algorithms/0.*(prime|65536)"),
    scen("scenario table size 2^32-5 (17 GB)",
         sc(algorithms=[{"algorithm": "maglev", "table_size": 4294967291}]), 2,
         ptr("/algorithms/0/table_size", "found 4294967291; accepted: a prime 2..268435456"),
         max_rss_mb=REFUSAL_RSS_MB),
    scen("scenario unknown algorithm", sc(algorithms=[{"algorithm": "consistent"}]), 2,
         ptr("/algorithms/0/algorithm", "found \"consistent\"")),
    scen("scenario unknown profile", sc(algorithms=[{"algorithm": "ketama", "profile": "nope"}]), 2,
         ptr("/algorithms/0/profile", "nope")),
    scen("scenario unknown hasher", sc(algorithms=[{"algorithm": "ring", "hasher": "sha3"}]), 2,
         ptr("/algorithms/0/hasher", "sha3")),
    scen("scenario unknown hash algorithm",
         sc(algorithms=[{"algorithm": "ketama", "profile": "spymemcached",
                         "hash_algorithm": "MD4_HASH"}]), 2,
         r"s\.json: /algorithms/0/hash_algorithm: found \"MD4_HASH\"; accepted: one of KETAMA_HASH"),
    scen("scenario parameter the algorithm ignores",
         sc(algorithms=[{"algorithm": "jump", "points_per_node": 160}]), 2,
         ptr("/algorithms/0/points_per_node")),
    scen("scenario 10^15 keys", sc(workload={"type": "uniform", "keys": 10**15}), 2,
         ptr("/workload/keys", "found 1000000000000000; accepted: an integer 0\\.\\.1000000000000")),
    scen("scenario 10^15 zipf requests",
         sc(workload={"type": "zipf", "keys": 1000, "requests": 10**15, "exponent": 1.0}), 2,
         ptr("/workload/requests", "found 1000000000000000")),
    scen("scenario zipf exponent 0",
         sc(workload={"type": "zipf", "keys": 1000, "requests": 1000, "exponent": 0}), 2,
         ptr("/workload/exponent")),
    scen("scenario bad key shape", sc(workload={"type": "uniform", "keys": 10, "shape": "k{bogus}"}),
         2, ptr("/workload/shape")),
    scen("scenario key file missing", sc(workload={"type": "file", "path": "nokeys.txt"}), 2,
         r"/workload/path: found 'nokeys\.txt', which is not a readable file"),
    scen("scenario absurd sweep (10^9 cases)", absurd_sweep(), 2,
         ptr("/algorithms/0", "the sweep makes more than 1,000,000 cases"),
         max_rss_mb=REFUSAL_RSS_MB),
    scen("scenario sweep with a repeated value",
         sc(algorithms=[{"algorithm": "ring", "points_per_node": [160, 160]}]), 2,
         ptr("/algorithms/0", "two cases have the same id")),
    scen("scenario sweep list empty",
         sc(algorithms=[{"algorithm": "ring", "points_per_node": []}]), 2,
         ptr("/algorithms/0/points_per_node")),
    scen("scenario sweep list nested",
         sc(algorithms=[{"algorithm": "ring", "points_per_node": [[160]]}]), 2,
         ptr("/algorithms/0/points_per_node/0")),
    scen("scenario remove more nodes than exist", sc(events=[{"op": "remove", "random": 11}]), 2,
         r"s\.json: /events/0"),
    scen("scenario remove an unknown node", sc(events=[{"op": "remove", "nodes": ["nope:1"]}]), 2,
         r"s\.json: /events/0.*nope:1"),
    scen("scenario fail fraction 1.5", sc(events=[{"op": "fail", "fraction": 1.5}]), 2,
         ptr("/events/0/fraction")),
    scen("scenario reweight to 0", sc(events=[{"op": "reweight", "random": 1, "weight": 0}]), 2,
         ptr("/events/0/weight")),
    scen("validate reports the pointer", sc(trials=-1), 2, ptr("/trials", "found -1"),
         cmd="validate"),
    Row("validate results: a truncated result file", ["validate", "--results", "{d}/r.json"], 2,
        r"r\.json: not valid JSON", files={"r.json": b'{"schema_version": 1, "rows": [1, 2'}),
    scen("scenario number 1e400", sc().replace(b'"count": 10', b'"count": 1e400'), 2,
         r"s\.json: not valid JSON: number overflow parsing '1e400'"),
    Row("validate results: number 1e400", ["validate", "--results", "{d}/r.json"], 2,
        r"r\.json: not valid JSON: .*number overflow", files={"r.json": b'{"kind": 1e400}'}),
    Row("validate results: nested 100,000 deep", ["validate", "--results", "{d}/r.json"], 2,
        r"r\.json: JSON nested more than 64 levels deep",
        files={"r.json": b'{"kind": "chsim-results", "rows": ' + deep(100_000) + b"}"}),
    Row("merge: kind is a number", ["merge", "{d}/r.json", "-o", "{d}/m.json"], 2,
        r"r\.json: /kind: found a JSON number; accepted: \"chsim-results\"",
        files={"r.json": b'{"kind": 5}'}, outputs=["m.json"]),
    Row("merge: kind nested 100,000 deep", ["merge", "{d}/r.json", "-o", "{d}/m.json"], 2,
        r"r\.json: /kind: found a JSON array",
        files={"r.json": b'{"kind": ' + deep(100_000) + b'}'}, outputs=["m.json"]),
    Row("merge: result without its shard block", ["merge", "{d}/r.json", "-o", "{d}/m.json"], 2,
        r"merge: an input is not a whole chsim result file",
        files={"r.json": b'{"kind": "chsim-results", "schema_version": 1}'},
        outputs=["m.json"]),
    Row("merge: not a result file", ["merge", "{d}/s.json", "-o", "{d}/m.json"], 2,
        r"s\.json: /kind: found nothing", files={"s.json": sc()}, outputs=["m.json"]),
    scen("run --threads 0", sc(), 2, r"--threads", args=["--threads", "0"]),
    scen("run --shard 5/4", sc(), 2, r"--shard: found '5/4'", args=["--shard", "5/4"]),
    scen("run --seed -1", sc(), 2, r"--seed: found '-1'", args=["--seed", "-1"]),
    scen("run --seed 2^64", sc(), 2, r"--seed: found '18446744073709551616'",
         args=["--seed", "18446744073709551616"]),

    # --- outputs: unwritable path, full disk --------------------------------
    Row("run output in a missing directory makes it",
        ["run", "{d}/s.json", "-o", "{d}/no/such/dir/out.json", "-q"], 0, r"",
        files={"s.json": sc()}, outputs=["no", "no/such", "no/such/dir", "no/such/dir/out.json"],
        check=lambda d, _: None if json.load(open(os.path.join(d, "no/such/dir/out.json")))
        .get("rows") else "no/such/dir/out.json has no rows"),
    Row("run output is a directory", ["run", "{d}/s.json", "-o", "{d}/outdir", "-q"], 1,
        r"outdir.*(Is a directory|directory)", files={"s.json": sc(), "outdir/.keep": b""}),
    Row("run output directory not writable", ["run", "{d}/s.json", "-o", "{d}/ro/out.json", "-q"],
        1, r"out\.json.*Permission denied", files={"s.json": sc(), "ro/.keep": b""},
        pre=chmod("ro", 0o555), tags=["nonroot"]),
    Row("run output under a file is refused before the work",
        ["run", "{d}/s.json", "-o", "{d}/k.txt/dir/out.json", "-q"], 2,
        r"-o: found '.*k\.txt/dir/out\.json', but '.*k\.txt' is not a folder; accepted: a file "
        r"path whose folders exist or can be made$",
        max_read=MiB, files={"s.json": sc(workload={"type": "file", "path": "k.txt"}),
                             "k.txt": numbered_keys(1_000_000)}),
    Row("run output on a full disk (RLIMIT_FSIZE)", ["run", "{d}/s.json", "-o", "{d}/out.json", "-q"],
        1, r"out\.json: cannot write: File too large", files={"s.json": sc()}, fsize=4096,
        outputs=["out.json"]),
    Row("run keeps an old result on a full disk", ["run", "{d}/s.json", "-o", "{d}/out.json", "-q"],
        1, r"out\.json: cannot write: File too large",
        files={"s.json": sc(), "out.json": b'{"old": true}\n'}, fsize=4096, outputs=["out.json"],
        check=lambda d, _: None if open(os.path.join(d, "out.json")).read() == '{"old": true}\n'
        else "the old out.json was changed"),
    Row("merge output on a full disk", ["merge", "{d}/a.json", "-o", "{d}/m.json"], 1,
        r"m\.json: cannot write: File too large", files={"s.json": sc()},
        pre=lambda d: subprocess.run([CHSIM, "run", os.path.join(d, "s.json"), "-o",
                                      os.path.join(d, "a.json"), "-q"], check=True),
        fsize=4096, outputs=["m.json", "a.json"]),
    Row("tune output in a missing directory makes it",
        ["tune", "--nodes", "10", "--max-over-mean", "1.5", "--draws", "20", "--quiet",
         "--json", "{d}/no/dir/t.json"], 0, r"", outputs=["no", "no/dir", "no/dir/t.json"],
        check=lambda d, _: None if os.path.getsize(os.path.join(d, "no/dir/t.json")) > 0
        else "no/dir/t.json is empty"),
    Row("tune output directory not writable",
        ["tune", "--nodes", "10", "--max-over-mean", "1.5", "--draws", "20", "--quiet",
         "--json", "{d}/ro/t.json"], 1, r"t\.json.*Permission denied",
        files={"ro/.keep": b""}, pre=chmod("ro", 0o555), tags=["nonroot"]),
    Row("tune output on a full disk (RLIMIT_FSIZE)",
        ["tune", "--nodes", "10", "--max-over-mean", "1.5", "--draws", "20", "--quiet",
         "--json", "{d}/t.json"], 1, r"t\.json: cannot write: File too large",
        fsize=256, outputs=["t.json"]),
]


# ---------------------------------------------------------------------------
# Runner.

def make_files(d, files):
  for name, content in files.items():
    path = os.path.join(d, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if callable(content):
      content(path)
    else:
      with open(path, "wb") as f:
        f.write(content)


def listing(d):
  out = set()
  for root, dirs, names in os.walk(d):
    for n in names + dirs:
      out.add(os.path.relpath(os.path.join(root, n), d))
  return out


def rss_mb(pid):
  try:
    with open("/proc/%d/status" % pid) as f:
      for line in f:
        if line.startswith("VmRSS:"):
          return int(line.split()[1]) // 1024
  except OSError:
    pass
  return 0


def child_setup(fsize):
  def setup():
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # as a shell would leave it
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if fsize is not None:
      resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
  return setup


def feed(proc, stdin):
  try:
    chunks = stdin() if callable(stdin) else [stdin]
    for c in chunks:
      proc.stdin.write(c)
  except (BrokenPipeError, OSError):
    pass  # chsim refused early and closed its end: that is allowed
  finally:
    try:
      proc.stdin.close()
    except OSError:
      pass


NOBODY = 65534  # Debian's nobody / nogroup


def as_nonroot(chsim):
  """The command prefix that runs chsim without root's privileges, for the rows about
  permission bits (root ignores them): setpriv (util-linux) drops to nobody, running a copy
  of chsim in a world-readable directory (the build tree may sit in a private one)."""
  if os.geteuid() != 0:
    return [chsim]
  setpriv = shutil.which("setpriv")
  if not setpriv:
    raise RuntimeError("setpriv not found (Debian package util-linux): it runs the permission "
                       "rows as nobody, since root ignores permission bits")
  global NONROOT_DIR
  if NONROOT_DIR is None:
    NONROOT_DIR = tempfile.mkdtemp(prefix="chsim-hostile-bin-")
    os.chmod(NONROOT_DIR, 0o755)
    shutil.copy2(chsim, os.path.join(NONROOT_DIR, "chsim"))
    os.chmod(os.path.join(NONROOT_DIR, "chsim"), 0o755)
  return [setpriv, "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", "--",
          os.path.join(NONROOT_DIR, "chsim")]


NONROOT_DIR = None


def exited(proc):
  """True once the child has exited, leaving it unreaped (its /proc entry stays readable)."""
  return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def bytes_read(pid):
  """Bytes the process read through read(2) and friends (rchar of /proc/PID/io)."""
  with open("/proc/%d/io" % pid) as f:
    for line in f:
      if line.startswith("rchar:"):
        return int(line.split()[1])
  raise RuntimeError("no rchar in /proc/%d/io" % pid)


_RSS_FACTORS = {}


def rss_factor(chsim):
  """How many times a release build's memory the binary takes for the same work:
  ThreadSanitizer's shadow and runtime take 5-10x (its documentation), measured 5.3x
  here on a refusal row; AddressSanitizer's about 3x; 1 for a plain build. Read once
  from the libraries the binary names."""
  if chsim not in _RSS_FACTORS:
    with open(chsim, "rb") as f:
      image = f.read()
    _RSS_FACTORS[chsim] = 8 if b"libtsan.so" in image else 3 if b"libasan.so" in image else 1
  return _RSS_FACTORS[chsim]


def run_row(chsim, row):
  """Returns (ok, detail)."""
  with tempfile.TemporaryDirectory(prefix="chsim-hostile-") as d:
    try:
      make_files(d, row.files)
      if row.pre:
        row.pre(d)
      before = listing(d)
      prefix = [chsim]
      if "nonroot" in row.tags:
        os.chmod(d, 0o755)  # nobody must reach the row's files
        try:
          prefix = as_nonroot(chsim)
        except RuntimeError as e:
          return False, str(e)
      args = prefix + [a.replace("{d}", d) for a in row.args]
      t0 = time.monotonic()
      proc = subprocess.Popen(args, cwd=d, stdin=subprocess.PIPE if row.stdin else subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              preexec_fn=child_setup(row.fsize))
      feeder = None
      if row.stdin:
        feeder = threading.Thread(target=feed, args=(proc, row.stdin), daemon=True)
        feeder.start()
      # Wait, watching the child's memory: a hostile input must not take the
      # shared machine down with it (killed at row.max_rss_mb).
      deadline = t0 + row.timeout
      out_chunks, err_chunks = [], []
      readers = [threading.Thread(target=lambda s, b: b.append(s.read()), args=(proc.stdout, out_chunks),
                                  daemon=True),
                 threading.Thread(target=lambda s, b: b.append(s.read()), args=(proc.stderr, err_chunks),
                                  daemon=True)]
      for t in readers:
        t.start()
      peak = 0
      # Refusal limits scale with a sanitizer's memory; the machine's guard does not.
      max_rss = row.max_rss_mb * (rss_factor(chsim) if row.max_rss_mb <= REFUSAL_RSS_MB else 1)
      while not exited(proc):
        peak = max(peak, rss_mb(proc.pid))
        if peak > max_rss or time.monotonic() > deadline:
          proc.kill()
          proc.wait()
          why = ("used more than %d MB" % max_rss if peak > max_rss else
                 "hung: no exit within %ds" % row.timeout)
          return False, why
        time.sleep(0.02)
      read = bytes_read(proc.pid)  # the zombie's totals, before it is reaped
      proc.wait()
      for t in readers:
        t.join()
      out, err = b"".join(out_chunks), b"".join(err_chunks)
      if feeder:
        feeder.join(5)
      secs = time.monotonic() - t0
      problems = []
      rc = proc.returncode
      if rc < 0:
        problems.append("killed by signal %d (%s)" % (-rc, signal.Signals(-rc).name))
      elif rc != row.rc:
        problems.append("exit %d, expected %d" % (rc, row.rc))
      err_text = err.decode("utf-8", "replace")
      out_text = out.decode("latin-1")
      if row.max_read is not None and read > row.max_read:
        problems.append("read %d bytes; a refusal must come before reading the input (at most %d)"
                        % (read, row.max_read))
      if CRASH_MARKERS.search(err_text):
        problems.append("crash marker in stderr")
      if rc != 0:
        lines = [l for l in err_text.split("\n")
                 if l.startswith("chsim: error") and not SUMMARY.match(l)]
        if len(lines) != 1:
          problems.append("expected one 'chsim: error' line, found %d" % len(lines))
        elif len(lines[0]) > MAX_ERROR_LINE:
          problems.append("error line is %d bytes long" % len(lines[0]))
        elif rc == row.rc and not re.search(row.err, lines[0]):
          problems.append("message does not match /%s/" % row.err)
        shown = lines[0] if len(lines) == 1 else err_text
      else:
        if not re.search(row.err, out_text):
          problems.append("stdout does not match /%s/" % row.err)
        shown = out_text[:200]
      # Nothing left behind but what the row made or may make; outputs whole or absent.
      extra = listing(d) - before - set(row.outputs)
      if extra:
        problems.append("left files: %s" % ", ".join(sorted(extra)))
      for name in row.outputs:
        p = os.path.join(d, name)
        if rc != 0 and os.path.exists(p) and name not in before:
          problems.append("output %s exists after a failure" % name)
      if row.check:
        msg = row.check(d, out_text)
        if msg:
          problems.append(msg)
      detail = "%.1fs: %s" % (secs, shown.strip()[:MAX_ERROR_LINE].replace(d, "<dir>"))
      if problems:
        return False, "; ".join(problems) + " | " + detail
      return True, detail
    finally:
      for root, dirs, _ in os.walk(d):  # undo chmods so the cleanup works
        for n in dirs:
          os.chmod(os.path.join(root, n), 0o755)


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("chsim")
  ap.add_argument("--only", default="")
  ap.add_argument("--list", action="store_true")
  ap.add_argument("--skip-tag", action="append", default=[])
  ap.add_argument("--tag", action="append", default=[])
  ap.add_argument("--timeout-scale", type=float, default=1.0,
                  help="multiply every row's timeout (sanitizer builds are slower)")
  a = ap.parse_args()
  a.chsim = os.path.abspath(a.chsim)
  global CHSIM
  CHSIM = a.chsim
  rows = [r for r in ROWS if a.only in r.name]
  skip = set(a.skip_tag)
  rows = [r for r in rows if not (r.tags & skip)]
  if a.tag:
    rows = [r for r in rows if r.tags & set(a.tag)]
  names = [r.name for r in ROWS]
  dup = {n for n in names if names.count(n) > 1}
  if dup:
    print("duplicate row names: %s" % dup)
    return 1
  if a.list:
    for r in rows:
      print("%-45s exit %d  %s" % (r.name, r.rc, " ".join(r.args)))
    print("%d rows" % len(rows))
    return 0
  failed = 0
  for r in rows:
    r.timeout = int(r.timeout * a.timeout_scale)
    ok, detail = run_row(a.chsim, r)
    if r.xfail:
      status = "XFAIL" if not ok else "XPASS"
      if ok:
        failed += 1
        detail += " (passes now: remove its xfail marker)"
      else:
        detail += " [known: %s]" % r.xfail
    else:
      status = "ok" if ok else "FAIL"
      failed += not ok
    print("%-5s %-45s %s" % (status, r.name, detail), flush=True)
  print("%d rows, %d failed (%d left out by tag)" % (len(rows), failed, len(ROWS) - len(rows)))
  if NONROOT_DIR:
    shutil.rmtree(NONROOT_DIR, ignore_errors=True)
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
