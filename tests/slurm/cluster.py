# SPDX-License-Identifier: Apache-2.0
"""A private single-node Slurm cluster for tests: munged, slurmctld and slurmd from Debian's
slurm-wlm and munge packages, each started in the foreground by this process, with its own
temporary folder, key, socket, state, logs and free ports, and stopped by its PID.

Two clusters can run at once on one machine (two worktrees, two ctest runs): nothing is
shared but the binaries. Client commands reach this cluster through env() (SLURM_CONF).

    with Cluster(folder) as c:
        subprocess.run(["sbatch", ...], env=c.env())

Needs root (slurmd starts jobs as their user).
"""
import ctypes
import os
import random
import re
import signal
import socket
import subprocess
import time

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scancel", "scontrol", "sinfo")
# A guard against a hang, not a speed requirement: each wait here is for something that
# takes a second or less on 2 cores (a daemon's socket, a node registering, a client call).
HANG_S = 120


class ClusterError(Exception):
    pass


def missing_tools():
    """The binaries a cluster needs that are not installed."""
    dirs = os.environ.get("PATH", "").split(os.pathsep) + ["/usr/sbin", "/sbin"]
    return [t for t in DAEMONS + CLIENTS
            if not any(os.access(os.path.join(d, t), os.X_OK) for d in dirs)]


def _prctl(option, value):
    if ctypes.CDLL(None, use_errno=True).prctl(option, value) != 0:
        raise ClusterError(f"prctl({option}): {os.strerror(ctypes.get_errno())}")


def _die_with_parent():
    # PR_SET_PDEATHSIG: the daemon gets SIGTERM if this process dies without cleaning up
    # (e.g. killed by a ctest timeout).
    _prctl(1, signal.SIGTERM)


def _children():
    """PIDs whose parent is this process."""
    me, kids = os.getpid(), []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == me:
                kids.append(int(d))
    return kids


def _free_port(taken):
    for _ in range(200):
        port = random.randint(20000, 32000)
        if port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("0.0.0.0", port))
            except OSError:
                continue
        return port
    raise ClusterError("no free TCP port in 20000-32000")


