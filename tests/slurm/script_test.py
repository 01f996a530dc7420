#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/slurm-sweep without a cluster, and the Kubernetes manifests against it.

Usage: script_test.py CHSIM SOURCE_DIR

Fake sbatch, squeue and scancel on PATH record what the script asks of Slurm; a fake chsim
records the argv the job scripts would run (and hands --dry-run and --missing to the real one).
Checks:
  manifest  docs/kubernetes/{sweep,merge}.yaml parse as an indexed Job and a Job whose shell
            commands, run with JOB_COMPLETION_INDEX set, call chsim with the same argv as the
            job scripts scripts/slurm-sweep --dry-run prints (run with bash and the fakes),
            for the first, second and last index; docs/cluster.md shows sweep.yaml as it is.
  submit    a sweep whose scenario, output folder and chsim paths hold spaces, a quote and a
            %: the sbatch options (array, cpus, partition, time, pass-through, log names,
            afterok + kill-on-invalid-dep), the argv of the shard and merge scripts, the
            printed job ids; a second submission of the same name is refused.
  resume    parts 0, 1, 3 present: cancels the stale pending merge job, resubmits --array=2
            and a merge after it; refuses while a task is running; refuses parts of an
            edited scenario.
  errors    sbatch missing, sbatch refusing, squeue failing: exit 1 and one line; a bad
            scenario, flag or --chsim: exit 2 and one line; chsim found on PATH.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import yaml

CHSIM = os.path.abspath(sys.argv[1])
SOURCE = os.path.abspath(sys.argv[2])
SWEEP = os.path.join(SOURCE, "scripts", "slurm-sweep")

SCENARIO = {
    "schema_version": 1, "name": "script-test", "seed": 5, "trials": 1,
    "nodes": {"count": [5, 9]},
    "algorithms": [{"algorithm": "ring", "points_per_node": [10, 20]}],
    "workload": {"type": "uniform", "keys": 500},
}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(cond, message):
    if not cond:
        fail(message)


class Fakes:
    """A bin folder with fake Slurm commands and chsim; their calls go to JSON-lines logs."""

    def __init__(self, root):
        self.bin = os.path.join(root, "fake bin")
        os.makedirs(self.bin)
        self.calls = os.path.join(root, "calls.jsonl")
        self.squeue_out = os.path.join(root, "squeue.out")
        self.counter = os.path.join(root, "next-job-id")
        with open(self.counter, "w") as f:
            f.write("100\n")
        record = ('import json, os, sys\n'
                  'entry = {"cmd": os.path.basename(sys.argv[0]), "argv": sys.argv[1:]}\n')
        self.write("sbatch", record + f"""
if os.environ.get("FAKE_SBATCH_REFUSE"):
    print("sbatch: error: Batch job submission failed: Invalid account or account/partition "
          "combination specified", file=sys.stderr)
    sys.exit(1)
with open(sys.argv[-1]) as f:
    entry["script"] = f.read()
with open({self.counter!r}) as f:
    job = int(f.read())
with open({self.counter!r}, "w") as f:
    f.write(str(job + 1))
entry["job"] = str(job)
with open({self.calls!r}, "a") as f:
    f.write(json.dumps(entry) + "\\n")
print(f"{{job}};cluster")
""")
        self.write("squeue", record + f"""
with open({self.calls!r}, "a") as f:
    f.write(json.dumps(entry) + "\\n")
if os.environ.get("FAKE_SQUEUE_FAIL"):
    print("squeue: error: Unable to contact slurm controller (connect failure)", file=sys.stderr)
    sys.exit(1)
if os.path.exists({self.squeue_out!r}):
    print(open({self.squeue_out!r}).read(), end="")
""")
        self.write("scancel", record + f"""
with open({self.calls!r}, "a") as f:
    f.write(json.dumps(entry) + "\\n")
""")
        self.write("chsim", record + f"""
if "--dry-run" in sys.argv or "--missing" in sys.argv:
    os.execv({CHSIM!r}, [{CHSIM!r}] + sys.argv[1:])
with open({self.calls!r}, "a") as f:
    f.write(json.dumps(entry) + "\\n")
""")
        self.pod_bin = os.path.join(root, "pod bin")  # the manifests' mkdir -p /out: not here
        os.makedirs(self.pod_bin)
        self.write("mkdir", "import sys\n", self.pod_bin)

    def write(self, name, body, folder=None):
        path = os.path.join(folder or self.bin, name)
        with open(path, "w") as f:
            f.write("#!/usr/bin/python3\n" + body)
        os.chmod(path, 0o755)

    def take(self, cmd=None):
        """The calls logged since the last take (of `cmd` only, if given)."""
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            calls = [json.loads(l) for l in f]
        os.remove(self.calls)
        return [c for c in calls if cmd is None or c["cmd"] == cmd]

    def env(self, path_dirs=None, **extra):
        e = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SBATCH_"))}
        e["PATH"] = os.pathsep.join([self.bin] + (path_dirs or ["/usr/bin", "/bin"]))
        e.update(extra)
        return e


