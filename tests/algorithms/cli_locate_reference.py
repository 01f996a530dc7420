#!/usr/bin/python3
"""`chsim locate --algorithm NAME` against an independent reference, key for key.

Each algorithm is re-implemented here from its paper and the hash choices that chsim
documents in its headers (node seed = Mix64(xxh3(label)), Mix64(x) = SplitMix64's first
output for seed x (Steele et al. 2014), Mix2(a, b) =
Mix64(Mix64(a) ^ b), Lemire's Bounded(x, r) = (x * r) >> 64), in plain Python over libxxhash
itself (ctypes), never through chsim's code:

  ring          every point hash(label + "-" + i) & 0xffffffff of every node (float32 weighted
                point counts), first point >= the key's low 32 bits, wrapping; equal points:
                the later node wins (Karger et al. 1997; libketama)
  modulo        h mod n
  jump          Guava's consistentHash(long, int) (Lamping & Veach 2014)
  memento       jump, when nothing was removed (Coluzzi et al. 2023)
  rendezvous    argmax over nodes of Mix64(Mix64(h) ^ seed), or of -w / ln(u) with weights
                (Thaler & Ravishankar 1998; Schindelhauer & Schomaker 2005)
  maglev        the paper's population loop, offset = Mix2(seed, "offset") mod M,
                skip = Mix2(seed, "skip") mod (M - 1) + 1, weighted turns; table[h mod M]
                (Eisenbud et al. 2016)
  multi_probe   21 probes Mix64(h) + i * (Mix64(Mix64(h) ^ "probe") | 1), the node point
                closest clockwise over all probes (Appleton & O'Reilly 2015)
  anchor        GETBUCKET of AnchorHash, a = 2n, buckets n..a-1 removed (Mendelson et al. 2021)
  bounded_load  keys in file order, the first node clockwise on the ring with load below
                max(ceil(c m / n), ceil(m / n)), m counting this key (Mirrokni et al. 2018)

Usage: cli_locate_reference.py CHSIM --algorithm NAME --servers FILE --keys FILE
Exit 0 when every line of chsim's output equals the reference's."""
import argparse
import bisect
import ctypes
import math
import subprocess
import sys

import numpy as np

M64 = (1 << 64) - 1
_xxh = ctypes.CDLL("libxxhash.so.0")
_xxh.XXH3_64bits.restype = ctypes.c_uint64
_xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def xxh3(b):
    return _xxh.XXH3_64bits(b, len(b))


def mix64(z):  # SplitMix64's first output for seed z: gamma added, then Stafford's Mix13
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix2(a, b):
    return mix64(mix64(a) ^ b)


def bounded(x, r):
    return (x * r) >> 64


def seed(label):
    return mix64(xxh3(label.encode()))


def float_points(weight, total, n, base=160):
    f = np.float32
    v = f(weight) / f(total) * f(base) / f(4) * f(n)
    return int(math.floor(f(float(v) + 1e-10))) * 4


def ring_points(nodes, points=160):
    weighted = any(w != 1 for _, w in nodes)
    total = sum(w for _, w in nodes)
    owner = {}
    for idx, (label, w) in enumerate(nodes):  # later nodes overwrite: the later wins a tie
        count = float_points(w, total, len(nodes)) if weighted else points
        for i in range(count):
            owner[xxh3(f"{label}-{i}".encode()) & 0xFFFFFFFF] = idx
    pts = sorted(owner)
    return pts, [owner[p] for p in pts]


def ring_first(pts, h):
    j = bisect.bisect_left(pts, h & 0xFFFFFFFF)
    return 0 if j == len(pts) else j


def jump(key, n):
    state, cand = key, 0
    while True:
        state = (2862933555777941757 * state + 1) & M64
        nxt = int((cand + 1) / (((state >> 33) + 1) / 2.0 ** 31))
        if 0 <= nxt < n:
            cand = nxt
        else:
            return cand


def maglev_table(nodes, m=65537):
    backs = []
    for label, w in nodes:
        s = seed(label)
        backs.append([mix2(s, 0x6F6666736574) % m, mix2(s, 0x736B6970) % (m - 1) + 1, w])
    w_max = max(b[2] for b in backs)
    entry = [None] * m
    nxt = [b[0] for b in backs]
    filled, rnd = 0, 1
    while filled < m:
        for i, (_, skip, w) in enumerate(backs):
            if filled >= m:
                break
            if w != w_max and (rnd * w) // w_max == ((rnd - 1) * w) // w_max:
                continue
            c = nxt[i]
            while entry[c] is not None:
                c = (c + skip) % m
            entry[c] = i
            nxt[i] = (c + skip) % m
            filled += 1
        rnd += 1
    return entry


