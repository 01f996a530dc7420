# SPDX-License-Identifier: Apache-2.0
"""twemproxy (nutcracker 0.5.0) as a real proxy on 127.0.0.1, in front of real memcached servers.

For a server list, nutcracker gets one pool with `distribution: ketama`, `hash: md5` and one
server line `127.0.0.1:PORT:WEIGHT NAME` per list entry, where PORT is a local memcached and
NAME is what nutcracker itself would derive for the list's real server (see `nc_name`).  Every
key is stored through the proxy with its own bytes as value; then each backend is asked for every
key, and the backend that holds it names the list label.

Only loopback is used.  Every process started here is stopped by its PID (see `close`).
"""

import os
import pwd
import socket
import subprocess
import time


def nc_name(host, port, name):
    """nutcracker's server name: the explicit name, else host (port 11211) or host:port."""
    if name:
        return name
    return host if port == 11211 else f"{host}:{port}"


def _free_ports(count):
    socks, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def _wait_port(port, proc, what, timeout=120.0):
    """Waits for `proc` to listen; the timeout guards against a hang (it listens within a
    second on 2 cores)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited early with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"hung: {what} did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


class _Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed")
            self.buf += chunk
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln

    def exact(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def close(self):
        self.sock.close()


class Twemproxy:
    def __init__(self, workdir, max_servers):
        self.workdir = workdir
        self.procs = []
        self.backends = []  # ports
        user = []
        if os.geteuid() == 0:  # memcached refuses to run as root without -u
            try:
                pwd.getpwnam("nobody")
                user = ["-u", "nobody"]
            except KeyError:
                user = ["-u", "root"]
        ports = _free_ports(max_servers)
        for port in ports:
            p = subprocess.Popen(
                ["memcached", *user, "-l", "127.0.0.1", "-p", str(port), "-U", "0",
                 "-m", "8", "-t", "1", "-c", "64"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.procs.append(p)
            self.backends.append(port)
        for port, p in zip(self.backends, self.procs):
            _wait_port(port, p, f"memcached on port {port}")

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []

    def _flush(self, ports):
        for port in ports:
            c = _Conn(port)
            c.send(b"flush_all\r\n")
            if c.line() != b"OK":
                raise RuntimeError("flush_all failed")
            c.close()

    def locate(self, tag, servers, keys):
        """servers: list of (label, host, port, weight, name); keys: list of bytes.
        Returns the label of the server holding each key, in key order."""
        n = len(servers)
        if n > len(self.backends):
            raise RuntimeError("not enough memcached backends")
        ports = self.backends[:n]
        self._flush(ports)
        lines = []
        for (label, host, port, weight, name), bport in zip(servers, ports):
            lines.append(f"   - 127.0.0.1:{bport}:{weight} {nc_name(host, port, name)}\n")
        listen, stats = _free_ports(2)
        conf = os.path.join(self.workdir, f"nc-{tag}.yml")
        with open(conf, "w") as f:
            f.write("chsim:\n"
                    f"  listen: 127.0.0.1:{listen}\n"
                    "  hash: md5\n"
                    "  distribution: ketama\n"
                    "  auto_eject_hosts: false\n"
                    "  timeout: 120000\n"  # a hang guard: memcached answers in microseconds
                    "  server_connections: 1\n"
                    "  servers:\n" + "".join(lines))
        log = os.path.join(self.workdir, f"nc-{tag}.log")
        p = subprocess.Popen(
            ["nutcracker", "-c", conf, "-s", str(stats), "-a", "127.0.0.1", "-o", log,
             "-p", os.path.join(self.workdir, f"nc-{tag}.pid"), "-v", "4"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(p)
        try:
            _wait_port(listen, p, "nutcracker")
            c = _Conn(listen)
            for i in range(0, len(keys), 200):
                chunk = keys[i:i + 200]
                c.send(b"".join(b"set %s 0 0 %d\r\n%s\r\n" % (k, len(k), k) for k in chunk))
                for k in chunk:
                    r = c.line()
                    if r != b"STORED":
                        raise RuntimeError(f"set through nutcracker failed for {k!r}: {r!r}")
            c.close()
        finally:
            p.terminate()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            self.procs.remove(p)
        where = {}
        for idx, bport in enumerate(ports):
            c = _Conn(bport)
            batches, cur, size = [], [], 0
            for k in keys:
                if cur and size + len(k) + 1 > 1000:
                    batches.append(cur)
                    cur, size = [], 0
                cur.append(k)
                size += len(k) + 1
            if cur:
                batches.append(cur)
            c.send(b"".join(b"get " + b" ".join(b) + b"\r\n" for b in batches))
            for _ in batches:
                while True:
                    ln = c.line()
                    if ln == b"END":
                        break
                    parts = ln.split(b" ")
                    if parts[0] != b"VALUE":
                        raise RuntimeError(f"unexpected reply {ln!r}")
                    k, nbytes = parts[1], int(parts[3])
                    val = c.exact(nbytes + 2)[:-2]
                    if val != k:
                        raise RuntimeError(f"value mismatch for {k!r}")
                    if k in where:
                        raise RuntimeError(f"key {k!r} found on two backends")
                    where[k] = idx
            c.close()
        missing = [k for k in keys if k not in where]
        if missing:
            raise RuntimeError(f"{len(missing)} keys not found on any backend, e.g. {missing[0]!r}")
        return [servers[where[k]][0] for k in keys]