SLURM_CONF = """\
ClusterName=chsimtest
SlurmctldHost=localhost
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={dir}/munge.sock
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
KillWait=5
NodeName=localhost CPUs={cpus} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""


class Cluster:
    def __init__(self, folder, cpus=None):
        self.dir = os.path.abspath(folder)
        self.cpus = cpus or len(os.sched_getaffinity(0))
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.procs = {}  # name -> Popen, in start order

    def env(self):
        e = dict(os.environ)
        e["SLURM_CONF"] = self.conf
        for k in list(e):  # a test run inside a Slurm job must not talk to that cluster
            if k.startswith(("SLURM_", "SBATCH_", "SQUEUE_", "SCANCEL_")) and k != "SLURM_CONF":
                del e[k]
        return e

    def run(self, cmd, check=True, timeout=None):
        p = subprocess.run(cmd, env=self.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout or HANG_S)
        if check and p.returncode != 0:
            raise ClusterError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        return p

    # ------------------------------------------------------------ start and stop

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def _spawn(self, name, cmd):
        log = open(os.path.join(self.dir, name + ".out"), "w")
        self.procs[name] = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, env=self.env(),
                                            preexec_fn=_die_with_parent)
        log.close()

    def _wait(self, what, ready, timeout, watch=()):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name in watch:
                if self.procs[name].poll() is not None:
                    raise ClusterError(f"{name} exited ({self.procs[name].returncode}) while "
                                       f"waiting for {what}:\n{self.tail(name)}")
            if ready():
                return
            time.sleep(0.1)
        raise ClusterError(f"hung: nothing after {timeout} s waiting for {what}")

    def start(self):
        if os.geteuid() != 0:
            raise ClusterError("the Slurm test cluster needs root (slurmd runs the jobs)")
        missing = missing_tools()
        if missing:
            raise ClusterError(f"not installed: {', '.join(missing)} (scripts/install-deps "
                               "--test installs slurm-wlm and munge)")
        # PR_SET_CHILD_SUBREAPER: slurmstepd and the jobs' processes, which detach from
        # slurmd, become children of this process, so stop() can end any that outlive slurmd.
        _prctl(36, 1)
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)  # munged wants its socket's folder searchable, not writable
        key = os.path.join(self.dir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        sock = os.path.join(self.dir, "munge.sock")
        self._spawn("munged", ["munged", "--foreground", "--force", "--socket=" + sock,
                               "--key-file=" + key, "--pid-file=" + sock + ".pid",
                               "--seed-file=" + os.path.join(self.dir, "munge.seed"),
                               "--log-file=" + os.path.join(self.dir, "munged.log")])
        self._wait("munged's socket", lambda: os.path.exists(sock), HANG_S, ["munged"])
        for attempt in range(3):  # a port taken between the probe and the bind: new ports
            taken = set()
            ports = {}
            for k in ("ctld_port", "slurmd_port"):
                ports[k] = _free_port(taken)
                taken.add(ports[k])
            for d in ("state", "spool"):
                os.makedirs(os.path.join(self.dir, d), exist_ok=True)
            with open(self.conf, "w") as f:
                f.write(SLURM_CONF.format(dir=self.dir, cpus=self.cpus, **ports))
            self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf])
            self._spawn("slurmd", ["slurmd", "-D", "-N", "localhost", "-f", self.conf])
            try:
                self._wait("the node to be idle", self._node_idle, HANG_S, ["slurmctld", "slurmd"])
                return
            except ClusterError:
                if attempt == 2:
                    raise
                self._stop_daemon("slurmd")
                self._stop_daemon("slurmctld")

    def _node_idle(self):
        p = self.run(["sinfo", "--noheader", "--nodes=localhost", "--format=%T"], check=False)
        return p.returncode == 0 and p.stdout.strip() == "idle"

    def _stop_daemon(self, name):
        p = self.procs.pop(name, None)
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    def stop(self):
        """Cancels every job of this cluster, then stops slurmd, slurmctld and munged by PID."""
        try:
            if self.procs.get("slurmctld") and self.procs["slurmctld"].poll() is None:
                jobs = self.run(["squeue", "--noheader", "--format=%A"], check=False).stdout.split()
                if jobs:
                    self.run(["scancel"] + jobs, check=False)
                    deadline = time.monotonic() + 20
                    while time.monotonic() < deadline and self.run(
                            ["squeue", "--noheader", "--format=%A"], check=False).stdout.split():
                        time.sleep(0.2)
        finally:
            for name in reversed(DAEMONS):
                self._stop_daemon(name)
            self._end_orphans()

    def _end_orphans(self):
        """Ends the processes of this cluster that outlived its daemons (e.g. a slurmstepd
        whose job could not be killed): children of this process, as subreaper."""
        deadline = time.monotonic() + 10
        while True:
            kids = _children()
            for pid in kids:
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:  # a zombie: reaped
                        continue
                    os.kill(pid, signal.SIGTERM if time.monotonic() < deadline - 5
                            else signal.SIGKILL)
                except (ChildProcessError, ProcessLookupError):
                    pass
            if not kids or time.monotonic() > deadline:
                return
            time.sleep(0.2)

    # ------------------------------------------------------------ diagnostics

    def tail(self, name, lines=25):
        out = []
        for path in (os.path.join(self.dir, name + ".out"), os.path.join(self.dir, name + ".log")):
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    out += [f"  {path}:"] + ["    " + l.rstrip() for l in f.readlines()[-lines:]]
        return "\n".join(out)

    def diagnostics(self):
        return "\n".join(t for t in (self.tail(name) for name in DAEMONS) if t)

    def job(self, jobspec):
        """scontrol's fields of a job (or array task "12_3"), {} once purged."""
        p = self.run(["scontrol", "--oneliner", "show", "job", jobspec], check=False)
        fields = {}  # a value runs to the next " Key=" (values may hold spaces)
        for m in re.finditer(r"(?:^| )([A-Za-z][\w:/]*)=(.*?)(?= [A-Za-z][\w:/]*=|$)",
                             p.stdout.strip()):
            fields.setdefault(m.group(1), m.group(2).strip())
        return fields