def reference(name, nodes, hashes):
    n = len(nodes)
    if name == "modulo":
        return [h % n for h in hashes]
    if name in ("jump", "memento"):
        return [jump(h, n) for h in hashes]
    if name == "ring":
        pts, owners = ring_points(nodes)
        return [owners[ring_first(pts, h)] for h in hashes]
    if name == "rendezvous":
        seeds = [seed(label) for label, _ in nodes]
        out = []
        for h in hashes:
            if all(w == 1 for _, w in nodes):
                scores = [mix64(mix64(h) ^ s) for s in seeds]
            else:
                scores = [-w / math.log((((mix64(mix64(h) ^ s)) >> 11) + 0.5) * 2.0 ** -53)
                          for s, (_, w) in zip(seeds, nodes)]
            out.append(max(range(n), key=lambda i: (scores[i], -i)))
        return out
    if name == "maglev":
        table = maglev_table(nodes)
        return [table[h % len(table)] for h in hashes]
    if name == "multi_probe":
        pts = [seed(label) for label, _ in nodes]
        out = []
        for h in hashes:
            h1 = mix64(h)
            h2 = mix64(h1 ^ 0x70726F6265) | 1
            best = None
            for i in range(21):
                probe = (h1 + i * h2) & M64
                for j, p in enumerate(pts):
                    d = (p - probe) & M64
                    if best is None or d < best[0]:
                        best = (d, j)
            out.append(best[1])
        return out
    if name == "anchor":
        a = 2 * n
        A = [0] * n + list(range(n, a))
        K = list(range(a))
        out = []
        for h in hashes:
            k = mix64(h)
            b = bounded(k, a)
            while A[b] > 0:
                x = bounded(mix64(k ^ mix64(b)), A[b])
                while A[x] >= A[b]:
                    x = K[x]
                b = x
            out.append(b)
        return out
    if name == "bounded_load":
        pts, owners = ring_points(nodes)
        loads, out = [0] * n, []
        for m, h in enumerate(hashes, start=1):
            cap = max(math.ceil(1.25 * m / n), (m + n - 1) // n)
            j = ring_first(pts, h)
            while loads[owners[j]] >= cap:
                j = (j + 1) % len(pts)
            loads[owners[j]] += 1
            out.append(owners[j])
        return out
    raise SystemExit(f"no reference for {name}")


def read_servers(path):
    nodes = []
    for line in open(path):
        tok = line.split("#", 1)[0].split()
        if tok:
            nodes.append((tok[0], int(tok[1]) if len(tok) > 1 else 1))
    return nodes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("chsim")
    ap.add_argument("--algorithm", required=True)
    ap.add_argument("--servers", required=True)
    ap.add_argument("--keys", required=True)
    a = ap.parse_args()
    nodes = read_servers(a.servers)
    with open(a.keys, "rb") as f:
        keys = f.read().split(b"\n")[:-1]
    want = [keys[i] + b"\t" + nodes[o][0].encode()
            for i, o in enumerate(reference(a.algorithm, nodes, [xxh3(k) for k in keys]))]
    p = subprocess.run([a.chsim, "locate", "--servers", a.servers, "--algorithm", a.algorithm,
                        a.keys], capture_output=True)
    if p.returncode != 0:
        print(f"chsim exited {p.returncode}: {p.stderr.decode().strip()}")
        return 1
    got = p.stdout.split(b"\n")
    if got[-1] == b"":
        got.pop()
    bad = [i for i in range(max(len(got), len(want)))
           if (got[i] if i < len(got) else None) != (want[i] if i < len(want) else None)]
    used = {w.split(b"\t")[1] for w in want}
    print(f"{a.algorithm} on {a.servers}: {len(want)} keys, {len(want) - len(bad)} agree with "
          f"the reference; servers used: {len(used)} of {len(nodes)}")
    for i in bad[:5]:
        print(f"  line {i + 1}: chsim {got[i] if i < len(got) else None!r}, reference "
              f"{want[i] if i < len(want) else None!r}")
    if len(used) < min(len(nodes), 2):
        print("  the reference itself sends every key to one server: the data proves nothing")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
