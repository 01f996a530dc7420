#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
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
  jumpback_anchor
                jumpback below, when nothing was removed (hash4j's jumpBackAnchorHash, 2025)
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
  dx            the first working bucket of Bounded(x_i, 2n), x_i the SplitMix64 stream of h
                (x_i = Mix64(h + i * gamma)); buckets 0..n-1 work (Dong & Wang 2021)
  power         f(k, m) over the low bits' highest set bit, g = jump's walk from m/2 - 1 with
                uniforms from SplitMix64(k ^ "power"), k = Mix64(h) (Leu 2023); the offset in
                level j is Mix2(k, j), or Mix64(k ^ j) with --level-hash mix64
  flip          fliphashPow2 / fliphashGeneral with H(k, (a, b)) = Mix2(k, a + (b << 16)), 64
                draws at most, k = Mix64(h) (Masson & Lee 2024)
  jumpback      the jump sequence walked backwards over power-of-two levels, random bits from
                SplitMix64(h), as hash4j's jumpBackHash (Ertl 2024)
  binomial      k mod E relocated in its level by Mix2(k, level mask), 4 redraws from
                SplitMix64(k ^ "binom"), then k mod E/2 relocated (Coluzzi et al. 2024)
  straw2        Ceph's straw2 bucket (Weil et al. 2006; docs/design.md, CRUSH): keys hashed by
                ceph_str_hash_rjenkins (Jenkins' lookup2), x = that hash; node i is device i of
                weight w * 0x10000 and draws (ln(hash32_3(x, i, 0) & 0xffff) - 2^48) / weight,
                truncated; the first maximum wins. ln and its tables are written here from the
                rules docs/design.md states, exact in Python's decimal arithmetic

Usage: cli_locate_reference.py CHSIM --algorithm NAME --servers FILE --keys FILE
       cli_locate_reference.py CHSIM --every-algorithm --servers FILE --weighted FILE --keys FILE
Exit 0 when every line of chsim's output equals the reference's. --every-algorithm takes the
algorithms from `chsim list --markdown` (a new algorithm without a reference here fails), checks
each against its reference (ketama is proved against the real clients by tests/compat instead),
and checks the weighted list: located as the reference does by each algorithm with weights, refused
by each without (exit 2, one line naming the file, the algorithm and the node)."""
import argparse
import bisect
import ctypes
import math
import subprocess
import sys
import tempfile

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


GAMMA = 0x9E3779B97F4A7C15


def stream(seed):  # SplitMix64(seed): output i is Mix64(seed + i * gamma)
    i = 0
    while True:
        yield mix64((seed + i * GAMMA) & M64)
        i += 1


def unit_open(r):
    return (float(r >> 11) + 0.5) * 2.0 ** -53


def dx(h, n):
    cap = 2 * n
    for x in stream(h):
        b = bounded(x, cap)
        if b < n:
            return b


def power(h, n, level_hash="mix2"):
    k = mix64(h)
    level = (lambda j: mix2(k, j)) if level_hash == "mix2" else (lambda j: mix64(k ^ j))
    m = 1 << (n - 1).bit_length()

    def f(mask):  # Section VI.A: the level of the highest set bit, a hashed offset in it
        bits = k & 0xFFFFFFFF & mask
        if bits == 0:
            return 0
        j = bits.bit_length() - 1
        return (1 << j) + (level(j) & ((1 << j) - 1))

    r1 = f(m - 1)
    if r1 < n:
        return r1
    x, u = float(m // 2 - 1), stream(k ^ 0x706F776572)  # Section VI.B: jump's walk from m/2 - 1
    while True:
        q = (x + 1.0) / unit_open(next(u))
        if not q <= n:
            break
        t = float(int(q))
        x = t - 1.0 if t == q else t
    if int(x) > m // 2 - 1:
        return int(x)
    return f(m // 2 - 1)


def flip(h, n):
    k = mix64(h)
    r = (n - 1).bit_length()  # 2^(r-1) < n <= 2^r

    def pow2(bits):
        a = k & 0xFFFFFFFF & ((1 << bits) - 1)
        if a == 0:
            return 0
        b = a.bit_length() - 1
        return a ^ (mix2(k, b) & ((1 << b) - 1))

    x = pow2(r)
    if x < n:
        return x
    for i in range(1, 65):
        d = mix2(k, (r - 1) + (i << 16)) & ((1 << r) - 1)
        if d < 1 << (r - 1):
            break
        if d < n:
            return d
    return pow2(r - 1)


def jumpback(h, n):
    if n <= 1:
        return 0
    rnd = stream(h)
    r0 = next(rnd)
    levels = (r0 ^ (r0 >> 32)) & 0xFFFFFFFF & ((1 << (n - 1).bit_length()) - 1)
    while levels:
        lo = 1 << (levels.bit_length() - 1)
        b = lo + ((r0 >> (32 * (bin(levels).count("1") & 1))) & (lo - 1))
        if b < n:
            return b
        while True:
            r1 = next(rnd)
            found = None
            for half in (r1 & 0xFFFFFFFF, r1 >> 32):
                b = half & (2 * lo - 1)
                if b < lo:
                    found = "skip"
                    break
                if b < n:
                    return b
            if found:
                break
        levels ^= lo
    return 0


def binomial(h, n):
    if n < 2:
        return 0
    k = mix64(h)
    e = 1 << (n - 1).bit_length()

    def relocate(b):
        if b < 2:
            return b
        base = 1 << (b.bit_length() - 1)
        return base + (mix2(k, base - 1) & (base - 1))

    b = relocate(k & (e - 1))
    if b < n:
        return b
    draws = stream(k ^ 0x62696E6F6D)
    for _ in range(4):
        d = next(draws) & (e - 1)
        if d < e // 2:
            break
        if d < n:
            return d
    return relocate(k & (e // 2 - 1))


RANGE_HASHES = {"dx": dx, "power": power, "flip": flip, "jumpback": jumpback,
                "binomial": binomial,
                "power --level-hash mix64": lambda h, n: power(h, n, "mix64")}
# Checked besides each algorithm's defaults: "NAME --flag value" runs chsim with those flags.
VARIANTS = {"power": ["power --level-hash mix64"]}


def _rj_mix(a, b, c):
    m = 0xFFFFFFFF
    for sa, sb, sc in ((13, 8, 13), (12, 16, 5), (3, 10, 15)):
        a = ((a - b - c) & m) ^ (c >> sa)
        b = ((b - c - a) & m) ^ ((a << sb) & m)
        c = ((c - a - b) & m) ^ (b >> sc)
    return a, b, c


def ceph_str_hash(key):
    """ceph_str_hash_rjenkins: Jenkins' lookup2, golden-ratio start, the length into c."""
    a = b = 0x9E3779B9
    c = 0
    k = key
    while len(k) >= 12:
        a = (a + int.from_bytes(k[0:4], "little")) & 0xFFFFFFFF
        b = (b + int.from_bytes(k[4:8], "little")) & 0xFFFFFFFF
        c = (c + int.from_bytes(k[8:12], "little")) & 0xFFFFFFFF
        a, b, c = _rj_mix(a, b, c)
        k = k[12:]
    tail = k + bytes(12 - len(k))
    c = (c + len(key) + (int.from_bytes(tail[8:12], "little") << 8)) & 0xFFFFFFFF
    a = (a + int.from_bytes(tail[0:4], "little")) & 0xFFFFFFFF
    b = (b + int.from_bytes(tail[4:8], "little")) & 0xFFFFFFFF
    return _rj_mix(a, b, c)[2]


def hash32_3(a, b, c):
    """rjenkins1 crush_hash32_3: seed 1315423911, x = 231232, y = 1232."""
    m = 0xFFFFFFFF
    a, b, c = a & m, b & m, c & m
    h, x, y = 1315423911 ^ a ^ b ^ c, 231232, 1232
    a, b, h = _rj_mix(a, b, h)
    c, x, h = _rj_mix(c, x, h)
    y, a, h = _rj_mix(y, a, h)
    b, x, h = _rj_mix(b, x, h)
    y, c, h = _rj_mix(y, c, h)
    return h


def _ln_tables():
    from decimal import Decimal, getcontext, ROUND_FLOOR
    getcontext().prec = 60
    ln2 = Decimal(2).ln()

    def floor_log2_scaled(num, den):
        v = Decimal(2 ** 48) * (1 + Decimal(num) / den).ln() / ln2
        return int(v.to_integral_value(ROUND_FLOOR))
    rh_lh = []
    for k in range(129):
        rh_lh.append(-(-(2 ** 55) // (128 + k)))
        rh_lh.append(floor_log2_scaled(k, 128) if k < 128 else 2 ** 48 - 2 ** 32)
    ll = [floor_log2_scaled(k, 2 ** 15) + (0x147700000 if k >= 2 else 0) for k in range(256)]
    return rh_lh, ll


_LN = None


def crush_ln(u):
    global _LN
    if _LN is None:
        _LN = _ln_tables()
    rh_lh, ll = _LN
    x, exponent = u + 1, 15
    while not x & 0x18000:
        x, exponent = x << 1, exponent - 1
    index1 = (x >> 8) << 1
    x1 = (x * rh_lh[index1 - 256]) >> 48
    return (exponent << 44) + ((rh_lh[index1 + 1 - 256] + ll[x1 & 0xFF]) >> 4)


def straw2(nodes, hashes):
    out = []
    for h in hashes:
        x, best = h & 0xFFFFFFFF, None
        for i, (_, w) in enumerate(nodes):
            ln = crush_ln(hash32_3(x, i, 0) & 0xFFFF) - 2 ** 48
            draw = -((-ln) // (w * 0x10000))  # ln <= 0: C's truncation toward zero
            if best is None or draw > best[0]:
                best = (draw, i)
        out.append(best[1])
    return out


# The key hash each algorithm's default key hasher gives (xxh3 unless listed).
KEY_HASH = {"straw2": ceph_str_hash}


def reference(name, nodes, hashes):
    n = len(nodes)
    if name == "straw2":
        return straw2(nodes, hashes)
    if name == "modulo":
        return [h % n for h in hashes]
    if name in ("jump", "memento"):
        return [jump(h, n) for h in hashes]
    if name == "jumpback_anchor":
        return [jumpback(h, n) for h in hashes]
    if name in RANGE_HASHES:
        return [RANGE_HASHES[name](h, n) for h in hashes]
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
    raise SystemExit(f"no reference for {name}: add its definition from the paper to reference() "
                     f"in tests/algorithms/cli_locate_reference.py (a branch 'if name == \"{name}\"')")


def read_servers(path):
    nodes = []
    for line in open(path):
        tok = line.split("#", 1)[0].split()
        if tok:
            nodes.append((tok[0], int(tok[1]) if len(tok) > 1 else 1))
    return nodes


def compare(chsim, name, servers, keys):
    """Prints the comparison of chsim locate with the reference; returns 0 when equal."""
    nodes = read_servers(servers)
    key_hash = KEY_HASH.get(name, xxh3)
    want = [keys[i] + b"\t" + nodes[o][0].encode()
            for i, o in enumerate(reference(name, nodes, [key_hash(k) for k in keys]))]
    p = subprocess.run([chsim, "locate", "--servers", servers, "--algorithm"] + name.split() +
                       ["-"], input=b"".join(k + b"\n" for k in keys), capture_output=True)
    if p.returncode != 0:
        print(f"{name}: chsim exited {p.returncode}: {p.stderr.decode().strip()}")
        return 1
    got = p.stdout.split(b"\n")
    if got[-1] == b"":
        got.pop()
    bad = [i for i in range(max(len(got), len(want)))
           if (got[i] if i < len(got) else None) != (want[i] if i < len(want) else None)]
    used = {w.split(b"\t")[1] for w in want}
    print(f"{name} on {servers}: {len(want)} keys, {len(want) - len(bad)} agree with "
          f"the reference; servers used: {len(used)} of {len(nodes)}")
    for i in bad[:5]:
        print(f"  line {i + 1}: chsim {got[i] if i < len(got) else None!r}, reference "
              f"{want[i] if i < len(want) else None!r}")
    if len(used) < min(len(nodes), 2):
        print("  the reference itself sends every key to one server: the data proves nothing")
        return 1
    return 1 if bad else 0


def refuses_weights(chsim, name, weighted, keys):
    """An algorithm without weights refuses a weighted list: exit 2, one line."""
    p = subprocess.run([chsim, "locate", "--servers", weighted, "--algorithm", name, keys],
                       capture_output=True, text=True)
    lines = p.stderr.splitlines()
    ok = (p.returncode == 2 and len(lines) == 1 and weighted in lines[0] and
          f"{name} does not support weights" in lines[0] and "has weight" in lines[0])
    print(f"{name} on {weighted}: exit {p.returncode}: {p.stderr.strip()}")
    return 0 if ok else 1


def every_algorithm(a, keys):
    """Every algorithm of `chsim list --markdown`, on the given list and on 37 servers; the
    weighted list located (weights) or refused (no weights)."""
    table = subprocess.run([a.chsim, "list", "--markdown"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table
            if line.startswith("| `")]
    failed = 0
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as many:
        many.write("".join(f"10.0.1.{i}:11211\n" for i in range(1, 38)))
        many.flush()
        for row in rows:
            name, weights = row[0].strip("`"), row[4]
            if name == "ketama":  # tests/compat: against the real clients
                continue
            for servers in (a.servers, many.name):
                for variant in [name] + VARIANTS.get(name, []):
                    failed += compare(a.chsim, variant, servers, keys)
            if weights == "no":
                failed += refuses_weights(a.chsim, name, a.weighted, a.keys)
            else:
                failed += compare(a.chsim, name, a.weighted, keys)
    if len(rows) < 15:
        print(f"only {len(rows)} algorithms in chsim list --markdown")
        failed += 1
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("chsim")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--algorithm")
    mode.add_argument("--every-algorithm", action="store_true")
    ap.add_argument("--servers", required=True)
    ap.add_argument("--weighted")
    ap.add_argument("--keys", required=True)
    a = ap.parse_args()
    with open(a.keys, "rb") as f:
        keys = f.read().split(b"\n")[:-1]
    if a.every_algorithm:
        return every_algorithm(a, keys)
    return compare(a.chsim, a.algorithm, a.servers, keys)


if __name__ == "__main__":
    sys.exit(main())
