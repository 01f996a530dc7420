# SPDX-License-Identifier: Apache-2.0
"""`import chsim`: the topology model and Algorithm.locate_replicas, against truths written here.

- chsim.topology() lists the levels innermost first, each within the next;
- Algorithm.domains reads the host=/rack=/zone= columns of the node lines, and add() extends
  them, refusing a node that breaks the nesting with nothing changed;
- locate_replicas(keys, k) is a (keys, k) array whose rows are the k highest rendezvous scores
  computed here in Python (topk), and the ring walk over Ring.points() (walk), and it equals
  `chsim locate --replicas K` line for line.
"""
import bisect
import os
import subprocess
import sys

import numpy as np
import pytest

import chsim

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "algorithms"))
import cli_locate_reference as ref  # noqa: E402  (xxh3, Mix64, the rendezvous seeds)

LABELS = [f"10.0.3.{i}:11211" for i in range(1, 17)]
LINES = [f"{lab} rack=r{i % 4} zone=z{i % 4 % 2}" for i, lab in enumerate(LABELS)]
KEYS = [f"key:{i}".encode() for i in range(500)]


def test_topology_catalog():
    t = chsim.topology()
    assert [lv["name"] for lv in t["levels"]] == ["host", "rack", "zone"]
    assert [lv["within"] for lv in t["levels"]] == ["rack", "zone", None]
    assert [lv["scenario_field"] for lv in t["levels"]] == ["hosts", "racks", "zones"]


def test_domains_and_add():
    a = chsim.Algorithm("rendezvous", LINES)
    assert a.domains == {"rack": [f"r{i % 4}" for i in range(16)],
                         "zone": [f"z{i % 4 % 2}" for i in range(16)]}
    assert a.add("10.0.9.1:11211", rack="r1", zone="z1") == 16
    assert a.domains["rack"][16] == "r1"
    with pytest.raises(ValueError, match="rack 'r1' lies in zone 'z1' and in zone 'z0'"):
        a.add("10.0.9.2:11211", rack="r1", zone="z0")
    with pytest.raises(ValueError, match="has no zone but the nodes before do"):
        a.add("10.0.9.3:11211", rack="r1")
    assert len(a) == 17 and "10.0.9.2:11211" not in a
    assert chsim.Algorithm("jump", 5).domains == {}
    with pytest.raises(ValueError, match="rack 'r0' lies in zone 'a'"):
        chsim.Algorithm("jump", ["10.0.0.1 rack=r0 zone=a", "10.0.0.2 rack=r0 zone=b"])


def topk(key, k):
    mixed = ref.mix64(ref.xxh3(key))
    draws = [ref.mix64(mixed ^ ref.seed(lab)) for lab in LABELS]
    return sorted(range(len(LABELS)), key=lambda i: (-draws[i], i))[:k]


def test_locate_replicas_topk():
    a = chsim.Algorithm("rendezvous", LINES)
    got = a.locate_replicas(KEYS, 3, strategy="topk")
    assert got.shape == (len(KEYS), 3) and got.dtype == np.uint32
    assert [list(row) for row in got] == [topk(key, 3) for key in KEYS]
    assert list(got[:, 0]) == list(a.locate_batch(KEYS))


def test_locate_replicas_walk_and_cli(tmp_path):
    ring = chsim.Ring(LINES, profile="libmemcached")
    pts = ring.points()
    points, owners = list(pts["point"]), list(pts["node"])
    import hashlib
    for k in (1, 3):
        got = ring.locate_replicas(KEYS, k, strategy="walk")
        for key, row in zip(KEYS, got):
            h = int.from_bytes(hashlib.md5(key).digest()[:4], "little")
            j = bisect.bisect_left(points, h)
            want = []
            for step in range(len(points)):
                o = owners[(j + step) % len(points)]
                if o not in want:
                    want.append(o)
            assert list(row) == want[:k], key
    servers = tmp_path / "s.txt"
    servers.write_text("".join(line + "\n" for line in LINES))
    out = subprocess.run([os.environ["CHSIM"], "locate", "--servers", str(servers), "--profile",
                          "libmemcached", "--replicas", "3", "--domain", "rack", "-"],
                         input=b"".join(k + b"\n" for k in KEYS), capture_output=True, check=True)
    cli = [line.split(b"\t")[1:] for line in out.stdout.splitlines()]
    got = ring.locate_replicas(KEYS, 3, domain="rack")
    assert [[LABELS[i].encode() for i in row] for row in got] == cli
    assert all(len({LINES[i].split()[1] for i in row}) == 3 for row in got)


def test_locate_replicas_refusals():
    a = chsim.Algorithm("rendezvous", LINES)
    with pytest.raises(ValueError, match="accepted: host, rack, zone"):
        a.locate_replicas(KEYS, 2, domain="dc")
    with pytest.raises(ValueError, match="does not place copies by failure domain"):
        a.locate_replicas(KEYS, 2, strategy="topk", domain="host")
    with pytest.raises(ValueError, match="strategy walk does not apply to rendezvous"):
        a.locate_replicas(KEYS, 2, strategy="walk")
    with pytest.raises(ValueError, match="17 distinct nodes; 16 live"):
        a.locate_replicas(KEYS, 17)
