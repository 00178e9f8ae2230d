#!/usr/bin/env python3
"""bench_locks.py FAMILY|slurm-multifactor N [dbd] - how long one priority/mfprio pass holds
slurmctld's job locks with N pending jobs (issue 20, item 8).  Not a test:
a measurement, printed.

Starts a private cluster (cluster.py) with FAMILY, its whole directory
(StateSaveLocation, logs) on tmpfs (MFPRIO_BENCH_RUN, default
/dev/shm/mfprio-bench), MaxJobCount=250000 and SchedulerParameters=defer
(no scheduling attempt per submission); drains its node so every job stays
pending (the adapter's pass prices them all: the pass line counts the
pending records); submits N jobs with submit_many.c (libslurm's
slurm_submit_batch_job from 8 threads, as root for three users: no sbatch
process per job; both partitions, every 10th job in two), then waits for
the adapter's periodic passes (every 20 s) and reads its own figures from
slurmctld's log
(SlurmctldDebug=debug: "job read lock held X us ... job write lock held Z
us; priority_p_set since the last pass: C calls, mean M us").

dbd: with slurmdbd (a private MariaDB), so the pass also checks slurmdbd's
associations for changes (set_accounts) and keeps Slurm's own usage
bookkeeping under its job read lock.

slurm-multifactor: the same queue under Slurm's own priority/multifactor
(with slurmdbd: it decays only with associations), built from the installed
version's source with lockclock.c timing its job write locks (its decay
thread's passes, every PriorityCalcPeriod) and its priority_p_set (the mean
of every 1000 calls, one clock pair around the call as the adapter's).

Environment as test_slurm.py (MFPRIO_BUILD, MFPRIO_SLURM_RUN).
"""
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster  # noqa: E402
import test_slurm as ts  # noqa: E402


def slurm_includes():
    gen = os.path.join(ts.BUILD, "host-shim", "slurm", "slurm-src")
    src = [os.path.join(gen, d) for d in os.listdir(gen) if d.startswith("slurm-wlm-")][0]
    return ["-DHAVE_CONFIG_H", f"-I{gen}/gen", f"-I{gen}/gen/slurm", f"-I{src}", f"-I{src}/src/common"]


def build_timed_multifactor():
    inc = slurm_includes()
    src = inc[-1][2:-len("/src/common")]
    out = os.path.join(ts.BUILD, "tests", "slurm", "mf-timed")
    os.makedirs(out, exist_ok=True)
    mf = os.path.join(src, "src", "plugins", "priority", "multifactor")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["gcc", "-O2", "-fPIC", "-c"] + inc + [os.path.join(here, "lockclock.c"), "-o",
                    os.path.join(out, "lockclock.o")], check=True)
    subprocess.run(["gcc", "-O2", "-fPIC", "-shared"] + inc +
                   ["-Dlock_slurmctld=lockclock_lock", "-Dunlock_slurmctld=lockclock_unlock",
                    "-Dpriority_p_set=lockclock_priority_p_set_inner",
                    os.path.join(mf, "priority_multifactor.c"), os.path.join(mf, "fair_tree.c"),
                    os.path.join(out, "lockclock.o"), "-o", os.path.join(out, "priority_multifactor.so")],
                   check=True)
    return out


def build_submit_many():
    out = os.path.join(ts.BUILD, "tests", "slurm", "submit_many")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["gcc", "-O2", "-pthread"] + slurm_includes() +
                   [os.path.join(here, "submit_many.c"), "-o", out, f"-L{cluster.SLURM_PLUGINS}",
                    f"-Wl,-rpath,{cluster.SLURM_PLUGINS}", "-lslurmfull"], check=True)
    return out


PASS_INTERVAL = 20


def pass_figures(c, family, passes, since):
    """The adapter's figures of its next `passes` periodic passes (every
    PASS_INTERVAL seconds, as a site's PriorityCalcPeriod: not woken by
    scontrol reconfigure, whose own work would run beside them), from its
    log lines after offset `since` (the submission's end)."""
    figures = []
    deadline = time.time() + (passes + 2) * PASS_INTERVAL + 600
    while len(figures) < passes and time.time() < deadline:
        time.sleep(2)
        figures = []
        with open(c.ctld_log, errors="replace") as f:
            f.seek(since)
            for line in f:
                m = re.search(r"pass: (\d+) pending records.*read lock held (\d+) us, family (\d+) us.*"
                              r"write lock held (\d+) us.*: (\d+) calls, mean ([\d.]+) us"
                              r"; Slurm's usage bookkeeping (\d+) us.*CPU time under the read lock (\d+) us, "
                              r"under the write lock (\d+) us", line)
                if m:
                    figures.append(m.groups())
    for rec, rd, fam, wr, calls, mean, usage, crd, cwr in figures[:passes]:
        print(f"{family}: {rec} pending records: job read lock {int(rd) / 1000:.1f} ms (CPU {int(crd) / 1000:.1f} ms; "
              f"Slurm's usage bookkeeping {int(usage) / 1000:.1f} ms of it), family {int(fam) / 1000:.1f} ms "
              f"(no lock), job write lock {int(wr) / 1000:.1f} ms (CPU {int(cwr) / 1000:.1f} ms)")


