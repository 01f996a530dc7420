# SPDX-License-Identifier: Apache-2.0
"""Every profile and every algorithm of the registry maps 10^4 keys exactly as `chsim
locate` does, through every way keys can be given (a list of bytes or str, numpy S, U and
object arrays, one key at a time), and again after removing a node as `chsim locate
--remove` does."""
import random

import numpy as np
import pytest

import chsim
from conftest import cli, cli_error

PROFILES = [p["name"] for p in chsim.profiles()]
ENGINES = {p["name"]: p["engine"] for p in chsim.profiles()}
ALGORITHMS = {a["name"]: a for a in chsim.algorithms()}
N_KEYS = 10_000


def make_keys():
    """10^4 key lines: ASCII, UTF-8 text, and raw bytes (not UTF-8), no newline in any."""
    r = random.Random(7)
    keys = [b"", b"user:1"]
    while len(keys) < N_KEYS:
        kind = len(keys) % 3
        if kind == 0:
            keys.append(b"user:%d" % r.randrange(10**9))
        elif kind == 1:
            keys.append(("ключ-%d-ü" % r.randrange(10**6)).encode())
        else:
            keys.append(bytes(r.choice([b for b in range(1, 256) if b != 10])
                              for _ in range(r.randrange(1, 40))))
    return keys