def sweep(args, env, expect=0, cwd=None):
    p = subprocess.run([SWEEP] + args, env=env, capture_output=True, text=True, cwd=cwd)
    check(p.returncode == expect, f"slurm-sweep {shlex.join(args)}: exit {p.returncode}, "
          f"expected {expect}\nstdout: {p.stdout}\nstderr: {p.stderr}")
    if expect != 0:
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and lines[0].startswith("slurm-sweep: "),
              f"slurm-sweep {shlex.join(args)}: expected one line on stderr, got {p.stderr!r}")
    return p


def run_job_script(fakes, text, env_extra):
    """Runs a job script with the fakes first on PATH; returns the chsim argv it called."""
    fakes.take()
    subprocess.run(["bash", "-c", text], env=fakes.env(**env_extra), check=True)
    calls = fakes.take("chsim")
    check(len(calls) == 1, f"expected one chsim call, got {calls}")
    return calls[0]["argv"]


def run_manifest(fakes, doc, env_extra):
    container = doc["spec"]["template"]["spec"]["containers"][0]
    cmd = container["command"] + container.get("args", [])
    check(cmd[:2] == ["/bin/sh", "-c"] and len(cmd) == 3, f"manifest command {cmd}")
    fakes.take()
    env = fakes.env(**env_extra)
    env["PATH"] = fakes.pod_bin + os.pathsep + env["PATH"]
    subprocess.run(["/bin/sh", "-c", cmd[2]], env=env, check=True)
    calls = fakes.take("chsim")
    check(len(calls) == 1, f"expected one chsim call from the manifest, got {calls}")
    return calls[0]["argv"]


