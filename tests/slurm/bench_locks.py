#!/usr/bin/env python3
"""bench_locks.py FAMILY|slurm-multifactor N [dbd] - how long one priority/mfprio pass holds
slurmctld's job locks with N pending jobs (issue 20, item 8).  Not a test:
a measurement, printed.

Starts a private cluster (cluster.py) with FAMILY, drains its node so every
job stays pending, submits N jobs (sbatch, 8 at a time, several users and
both partitions, every 10th in two partitions), then asks for passes and
reads the adapter's own figures from slurmctld's log (SlurmctldDebug=debug:
"job read lock held X us ... job write lock held Z us"), and the time
priority_p_set takes, from the submit RPC's log line.

dbd: with slurmdbd (a private MariaDB), so the pass also checks slurmdbd's
associations for changes (set_accounts) and keeps Slurm's own usage
bookkeeping under its job read lock.

slurm-multifactor: the same queue under Slurm's own priority/multifactor,
built from the installed version's source with lockclock.c timing its job
write locks (its decay thread's passes, every PriorityCalcPeriod).

Environment as test_slurm.py (MFPRIO_BUILD, MFPRIO_SLURM_RUN).
"""
import concurrent.futures
import os
import pwd
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_slurm as ts  # noqa: E402


def build_timed_multifactor():
    gen = os.path.join(ts.BUILD, "host-shim", "slurm", "slurm-src")
    src = [os.path.join(gen, d) for d in os.listdir(gen) if d.startswith("slurm-wlm-")][0]
    out = os.path.join(ts.BUILD, "tests", "slurm", "mf-timed")
    os.makedirs(out, exist_ok=True)
    inc = ["-DHAVE_CONFIG_H", f"-I{gen}/gen", f"-I{gen}/gen/slurm", f"-I{src}", f"-I{src}/src/common"]
    mf = os.path.join(src, "src", "plugins", "priority", "multifactor")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["gcc", "-O2", "-fPIC", "-c"] + inc + [os.path.join(here, "lockclock.c"), "-o",
                    os.path.join(out, "lockclock.o")], check=True)
    subprocess.run(["gcc", "-O2", "-fPIC", "-shared"] + inc +
                   ["-Dlock_slurmctld=lockclock_lock", "-Dunlock_slurmctld=lockclock_unlock",
                    os.path.join(mf, "priority_multifactor.c"), os.path.join(mf, "fair_tree.c"),
                    os.path.join(out, "lockclock.o"), "-o", os.path.join(out, "priority_multifactor.so")],
                   check=True)
    return out


def main():
    family, n = sys.argv[1], int(sys.argv[2])
    dbd = len(sys.argv) > 3 and sys.argv[3] == "dbd"
    extra = ["MaxJobCount=250000", "SlurmctldDebug=debug"]
    own = family == "slurm-multifactor"
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
    # the log line per pass is at debug level
    with open(c.conf) as f:
        text = f.read().replace("SlurmctldDebug=info\n", "")
    with open(c.conf, "w") as f:
        f.write(text)
    try:
        c.start()
        c.run("scontrol", "update", f"nodename={c.node}", "state=drain", "reason=bench")
        users = ["daemon", "bin", "nobody"]
        t0 = time.time()
        cmds = []
        for i in range(n):
            u = users[i % 3]
            part = "debug,batch" if i % 10 == 0 else ("batch" if i % 2 else "debug")
            cmds.append(["setpriv", f"--reuid={u}", f"--regid={pwd.getpwnam(u).pw_gid}", "--clear-groups",
                         "sbatch", "-Q", "--chdir=/tmp", "--output=/dev/null", "-p", part, "-n", str(1 + i % 4),
                         "-t", str(10 + i % 50), "--wrap=sleep 60"])
        failed = 0
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for r in pool.map(lambda cmd: subprocess.run(cmd, env=c.env, capture_output=True), cmds):
                failed += r.returncode != 0
        if failed:
            print(f"{failed} sbatch calls failed")
        print(f"submitted {n} jobs in {time.time() - t0:.0f}s")
        if own:
            # its decay thread runs every PriorityCalcPeriod (1 minute)
            mark = os.path.getsize(c.ctld_log)
            time.sleep(130)
            with open(c.ctld_log) as f:
                f.seek(mark)
                for line in f:
                    m = re.search(r"lockclock: job write lock held (\d+) us", line)
                    if m and int(m.group(1)) > 0:
                        print(f"slurm's multifactor: {n} pending jobs: job write lock held "
                              f"{int(m.group(1)) / 1000:.1f} ms")
            return
        figures = []
        for _ in range(3):
            mark = os.path.getsize(c.ctld_log)
            c.next_pass(timeout=600)
            time.sleep(0.5)
            with open(c.ctld_log) as f:
                f.seek(mark)
                for line in f:
                    m = re.search(r"pass: (\d+) pending records.*read lock held (\d+) us, family (\d+) us.*"
                                  r"write lock held (\d+) us.*: (\d+) calls, mean ([\d.]+) us"
                                  r"; Slurm's usage bookkeeping (\d+) us", line)
                    if m:
                        figures.append(m.groups())
        for rec, rd, fam, wr, calls, mean, usage in figures:
            print(f"{family}: {rec} pending records: job read lock {int(rd) / 1000:.1f} ms (Slurm's usage "
                  f"bookkeeping {int(usage) / 1000:.1f} ms of it), family {int(fam) / 1000:.1f} ms (no lock), "
                  f"job write lock {int(wr) / 1000:.1f} ms; priority_p_set: {calls} calls, mean {mean} us")
    finally:
        c.stop()


if __name__ == "__main__":
    main()