def own_figures(c, n, since):
    """Slurm's multifactor: lockclock's lines (every job write lock of its
    decay thread, priority_p_set per 1000 calls) from log offset `since`."""
    with open(c.ctld_log, errors="replace") as f:
        f.seek(since)
        for line in f:
            m = re.search(r"lockclock: job write lock held (\d+) us \(thread CPU (\d+) us\)", line)
            if m and int(m.group(1)) > 0:
                print(f"slurm's multifactor: {n} pending jobs: job write lock held {int(m.group(1)) / 1000:.1f} ms "
                      f"(CPU {int(m.group(2)) / 1000:.1f} ms)")
            m = re.search(r"lockclock: priority_p_set: (\d+) calls, mean ([\d.]+) us", line)
            if m:
                print(f"slurm's multifactor: priority_p_set: {m.group(1)} calls, mean {m.group(2)} us")


def main():
    family, n = sys.argv[1], int(sys.argv[2])
    dbd = len(sys.argv) > 3 and sys.argv[3] == "dbd"
    # everything (StateSaveLocation: a script and environment file per job)
    # on tmpfs
    ts.RUN = os.environ.get("MFPRIO_BENCH_RUN", "/dev/shm/mfprio-bench")
    os.makedirs(ts.RUN, exist_ok=True)
    extra = ["MaxJobCount=250000", "SlurmctldDebug=debug", "SchedulerParameters=defer"]
    own = family == "slurm-multifactor"
    submit = build_submit_many()
    if own:
        # Slurm's own priority/multifactor, its files compiled unmodified
        # with lockclock.c (see there) into the build tree
        timed = build_timed_multifactor()
        root = os.path.join(ts.RUN, f"bench_{family}_{n}")
        lines = [l for l in ts.family_setup("multifactor", root) if not l.startswith("PriorityParameters")]
        # multifactor runs its decay pass only with slurmdbd's associations
        c = ts.Cluster(root, ts.BUILD, lines, ["DefMemPerCPU=100"] + extra, priority_type="priority/multifactor",
                       plugin_dir_first=timed, dbd_accounts=ts.USERS)
    elif dbd:
        root = os.path.join(ts.RUN, f"bench_{family}_{n}_dbd")
        os.makedirs(root + ".files", exist_ok=True)
        c = ts.Cluster(root, ts.BUILD, ts.family_setup(family, root + ".files"), ["DefMemPerCPU=100"] + extra,
                       dbd_accounts=ts.USERS)
    else:
        c = ts.make_cluster(f"bench_{family}_{n}", family, extra)
    # the log line per pass is at debug level; the adapter's passes every
    # PASS_INTERVAL seconds
    with open(c.conf) as f:
        text = f.read().replace("SlurmctldDebug=info\n", "").replace(
            "mfprio_pass_interval=3600", f"mfprio_pass_interval={PASS_INTERVAL}")
    with open(c.conf, "w") as f:
        f.write(text)
    try:
        c.start()
        c.run("scontrol", "update", f"nodename={c.node}", "state=drain", "reason=bench")
        mark = os.path.getsize(c.ctld_log)
        t0 = time.time()
        r = subprocess.run([submit, str(n), "8", "daemon,bin,nobody"], env=c.env, capture_output=True, text=True)
        print(r.stdout.strip(), r.stderr.strip())
        took = time.time() - t0
        print(f"submitted {n} jobs in {took:.0f}s ({n / max(took, 1e-3):.0f} per second); "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if own:
            # its decay thread runs every PriorityCalcPeriod (1 minute)
            time.sleep(130)
            own_figures(c, n, mark)
        else:
            # priority_p_set: every call of the submission (the passes'
            # lines count them since the previous pass)
            done = os.path.getsize(c.ctld_log)
            calls, ns = 0, 0.0
            with open(c.ctld_log, errors="replace") as f:
                f.seek(mark)
                for m in re.finditer(r"priority_p_set since the last pass: (\d+) calls, mean ([\d.]+) us", f.read()):
                    calls += int(m.group(1))
                    ns += int(m.group(1)) * float(m.group(2))
            pass_figures(c, family, 3, done)
            with open(c.ctld_log, errors="replace") as f:
                f.seek(done)
                m = re.search(r"priority_p_set since the last pass: (\d+) calls, mean ([\d.]+) us", f.read())
                if m:
                    calls += int(m.group(1))
                    ns += int(m.group(1)) * float(m.group(2))
            print(f"{family}: priority_p_set: {calls} calls, mean {ns / max(calls, 1):.1f} us")
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        # the node stayed drained: no job ever ran, none to end first
        c.stop(cancel=False)
        shutil.rmtree(c.root, ignore_errors=True)


if __name__ == "__main__":
    main()