KEYS = make_keys()
SERVERS = ["10.0.%d.%d:11211" % (i // 200, i % 200 + 1) for i in range(37)]
# Weights spelled out, names for twemproxy, a port other than 11211.
WEIGHTED = ["10.1.0.%d:%d %d name%d" % (i + 1, 11211 + i % 2, 1 + i % 3, i) for i in range(23)]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("locate")
    (d / "keys.txt").write_bytes(b"\n".join(KEYS) + b"\n")
    (d / "servers.txt").write_text("\n".join(SERVERS) + "\n")
    (d / "weighted.txt").write_text("\n".join(WEIGHTED) + "\n")
    return d


def cli_labels(*args):
    out = cli("locate", *args).split(b"\n")[:-1]
    assert len(out) == N_KEYS
    return [line.rsplit(b"\t", 1)[1].decode() for line in out]


def labels(placement, keys):
    idx = placement.locate_batch(keys)
    assert isinstance(idx, chsim.NodeIndices) and idx.dtype == np.uint32
    return list(idx.labels[idx])


def removable(placement):
    """A node the algorithm can remove: one from the middle, or the last added."""
    nodes = placement.nodes
    return nodes[len(nodes) // 2] if placement.capabilities["removal"] == "any" else nodes[-1]


# Profiles whose program refuses weighted.txt (weights, or a NAME that is not a
# numeric HAProxy id): Python refuses it as chsim locate does.
REFUSES_WEIGHTED = {"haproxy": "is not an HAProxy server id", "groupcache": "takes no weights",
                    "pymemcache": "takes no weights"}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("servers", ["servers.txt", "weighted.txt"])
def test_ring_equals_chsim_locate(files, profile, servers):
    path = files / servers
    if servers == "weighted.txt" and profile in REFUSES_WEIGHTED:
        with pytest.raises(ValueError, match=REFUSES_WEIGHTED[profile]):
            chsim.Ring(str(path), profile=profile)
        assert REFUSES_WEIGHTED[profile] in cli_error("locate", "--servers", path, "--profile",
                                                      profile, files / "keys.txt")
        return
    ring = chsim.Ring(str(path), profile=profile)
    assert labels(ring, KEYS) == cli_labels("--servers", path, "--profile", profile,
                                            files / "keys.txt")
    gone = removable(ring)
    ring.remove(gone)
    assert gone not in ring
    assert labels(ring, KEYS) == cli_labels("--servers", path, "--profile", profile,
                                            "--remove", gone, files / "keys.txt")


@pytest.mark.parametrize("name", ALGORITHMS)
def test_algorithm_equals_chsim_locate(files, name):
    weighted = ALGORITHMS[name]["capabilities"]["weights"]
    path = files / ("weighted.txt" if weighted else "servers.txt")
    expected = cli_labels("--servers", path, "--algorithm", name, files / "keys.txt")
    assert labels(chsim.Algorithm(name, path), KEYS) == expected
    # The same list given as lines.
    lines = (WEIGHTED if weighted else SERVERS)
    algo = chsim.Algorithm(name, lines)
    assert labels(algo, KEYS) == expected
    gone = removable(algo)
    algo.remove(gone)
    if algo.capabilities["stateful"]:  # bounded_load: forget the keys placed above
        algo.reset()
    assert labels(algo, KEYS) == cli_labels("--servers", path, "--algorithm", name,
                                            "--remove", gone, files / "keys.txt")


@pytest.mark.parametrize("name", ["ring", "maglev", "rendezvous", "multi_probe", "power"])
def test_parameters_equal_chsim_flags(files, name):
    spec = ALGORITHMS[name]
    params, flags = {}, []
    for p in spec["parameters"]:
        if p["type"] == "integer" and p["name"] != "table_size":
            value = min(p["maximum"], p["default"] + 3)
        elif p["name"] == "table_size":
            value = 1009
        elif p.get("choices") and "md5" in p["choices"]:
            value = "md5"
        else:
            continue
        params[p["name"]] = value
        flags += ["--" + p["name"].replace("_", "-"), str(value)]
    assert params, name
    algo = chsim.Algorithm(name, files / "servers.txt", **params)
    assert labels(algo, KEYS) == cli_labels("--servers", files / "servers.txt", "--algorithm",
                                            name, *flags, files / "keys.txt")


def test_every_key_form_gives_the_same_answer(files):
    ring = chsim.Ring(files / "servers.txt", profile="spymemcached")
    text = [k.decode() for k in KEYS if _utf8(k)]
    as_bytes = [t.encode() for t in text if not t.endswith("\0")]
    expected = list(ring.locate_batch(as_bytes))
    assert list(ring.locate_batch(np.array(as_bytes, dtype=object))) == expected
    assert list(ring.locate_batch(np.array(as_bytes))) == expected  # dtype S
    strs = [b.decode() for b in as_bytes]
    assert list(ring.locate_batch(strs)) == expected
    assert list(ring.locate_batch(tuple(strs))) == expected
    assert list(ring.locate_batch(np.array(strs))) == expected  # dtype U
    assert list(ring.locate_batch(np.array(strs)[::-1][::-1])) == expected  # a strided view
    assert list(ring.locate_batch(iter(strs))) == expected
    one = [ring.locate(k) for k in strs[:500]]
    assert one == list(ring.locate_batch(strs[:500]).labels[expected[:500]])


def test_list_keys_of_every_length():
    """A list's keys are copied out of their objects by length class (under 4, 4-7, 8-15,
    16-32, longer): every length 0..80, as str (ASCII and not) and bytes, in one list, maps
    as the same keys in a numpy bytes array do."""
    algo = chsim.Algorithm("ring", SERVERS, hasher="xxh3")
    ascii_keys = ["".join("abcdefghij"[(i + n) % 10] for i in range(n)) for n in range(81)]
    wide = ["é" * n for n in range(41)]  # 2 bytes each in UTF-8: lengths 0..80
    raw = [bytes((i * 7 + n) % 255 + 1 for i in range(n)) for n in range(81)]
    mixed = ascii_keys + wide + raw
    as_bytes = [k if isinstance(k, bytes) else k.encode() for k in mixed]
    expected = list(algo.locate_batch(np.array(as_bytes)))  # dtype S: read in place
    assert list(algo.locate_batch(mixed)) == expected
    assert [algo.locate(k) for k in mixed] == list(algo.locate_batch(mixed).labels[expected])
    for n in (1, 1023, 1024, 1025, 3000):  # blocks of 1,024 keys, and their edges
        keys = (mixed * (n // len(mixed) + 1))[:n]
        assert list(algo.locate_batch(keys)) == (expected * (n // len(mixed) + 1))[:n]


def _utf8(b):
    try:
        b.decode()
        return True
    except UnicodeDecodeError:
        return False


def test_points_equal_chsim_ring(files):
    for profile in PROFILES:
        if profile in REFUSES_WEIGHTED or ENGINES[profile] != "points":
            continue  # refused above; no 32-bit points (ProfileMap: chsim ring prints its own)
        ring = chsim.Ring(files / "weighted.txt", profile=profile)
        pts = ring.points()
        assert pts.dtype.names == ("point", "node")
        expected = cli("ring", "--servers", files / "weighted.txt", "--profile", profile)
        got = "".join("%d\t%s\n" % (p, ring.labels[n]) for p, n in pts).encode()
        assert got == expected, profile


def test_ids_survive_add_and_remove():
    algo = chsim.Algorithm("anchor", ["a:1", "b:1", "c:1"], capacity=8)
    assert algo.add("d:1") == 3
    algo.remove("b:1")
    assert list(algo.live_ids) == [0, 2, 3] and algo.nodes == ["a:1", "c:1", "d:1"]
    idx = algo.locate_batch([b"k%d" % i for i in range(1000)])
    assert set(idx.labels[idx]) == {"a:1", "c:1", "d:1"}
    assert list(idx.labels) == ["a:1", "b:1", "c:1", "d:1"]
    assert algo.add("b:1") == 4  # a new id: ids are never reused
    shares = algo.shares()
    assert shares is None or abs(sum(shares) - 1) < 1e-9


def test_hash_equals_the_real_libraries():
    """chsim.hash against tests/compat/golden/hashers.tsv (generated from libhashkit, zlib,
    libxxhash, OpenSSL and spymemcached)."""
    from conftest import SOURCE
    rows = [l.split("\t") for l in open(SOURCE + "/tests/compat/golden/hashers.tsv")
            if l.strip() and not l.startswith("#")]
    by_hasher = {}
    for name, hexkey, value in rows:
        by_hasher.setdefault(name, []).append((bytes.fromhex(hexkey), int(value)))
    registered = {h["name"] for h in chsim.hashers()}
    assert len(registered & set(by_hasher)) >= 12
    for name, pairs in by_hasher.items():
        if name not in registered:
            continue  # a golden column of something else (a variant the profiles use)
        keys = [k for k, _ in pairs]
        assert list(chsim.hash(name, keys)) == [v for _, v in pairs], name
        assert chsim.hash(name, keys[-1]) == pairs[-1][1]