def test_manifest(tmp, fakes):
    with open(os.path.join(SOURCE, "docs", "kubernetes", "sweep.yaml")) as f:
        sweep_text = f.read()
    job = yaml.safe_load(sweep_text)
    with open(os.path.join(SOURCE, "docs", "kubernetes", "merge.yaml")) as f:
        merge_job = yaml.safe_load(f)
    spec = job["spec"]
    check(job["apiVersion"] == "batch/v1" and job["kind"] == "Job" and
          spec["completionMode"] == "Indexed" and spec["template"]["spec"]["restartPolicy"]
          == "Never", "sweep.yaml should be an indexed batch/v1 Job that does not restart pods")
    check(merge_job["kind"] == "Job", "merge.yaml should be a Job")
    n = spec["completions"]
    cpus = spec["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]
    # The Slurm side, for the same sweep: a scenario named sweep.json, N shards, as many
    # threads as the pod requests CPUs.
    root = os.path.join(tmp, "manifest")
    os.makedirs(os.path.join(root, "data"))
    scenario = os.path.join(root, "data", "sweep.json")
    with open(scenario, "w") as f:
        json.dump(SCENARIO, f)
    out = os.path.join(root, "out")
    chsim = os.path.join(fakes.bin, "chsim")
    p = sweep([scenario, "--shards", str(n), "--threads", str(cpus), "--out", out,
               "--chsim", chsim, "--dry-run"], fakes.env())
    check(not os.path.exists(out), "--dry-run created the output folder")
    fakes.take()
    submit = os.path.join(root, "submit.sh")
    with open(submit, "w") as f:
        f.write(p.stdout)
    subprocess.run(["bash", submit], env=fakes.env(), check=True, capture_output=True)
    jobs = fakes.take("sbatch")
    check(len(jobs) == 2, f"the --dry-run script should submit two jobs, got {jobs}")
    check(os.path.isfile(os.path.join(out, "slurm", "sweep.shard.sh")),
          "the --dry-run script should write the job scripts")
    check(f"--dependency=afterok:{jobs[0]['job']}" in jobs[1]["argv"],
          f"the merge should depend on the array job: {jobs[1]['argv']}")

    def to_slurm(argv):
        return [a.replace("/data/sweep.json", scenario).replace("/out/", out + "/")
                for a in argv]

    for i in sorted({0, 1, n - 1}):
        k8s = to_slurm(run_manifest(fakes, job, {"JOB_COMPLETION_INDEX": str(i)}))
        slurm = run_job_script(fakes, jobs[0]["script"], {"SLURM_ARRAY_TASK_ID": str(i)})
        check(k8s == slurm, f"index {i}: the indexed Job runs chsim {k8s}, the Slurm array "
              f"task chsim {slurm}")
    k8s = to_slurm(run_manifest(fakes, merge_job, {}))
    slurm = run_job_script(fakes, jobs[1]["script"], {})
    check(k8s == slurm and len(slurm) == n + 3,
          f"the merge Job runs chsim {k8s}, the Slurm merge job chsim {slurm}")
    with open(os.path.join(SOURCE, "docs", "cluster.md")) as f:
        guide = f.read()
    body = "".join(l for l in sweep_text.splitlines(True) if not l.startswith("#"))
    check("```yaml\n" + body + "```" in guide,
          "docs/cluster.md should show docs/kubernetes/sweep.yaml (without its comments) as it is")


def test_submit_and_resume(tmp, fakes):
    work = os.path.join(tmp, "it's a 100% sweep")  # a quote, a %, spaces
    os.makedirs(os.path.join(work, "bin dir"))
    scenario = os.path.join(work, "my sweep.json")
    with open(scenario, "w") as f:
        json.dump(SCENARIO, f)
    out = os.path.join(work, "out dir")
    chsim = os.path.join(work, "bin dir", "chsim")
    shutil.copy(os.path.join(fakes.bin, "chsim"), chsim)
    name = "my sweep"
    env = fakes.env()
    fakes.take()
    p = sweep([scenario, "--shards", "4", "--threads", "2", "--partition", "short", "--time",
               "1:00:00", "--max-running", "3", "--out", out, "--chsim", chsim, "--",
               "--account=proj x", "--qos", "low"], env)
    array, merge = fakes.take("sbatch")
    a, m = array["argv"], merge["argv"]
    shard_sh = os.path.join(out, "slurm", name + ".shard.sh")
    for opt in ["--parsable", "--array=0-3%3", "--cpus-per-task=2", "--partition=short",
                "--time=1:00:00", "--account=proj x", "--qos", "low", f"--chdir={out}",
                "--output=" + os.path.join(out, "slurm", name).replace("%", "%%") +
                ".%a.%A.log"]:
        check(opt in a, f"array sbatch argv lacks {opt!r}: {a}")
    check(a[-1] == shard_sh and a.index("--qos") > a.index("--time=1:00:00"),
          f"pass-through options go last, before the script: {a}")
    for opt in [f"--dependency=afterok:{array['job']}", "--kill-on-invalid-dep=yes",
                "--partition=short", "--account=proj x", "--cpus-per-task=1"]:
        check(opt in m, f"merge sbatch argv lacks {opt!r}: {m}")
    check(f"array job {array['job']}" in p.stdout and f"merge job {merge['job']}" in p.stdout
          and f"squeue -j {array['job']},{merge['job']}" in p.stdout and "--resume" in p.stdout,
          f"slurm-sweep should print the job ids and how to follow them:\n{p.stdout}")
    for i in (0, 3):
        argv = run_job_script(fakes, array["script"], {"SLURM_ARRAY_TASK_ID": str(i)})
        check(argv == ["run", scenario, "--shard", f"{i}/4", "--threads", "2", "-o",
                       os.path.join(out, "parts", f"{name}.{i}.json")],
              f"shard {i} runs chsim {argv}")
    argv = run_job_script(fakes, merge["script"], {})
    check(argv == ["merge"] + [os.path.join(out, "parts", f"{name}.{i}.json") for i in range(4)]
          + ["-o", os.path.join(out, name + ".json")], f"the merge runs chsim {argv}")
    with open(os.path.join(out, "slurm", name + ".sweep.json")) as f:
        rec = json.load(f)
    check(rec["chsim"] == chsim and rec["scenario"] == scenario and rec["shards"] == 4,
          f"the sweep record: {rec}")
    # The same sweep again is refused; its record says how to go on.
    p = sweep([scenario, "--shards", "4", "--out", out, "--chsim", chsim], env, expect=2)
    check("--resume" in p.stderr, p.stderr)

    # Task 2 lost: parts 0, 1, 3 (real ones), the merge job pending forever.
    for i in (0, 1, 3):
        subprocess.run([CHSIM, "run", scenario, "--shard", f"{i}/4", "--quiet", "-o",
                        os.path.join(out, "parts", f"{name}.{i}.json")], check=True)
    aj, mj = array["job"], merge["job"]
    with open(fakes.squeue_out, "w") as f:
        f.write(f"{aj}|{aj}_2|RUNNING|None\n{mj}|{mj}|PENDING|Dependency\n")
    p = sweep([scenario, "--resume", "--out", out], env, expect=1)
    check(f"{aj}_2 RUNNING" in p.stderr, p.stderr)
    with open(fakes.squeue_out, "w") as f:
        f.write(f"{aj}|{aj}_2|CANCELLED|None\n{mj}|{mj}|PENDING|DependencyNeverSatisfied\n")
    fakes.take()
    p = sweep([scenario, "--resume", "--out", out, "--time", "2:00:00"], env)
    calls = fakes.take()
    cancels = [c["argv"] for c in calls if c["cmd"] == "scancel"]
    subs = [c["argv"] for c in calls if c["cmd"] == "sbatch"]
    check(cancels == [[mj]] and f"cancelled the stale merge job {mj}" in p.stdout,
          f"the stale merge job should be cancelled: {cancels}\n{p.stdout}")
    check(len(subs) == 2 and "--array=2%3" in subs[0] and "--time=2:00:00" in subs[0] and
          "--partition=short" in subs[0] and "--account=proj x" in subs[1] and
          f"--dependency=afterok:{int(mj) + 1}" in subs[1] and "resubmitting 2, then the merge"
          in p.stdout, f"the resume should submit shard 2, then the merge: {subs}\n{p.stdout}")
    os.remove(fakes.squeue_out)
    # --resume --dry-run: the plan, nothing submitted.
    p = sweep([scenario, "--resume", "--out", out, "--dry-run"], env)
    check("--array=2%3" in p.stdout and not fakes.take("sbatch"), p.stdout)
    # Every part present: only the merge. A truncated part is rerun.
    subprocess.run([CHSIM, "run", scenario, "--shard", "2/4", "--quiet", "-o",
                    os.path.join(out, "parts", f"{name}.2.json")], check=True)
    fakes.take()
    p = sweep([scenario, "--resume", "--out", out], env)
    subs = [c["argv"] for c in fakes.take("sbatch")]
    check(len(subs) == 1 and not any(x.startswith("--dependency") for x in subs[0]) and
          subs[0][-1].endswith(".merge.sh"), f"a complete sweep resubmits the merge only: {subs}")
    with open(os.path.join(out, "parts", f"{name}.1.json"), "r+") as f:
        f.truncate(100)
    p = sweep([scenario, "--resume", "--out", out], env)
    check("invalid part, rerun" in p.stdout and "resubmitting 1," in p.stdout, p.stdout)
    # An edited scenario: the parts are foreign to it; refused, nothing submitted.
    with open(scenario, "w") as f:
        json.dump(dict(SCENARIO, seed=6), f)
    fakes.take()
    p = sweep([scenario, "--resume", "--out", out], env, expect=2)
    check("edited since" in p.stderr and not fakes.take("sbatch"), p.stderr)
    sweep([scenario, "--resume", "--out", out, "--shards", "8"], env, expect=2)


def test_errors(tmp, fakes):
    scenario = os.path.join(tmp, "e.json")
    with open(scenario, "w") as f:
        json.dump(SCENARIO, f)
    chsim = os.path.join(fakes.bin, "chsim")
    out = os.path.join(tmp, "errors-out")
    base = [scenario, "--shards", "2", "--out", out, "--chsim", chsim]
    # No sbatch on PATH: a folder with chsim only.
    lone = os.path.join(tmp, "only chsim")
    os.makedirs(lone)
    os.symlink(chsim, os.path.join(lone, "chsim"))
    p = subprocess.run([SWEEP, scenario, "--shards", "2", "--out", out], capture_output=True,
                       text=True, env=dict(os.environ, PATH=lone + ":/nonexistent"))
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 1 and len(lines) == 1 and "sbatch not found" in lines[0],
          f"without sbatch: exit {p.returncode} {p.stderr!r}")
    with open(os.path.join(out, "slurm", "e.shard.sh")) as f:  # chsim found on PATH
        check(shlex.quote(os.path.join(lone, "chsim")) + " run" in f.read(),
              "chsim on PATH should be the one handed to the jobs")
    shutil.rmtree(out)
    p = sweep(base, fakes.env(FAKE_SBATCH_REFUSE="1"), expect=1)
    check("sbatch refused the array job (exit 1): sbatch: error: Batch job submission failed: "
          "Invalid account" in p.stderr, p.stderr)
    check(not os.path.exists(os.path.join(out, "slurm", "e.sweep.json")),
          "a refused submission should record nothing")
    sweep(base, fakes.env())
    p = sweep([scenario, "--resume", "--out", out], fakes.env(FAKE_SQUEUE_FAIL="1"), expect=1)
    check("squeue failed" in p.stderr and "Unable to contact" in p.stderr, p.stderr)
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        json.dump(dict(SCENARIO, trials=0), f)
    p = sweep([bad, "--shards", "2", "--out", out, "--chsim", chsim], fakes.env(), expect=2)
    check("/trials" in p.stderr, p.stderr)
    sweep([scenario, "--shards", "2", "--chsim", os.path.join(tmp, "nope")], fakes.env(),
          expect=2)
    sweep([scenario, "--chsim", chsim], fakes.env(), expect=2)  # no --shards
    sweep([scenario, "--shards", "0", "--chsim", chsim], fakes.env(), expect=2)
    sweep([scenario, "--shards", "2", "--bogus"], fakes.env(), expect=2)
    sweep([scenario, "--shards", "2", "--chsim", chsim, "--", "--array=0-9"], fakes.env(),
          expect=2)
    sweep([scenario, "--resume", "--out", os.path.join(tmp, "none")], fakes.env(), expect=2)


def main():
    with tempfile.TemporaryDirectory(prefix="chsim-sweep-script-") as tmp:
        fakes = Fakes(tmp)
        for test in (test_manifest, test_submit_and_resume, test_errors):
            test(tmp, fakes)
            print(f"ok: {test.__name__}")
    print("PASS")


if __name__ == "__main__":
    main()
