#!/usr/bin/env python3
"""bench_locks.py FAMILY N - how long one priority/mfprio pass holds
slurmctld's job locks with N pending jobs (issue 20, item 8).  Not a test:
a measurement, printed.

Starts a private cluster (cluster.py) with FAMILY, drains its node so every
job stays pending, submits N jobs (sbatch, 8 at a time, several users and
both partitions, every 10th in two partitions), then asks for passes and
reads the adapter's own figures from slurmctld's log (SlurmctldDebug=debug:
"job read lock held X us ... job write lock held Z us"), and the time
priority_p_set takes, from the submit RPC's log line.

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


def main():
    family, n = sys.argv[1], int(sys.argv[2])
    c = ts.make_cluster(f"bench_{family}_{n}", family,
                        ["MaxJobCount=250000", "SlurmctldDebug=debug"])
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
        figures = []
        for _ in range(3):
            mark = os.path.getsize(c.ctld_log)
            c.next_pass(timeout=600)
            time.sleep(0.5)
            with open(c.ctld_log) as f:
                f.seek(mark)
                for line in f:
                    m = re.search(r"pass: (\d+) pending records.*read lock held (\d+) us, family (\d+) us.*"
                                  r"write lock held (\d+) us", line)
                    if m:
                        figures.append(tuple(int(x) for x in m.groups()))
        for rec, rd, fam, wr in figures:
            print(f"{family}: {rec} pending records: job read lock {rd / 1000:.1f} ms, family {fam / 1000:.1f} ms "
                  f"(no lock), job write lock {wr / 1000:.1f} ms")
    finally:
        c.stop()


if __name__ == "__main__":
    main()
