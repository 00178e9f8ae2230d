#!/usr/bin/env python3
"""test_slurm.py CASE - priority/mfprio inside a real slurmctld 22.05.

Each case starts its own private cluster (cluster.py: munged, slurmctld,
slurmd on loopback, files under the build tree) and checks numbers:

  prices_<family>  (maui, gridengine, flux, multifactor): jobs of two users
      (one of them in two partitions) priced by the controller (squeue %Q,
      for a multi-partition job the price in one of its partitions) equal mfprio-host's
      priorities over the same family .so and the same store, given a job
      file written from `scontrol show job` (not from the adapter), at the
      pass's time;
  usage_restart (maui): a running job's usage lowers its user's priority at
      the next pass (the same job shape of the other user keeps its price),
      the usage is in the family's store and survives a controller restart;
  end_once (maui): a short job's end is charged once: its user's usage grows
      by the job's CPU-seconds and not again at later passes or after a
      restart (the restart's scan sends the end again: the ledger drops it);
  bad_cfg (maui): a bad maui.cfg line stops slurmctld with file:line;
  bad_params: an unknown family= stops slurmctld with slurm.conf's file:line;
  held_admin (maui): a held job keeps priority 0 through passes and is priced
      like its twin once released; an admin-set priority stays.
  accounts_dbd (multifactor, slurmdbd + a private MariaDB): the family's
      store is slurmdbd's tree (set_accounts); `sacctmgr add user` and
      `modify user set fairshare=` reach it by the next pass, and the
      controller's priorities equal mfprio-host's on that store before and
      after (daemon's job rises, bin's does not).
  bookkeeping_dbd (multifactor, slurmdbd, AccountingStorageEnforce=limits):
      `scontrol show assoc_mgr` shows a running job's GrpTRESRunMins
      reservation shrinking, released at its end, and UsageRaw grown by its
      CPU-seconds in its association, account, root and QOS; across a
      controller restart a running job's reservation and usage stay right.

Environment (tests/slurm/meson.build): MFPRIO_BUILD (the build tree of
priority_mfprio.so), MFPRIO_SLURM_RUN (a scratch directory for the cluster),
MFPRIO_SLURM_TOOLS (optional: another build tree of the same source whose
families, mfprio-host and mfprio-acct are used; ./dev test gives build/).
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, ClusterError, tail  # noqa: E402

BUILD = os.environ.get("MFPRIO_BUILD", "")
# The families and tools may come from another tree of the same source
# (./dev test: build/, compiled in stage 1); the adapter is BUILD's.
TOOLS = os.environ.get("MFPRIO_SLURM_TOOLS") or BUILD
RUN = os.environ.get("MFPRIO_SLURM_RUN", "")
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
USERS = {"daemon": "acct_a", "bin": "acct_a", "nobody": "acct_b"}

MAUI_CFG = """# priority/maui for the live tests
QUEUETIMEWEIGHT 1
XFACTORWEIGHT 0
PROCWEIGHT 10
CREDWEIGHT 1
CLASSWEIGHT 1
CLASSCFG[debug] PRIORITY=1000
CLASSCFG[batch] PRIORITY=10
FSPOLICY DEDICATEDPS
FSINTERVAL 24:00:00
FSDEPTH 7
FSDECAY 0.80
FSWEIGHT 1
FSUSERWEIGHT 10
USERCFG[DEFAULT] FSTARGET=50
"""

ACCOUNTS = {
    "accounts": [
        {"name": "acct_a", "parent": "root", "shares": 1},
        {"name": "acct_b", "parent": "root", "shares": 3},
    ],
    "users": [
        {"name": u, "account": a, "shares": 1, "default": True} for u, a in USERS.items()
    ],
    "qos": [{"name": "normal", "priority": 0, "usage_factor": 1.0}],
    "partitions": [
        {"name": "batch", "priority_job_factor": 1, "default": True},
        {"name": "debug", "priority_job_factor": 20},
    ],
}


def fail(msg):
    raise AssertionError(msg)


def family_setup(family, root):
    """Priority* lines of slurm.conf for `family` (files written in root)."""
    plugin_dir = os.path.join(TOOLS, "plugin")
    head = f"family={family},mfprio_plugin_dir={plugin_dir},mfprio_pass_interval=3600"
    if family == "maui":
        path = os.path.join(root, "maui.cfg")
        with open(path, "w") as f:
            f.write(MAUI_CFG)
        return [f"PriorityParameters={head},config={path}", "PriorityCalcPeriod=1"]
    if family == "gridengine":
        src = os.path.join(SOURCE, "samples", "gridengine")
        return [f"PriorityParameters={head},sched_conf={src}/sched_conf,complexes={src}/complexes",
                "PriorityCalcPeriod=1"]
    if family == "flux":
        return [f"PriorityParameters={head},fairshare=100000,queue=10000,bank=0,urgency=1000",
                "PriorityCalcPeriod=1"]
    if family == "multifactor":
        return [f"PriorityParameters={head}", "PriorityCalcPeriod=1", "PriorityDecayHalfLife=1-0",
                "PriorityMaxAge=1-0", "PriorityWeightAge=1000", "PriorityWeightFairshare=10000",
                "PriorityWeightJobSize=1000", "PriorityWeightPartition=1000", "PriorityWeightQOS=0",
                "PriorityFlags=SMALL_RELATIVE_TO_TIME"]
    fail(f"unknown family {family}")


def make_cluster(name, family, extra=()):
    root = os.path.join(RUN, name)
    os.makedirs(root, exist_ok=True)
    os.makedirs(root + ".files", exist_ok=True)
    lines = family_setup(family, root + ".files")
    c = Cluster(root, BUILD, lines, ["DefMemPerCPU=100"] + list(extra))
    if family != "maui":
        store = os.path.join(root, "state", "mfprio.db")
        acct = os.path.join(root, "accounts.json")
        with open(acct, "w") as f:
            json.dump(ACCOUNTS, f)
        subprocess.run([os.path.join(TOOLS, "accounting", "mfprio-acct"), "--db", store, "-Q", "import", acct],
                       check=True)
    return c


def host_conf(c, family, path):
    """The controller's slurm.conf for mfprio-host: the family's own
    PriorityType, PriorityParameters without the adapter's items, the
    build tree's family as PluginDir."""
    out = []
    with open(c.conf) as f:
        for line in f:
            if line.startswith("PriorityType="):
                line = f"PriorityType=priority/{family}\n"
            elif line.startswith("PriorityParameters="):
                items = [i for i in line.strip().split("=", 1)[1].split(",")
                         if not i.startswith(("family=", "mfprio_"))]
                line = ("PriorityParameters=" + ",".join(items) + "\n") if items else ""
            elif line.startswith("PluginDir="):
                line = f"PluginDir={os.path.join(TOOLS, 'plugin')}\n"
            out.append(line)
    with open(path, "w") as f:
        f.writelines(out)
    return path


def slurm_time(s):
    if s in ("Unknown", "None", "N/A", ""):
        return 0
    return int(time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S")))


def job_line(c, job_id):
    """One job as mfprio-host reads it, from `scontrol show job` alone."""
    f = c.show_job(job_id)
    tres = dict(t.split("=", 1) for t in f.get("ReqTRES", "").split(",") if "=" in t)
    mem = tres.get("mem", "0")
    mem_mb = int(float(mem[:-1]) * {"M": 1, "G": 1024, "T": 1024 * 1024}[mem[-1]]) if mem[-1].isalpha() \
        else int(mem)
    limit = f.get("TimeLimit", "UNLIMITED")
    state = {"PENDING": "pending", "RUNNING": "running"}[f["JobState"]]
    rec = {
        "id": job_id,
        "user": f["UserId"].split("(")[0],
        "group": f["GroupId"].split("(")[0],
        "partition": f["Partition"],
        "state": state,
        "submit": slurm_time(f["SubmitTime"]),
        "eligible": slurm_time(f["AccrueTime"]) or slurm_time(f["EligibleTime"]),
        "nodes": int(f["NumNodes"].split("-")[0]),
        "cpus": int(tres.get("cpu", f["NumCPUs"])),
        "mem": mem_mb,
        "nice": int(f.get("Nice", "0")),
    }
    if f.get("Account", "(null)") not in ("(null)", ""):
        rec["account"] = f["Account"]
    if limit not in ("UNLIMITED", "Partition_Limit"):
        rec["time_limit"] = limit
    if state == "running":
        rec["start"] = slurm_time(f["StartTime"])
    return rec


def host_prices(c, family, job_ids, now):
    conf = host_conf(c, family, os.path.join(c.root, "host.conf"))
    jobs = os.path.join(c.root, "jobs.jsonl")
    running = c.run("squeue", "-h", "-t", "R", "-o", "%i").split()
    with open(jobs, "w") as f:
        for j in list(job_ids) + [int(r) for r in running]:
            f.write(json.dumps(job_line(c, j)) + "\n")
    r = subprocess.run([os.path.join(TOOLS, "host-shim", "mfprio-host"), "--conf", conf, "--now", str(now),
                        "sprio", "--job-file", jobs, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"mfprio-host sprio failed: {r.stderr.strip()}")
    per_part = {}
    for rec in json.loads(r.stdout):
        per_part.setdefault(rec["job_id"], set()).add(rec["priority"])
    return per_part


def wait_state(c, job_id, states, timeout=30):
    deadline = time.time() + timeout
    st = ""
    while time.time() < deadline:
        st = c.run("squeue", "-h", "-j", str(job_id), "-o", "%T", check=False).strip()
        if st in states or (not st and "GONE" in states):
            return st
        time.sleep(0.2)
    fail(f"job {job_id}: state {st!r}, waited for {states}")


def submit_queue(c):
    """A running job that fills the node, then pending jobs of two users."""
    blocker = c.submit("daemon", "-n", "8", "-p", "batch")
    wait_state(c, blocker, ("RUNNING",))
    jobs = [c.submit("daemon", "-n", "2"),
            c.submit("nobody", "-n", "2"),
            c.submit("nobody", "-n", "4", "-p", "debug,batch", "-t", "30"),
            c.submit("bin", "-n", "1", "-t", "90")]
    return blocker, jobs


def compare(c, family, jobs, need_spread):
    published = c.next_pass()
    now = published[0]["_pass_time"]
    published = [p for p in published if p.get("state") != "running"] + \
        [p for p in published if p.get("state") == "running"]
    got = c.squeue_priorities()
    want = host_prices(c, family, jobs, now)
    print(f"{family}: pass at {now}: controller {got}, mfprio-host {want}")
    for j in jobs:
        if j not in got:
            fail(f"job {j} not pending in the controller: {got}")
        # A multi-partition job: the adapter stores one priority per
        # partition (priority_array) and Slurm's scheduler sets the job's
        # priority to that of the partition it tried last, so squeue shows
        # one of them.
        if got[j] not in want.get(j, set()):
            fail(f"{family}: job {j}: controller priority {got[j]}, mfprio-host {sorted(want.get(j, set()))}")
    if need_spread and len({got[j] for j in jobs}) < 2:
        fail(f"{family}: every job has the same priority {got}: the comparison shows nothing")
    check_sprio(c, family, published)
    return now


def check_sprio(c, family, published):
    """sprio's PRIORITY (which it recomputes from the columns the adapter
    filled) equals the pass's priority of every job in every partition, and
    so does mfprio-host (with the family's named terms) over the pass file."""
    want = {(p["id"], p["partition"]): p["_priority"] for p in published if "_priority" in p}
    out = c.run("sprio", "-h", "-o", "%i|%r|%Y")
    got = {}
    for line in out.splitlines():
        if line.strip():
            jid, part, prio = (x.strip() for x in line.split("|"))
            got[(int(jid), part)] = int(prio)
    print(f"{family}: sprio {sorted(got.items())}")
    if got != want:
        fail(f"{family}: sprio {sorted(got.items())}, the pass {sorted(want.items())}")
    # the family's own named terms for the live jobs: mfprio-host over the
    # pass the adapter published, at its time, gives the same priorities
    conf = host_conf(c, family, os.path.join(c.root, "host.conf"))
    r = subprocess.run([os.path.join(TOOLS, "host-shim", "mfprio-host"), "--conf", conf, "--now",
                        str(published[0]["_pass_time"]), "sprio", "--job-file", c.pass_file(), "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"mfprio-host sprio on the published pass failed: {r.stderr.strip()}")
    named = {(j["job_id"], j["partition"]): j["priority"] for j in json.loads(r.stdout)}
    if named != want or not all(j["terms"] for j in json.loads(r.stdout)):
        fail(f"{family}: mfprio-host on the published pass {sorted(named.items())}, the pass {sorted(want.items())}")
    check_sprio_slurm(c, family, conf, published[0]["_pass_time"], json.loads(r.stdout))
    r = subprocess.run(["sshare", "-a"], env=c.env, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"sshare (which loads priority/mfprio in its own process) failed: {r.stderr.strip()}")


def host_sprio(args, env=None):
    r = subprocess.run([os.path.join(TOOLS, "host-shim", "mfprio-host")] + args, capture_output=True, text=True,
                       env=env)
    if r.returncode != 0:
        fail(f"mfprio-host {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def check_sprio_slurm(c, family, conf, pass_time, want_json):
    """`mfprio-host sprio --slurm` on the controller's own slurm.conf (found
    through SLURM_CONF, the pass file through StateSaveLocation): the same
    rows, named terms and columns as mfprio-host on the same inputs (the
    family's conf and the pass file, at the pass's time), and each row's
    total is squeue's priority of the job (a multi-partition job: squeue
    shows the one of its partition tried last)."""
    env = dict(os.environ, SLURM_CONF=c.conf)
    live = json.loads(host_sprio(["sprio", "--slurm", "--json"], env=env))
    if live != want_json:
        fail(f"{family}: sprio --slurm --json differs from mfprio-host on the pass file:\n{live}\n{want_json}")
    for view in ([], ["-l"]):
        got = host_sprio(["--conf", c.conf, "sprio", "--slurm=" + os.path.dirname(c.pass_file())] + view)
        same = host_sprio(["--conf", conf, "--now", str(pass_time), "sprio", "--job-file", c.pass_file()] + view)
        if got != same or len(got.splitlines()) < 2:
            fail(f"{family}: sprio --slurm {view}:\n{got}\nmfprio-host on the same inputs:\n{same}")
    print(f"{family}: sprio --slurm:\n{got}")
    queue = c.squeue_priorities()
    totals = {}
    for row in live:
        totals.setdefault(row["job_id"], set()).add(row["priority"])
    for job, prios in totals.items():
        if queue.get(job) not in prios:
            fail(f"{family}: job {job}: sprio --slurm totals {sorted(prios)}, squeue %Q {queue.get(job)}")
    if not totals:
        fail(f"{family}: sprio --slurm showed no job")
    # a pass file of another family than the conf names: one message, exit 1
    other = os.path.join(c.root, "other.conf")
    with open(c.conf) as f, open(other, "w") as g:
        g.write(f.read().replace(f"family={family},", "family=basic,"))
    r = subprocess.run([os.path.join(TOOLS, "host-shim", "mfprio-host"), "--conf", other, "sprio", "--slurm"],
                       capture_output=True, text=True)
    if r.returncode != 1 or f"written by family {family}, but {other}:" not in r.stderr or r.stdout:
        fail(f"sprio --slurm with another family's conf: exit {r.returncode}, {r.stderr.strip()!r}")


def case_prices(family):
    c = make_cluster("prices_" + family, family)
    try:
        c.start()
        # a finished job of daemon's: usage charged at its end, so the
        # users' fair-share terms differ from the first pass on
        done = c.submit("daemon", "-n", "8", seconds=2)
        wait_state(c, done, ("GONE", "COMPLETED"), timeout=40)
        _, jobs = submit_queue(c)
        compare(c, family, jobs, False)
        time.sleep(1.5)
        # a later pass: age and the running job's usage moved, still equal,
        # and by now the jobs' prices differ (else equality shows nothing)
        compare(c, family, jobs, True)
    finally:
        c.stop()


def user_usage(c, user):
    conf = host_conf(c, "maui", os.path.join(c.root, "host.conf"))
    r = subprocess.run([os.path.join(TOOLS, "host-shim", "mfprio-host"), "--conf", conf, "sshare", "-a",
                        "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"mfprio-host sshare failed: {r.stderr.strip()}")
    # maui's share table: a USER heading row, its users below it; the
    # usage of every FSINTERVAL window, summed (undecayed CPU-seconds)
    rows = json.loads(r.stdout)["rows"]
    heading = [i for i, row in enumerate(rows) if row.get("credential") == "USER"]
    for row in rows:
        if heading and row.get("parent") == heading[0] and row.get("credential") == user:
            return sum(v for k, v in row.items() if k.startswith("window_"))
    return 0.0


def case_usage_restart():
    c = make_cluster("usage_restart", "maui")
    try:
        c.start()
        twin_a = c.submit("daemon", "-n", "1", "--begin=now+3600")
        twin_b = c.submit("nobody", "-n", "1", "--begin=now+3600")
        c.next_pass()
        p0 = c.squeue_priorities()
        if p0[twin_a] != p0[twin_b]:
            fail(f"before any usage the twins differ: {p0}")
        run = c.submit("daemon", "-n", "8")
        wait_state(c, run, ("RUNNING",))
        time.sleep(2)
        c.next_pass()
        p1 = c.squeue_priorities()
        used = user_usage(c, "daemon")
        print(f"before {p0}, after daemon ran: {p1}, daemon's usage {used}")
        if used <= 0:
            fail("daemon's running job was not charged")
        if not p1[twin_a] < p1[twin_b]:
            fail(f"daemon's usage did not lower daemon's priority: {p1}")
        c.run("scancel", str(run))
        wait_state(c, run, ("GONE", "COMPLETED", "CANCELLED"))
        c.next_pass()
        before = user_usage(c, "daemon")
        c.stop_ctld()
        c.start_ctld()
        c.next_pass()
        p2 = c.squeue_priorities()
        after = user_usage(c, "daemon")
        print(f"after restart: {p2}, daemon's usage {before} -> {after}")
        if abs(after - before) > 1e-6 * max(1.0, before):
            fail(f"daemon's usage changed across the restart: {before} -> {after}")
        if not p2[twin_a] < p2[twin_b]:
            fail(f"after the restart daemon's priority is not lower: {p2}")
    finally:
        c.stop()


def case_end_once():
    c = make_cluster("end_once", "maui")
    try:
        c.start()
        c.next_pass()
        base = user_usage(c, "bin")
        j = c.submit("bin", "-n", "4", seconds=3)
        wait_state(c, j, ("GONE", "COMPLETED"), timeout=40)
        f = c.show_job(j)
        secs = slurm_time(f["EndTime"]) - slurm_time(f["StartTime"])
        c.next_pass()
        once = user_usage(c, "bin")
        c.next_pass()
        c.next_pass()
        again = user_usage(c, "bin")
        c.stop_ctld()
        c.start_ctld()
        c.next_pass()
        restarted = user_usage(c, "bin")
        print(f"bin: {base} -> {once} -> {again} -> {restarted}; job ran {secs}s on 4 CPUs")
        charged = once - base
        if secs < 1 or abs(charged - 4 * secs) > 4 * 1.0 + 1e-6:
            fail(f"charged {charged}, want 4 CPUs x {secs}s")
        if again != once or restarted != once:
            fail(f"the end was charged again: {once} -> {again} -> {restarted}")
    finally:
        c.stop()


def case_bad_cfg():
    c = make_cluster("bad_cfg", "maui")
    cfg = os.path.join(c.root + ".files", "maui.cfg")
    with open(cfg, "a") as f:
        f.write("FSWEIGHT lots\n")
    bad_line = MAUI_CFG.count("\n") + 1
    try:
        rc = c.start(expect_fail=True)
        log = tail(c.ctld_log, 40) + tail(os.path.join(c.root, "log", "slurmctld.out"), 40)
        print(f"slurmctld exit {rc}; log end:\n{log}")
        if rc == 0:
            fail("slurmctld exited 0 with a bad maui.cfg")
        if f"{cfg}:{bad_line}" not in log:
            fail(f"the log does not name {cfg}:{bad_line}")
    finally:
        c.stop()


def case_held_admin():
    """Held jobs keep priority 0 through passes and are priced when
    released; a priority an admin set stays through passes (as under
    Slurm's multifactor)."""
    c = make_cluster("held_admin", "maui")
    try:
        c.start()
        blocker = c.submit("daemon", "-n", "8")
        wait_state(c, blocker, ("RUNNING",))
        held = c.submit("nobody", "-n", "2", "--hold")
        admin = c.submit("nobody", "-n", "2")
        plain = c.submit("nobody", "-n", "2")
        c.run("scontrol", "update", f"job={admin}", "priority=777777")
        c.next_pass()
        c.next_pass()
        prio = {int(a): int(b) for a, b in (l.split() for l in c.run(
            "squeue", "-h", "-o", "%i %Q", "-j", f"{held},{admin},{plain}").splitlines())}
        print(f"after two passes: held {prio[held]}, admin-set {prio[admin]}, plain {prio[plain]}")
        if prio[held] != 0:
            fail(f"the held job has priority {prio[held]}, not 0")
        if prio[admin] != 777777:
            fail(f"the admin-set priority became {prio[admin]}")
        if prio[plain] in (0, 777777):
            fail(f"the plain job was not priced: {prio[plain]}")
        c.run("scontrol", "release", str(held))
        c.next_pass()
        released = c.squeue_priorities()
        print(f"released: {released}")
        if released.get(held) != released.get(plain):
            fail(f"the released job ({released.get(held)}) is not priced as its twin ({released.get(plain)})")
    finally:
        c.stop()


def store_assocs(c):
    """The family's store, as mfprio-acct shows it: {(account, user): shares}."""
    out = subprocess.run([os.path.join(TOOLS, "accounting", "mfprio-acct"), "--db",
                          os.path.join(c.root, "state", "mfprio.db"), "-n", "-P", "show", "associations",
                          "format=account,user,share"], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"mfprio-acct show associations: {out.stderr.strip()}")
    rows = {}
    for line in out.stdout.splitlines():
        acct, user, share = line.split("|")
        rows[(acct, user)] = int(share) if share.isdigit() else share
    return rows


def wait_store(c, pred, what, timeout=30):
    """Passes until the family's store satisfies pred (slurmdbd's update
    reaches slurmctld's association manager asynchronously)."""
    deadline = time.time() + timeout
    rows = {}
    while time.time() < deadline:
        c.next_pass()
        rows = store_assocs(c)
        if pred(rows):
            return rows
        time.sleep(0.5)
    fail(f"{what}: the family's store after {timeout}s: {rows}\n{tail(c.ctld_log)}")


def case_accounts_dbd():
    """Accounts from slurmdbd (family multifactor, no mfprio-acct import):
    the family's store holds slurmdbd's tree after the first pass; a
    `sacctmgr add user` and a `modify user set fairshare=` reach it by the
    next pass, and the controller's priorities move as mfprio-host computes
    them on that store."""
    root = os.path.join(RUN, "accounts_dbd")
    os.makedirs(root + ".files", exist_ok=True)
    # the classic fair-share formula (NO_FAIR_TREE): a user's factor follows
    # its shares even while its siblings have no usage (Fair Tree ranks a
    # user without usage first whatever the shares)
    lines = [l + ",NO_FAIR_TREE" if l.startswith("PriorityFlags=") else l
             for l in family_setup("multifactor", root + ".files")]
    c = Cluster(root, BUILD, lines, ["DefMemPerCPU=100"], dbd_accounts={"daemon": "acct_a", "bin": "acct_a"})
    try:
        c.start()
        rows = wait_store(c, lambda r: ("acct_a", "daemon") in r and ("acct_a", "bin") in r,
                          "slurmdbd's associations")
        print(f"first pass: {rows}")
        if ("acct_b", "nobody") in rows:
            fail(f"nobody is in the store before sacctmgr added it: {rows}")
        blocker = c.submit("daemon", "-n", "8")
        wait_state(c, blocker, ("RUNNING",))
        c.run("sacctmgr", "-i", "add", "account", "acct_b", "fairshare=3")
        c.run("sacctmgr", "-i", "add", "user", "nobody", "account=acct_b")
        rows = wait_store(c, lambda r: r.get(("acct_b", "nobody")) == 1 and r.get(("acct_b", "")) == 3,
                          "sacctmgr add user nobody")
        jobs = [c.submit("daemon", "-n", "2"), c.submit("nobody", "-n", "2"), c.submit("bin", "-n", "1")]
        time.sleep(2)  # the blocker's usage: daemon's fair share falls below nobody's
        now = compare(c, "multifactor", jobs, False)
        before = c.squeue_priorities()
        c.run("sacctmgr", "-i", "modify", "user", "daemon", "set", "fairshare=50")
        rows = wait_store(c, lambda r: r.get(("acct_a", "daemon")) == 50, "sacctmgr modify user set fairshare=50")
        print(f"after modify: {rows}")
        later = compare(c, "multifactor", jobs, True)
        after = c.squeue_priorities()
        print(f"daemon's job {jobs[0]}: {before[jobs[0]]} -> {after[jobs[0]]} (passes at {now}, {later})")
        # daemon (all the usage) gets 50 of acct_a's 51 shares: its fair-share
        # factor rises; bin (no usage) keeps factor 1; age adds a few points
        if not after[jobs[0]] > before[jobs[0]] + 50:
            fail(f"daemon's fairshare=50 (from 1) did not raise its job's priority: {before} -> {after}")
        if abs(after[jobs[2]] - before[jobs[2]]) > 5:
            fail(f"bin's job moved with daemon's shares: {before} -> {after}")
    finally:
        c.stop()


def assoc_mgr(c, user):
    """`scontrol show assoc_mgr` for user's association, its account's and
    root's, and QOS normal: {(account, user): {"usage": UsageRaw,
    "run_mins": {tres: used GrpTRESRunMins}}}."""
    out = c.run("scontrol", "show", "assoc_mgr", "flags=assoc,qos")
    recs, cur = {}, None
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("ClusterName="):
            f = dict(t.split("=", 1) for t in line.split() if "=" in t)
            cur = recs.setdefault((f.get("Account", ""), f.get("UserName", "").split("(")[0]), {})
        elif line.startswith("QOS=") and not line.startswith("QOS=N/A"):
            cur = recs.setdefault(("qos", line.split()[0].split("=", 1)[1].split("(")[0]), {})
        elif cur is not None and line.startswith("UsageRaw"):
            cur["usage"] = float(line.split("=", 1)[1].split("/")[0])
        elif cur is not None and line.startswith("GrpTRESRunMins="):
            cur["run_mins"] = {k: int(v.split("(")[1].rstrip(")")) for k, v in
                               (t.split("=", 1) for t in line.split("=", 1)[1].split(","))}
    return recs


def case_bookkeeping_dbd():
    """Slurm's own usage bookkeeping (AccountingStorageEnforce=limits): a
    running job's GrpTRESRunMins reservation shrinks at each pass and is
    released at its end; UsageRaw grows by its CPU-seconds in its
    association, its account, root and its QOS, as under
    priority/multifactor."""
    root = os.path.join(RUN, "bookkeeping_dbd")
    os.makedirs(root + ".files", exist_ok=True)
    c = Cluster(root, BUILD, family_setup("multifactor", root + ".files"), ["DefMemPerCPU=100"],
                dbd_accounts={"daemon": "acct_a", "bin": "acct_a"}, enforce="associations,limits")
    try:
        c.start()
        c.next_pass()
        before = assoc_mgr(c, "daemon")
        print(f"before: {before.get(('acct_a', 'daemon'))}")
        j = c.submit("daemon", "-n", "4", "-t", "10", seconds=8)
        wait_state(c, j, ("RUNNING",))
        time.sleep(3)
        c.next_pass()
        running = assoc_mgr(c, "daemon")[("acct_a", "daemon")]
        print(f"running: {running}")
        cpu_mins = running["run_mins"].get("cpu", 0)
        if not 30 <= cpu_mins < 40:
            fail(f"while the job runs, GrpTRESRunMins cpu is {cpu_mins}: want 4 CPUs x 10 min reserved, "
                 f"less what ran ({running})")
        wait_state(c, j, ("GONE", "COMPLETED"), timeout=40)
        f = c.show_job(j)
        secs = slurm_time(f["EndTime"]) - slurm_time(f["StartTime"])
        c.next_pass()
        after = assoc_mgr(c, "daemon")
        print(f"after {secs}s: {after}")
        for key in (("acct_a", "daemon"), ("acct_a", ""), ("root", ""), ("qos", "normal")):
            rec = after.get(key)
            if rec is None:
                fail(f"scontrol show assoc_mgr has no {key}: {sorted(after)}")
            left = {k: v for k, v in rec.get("run_mins", {}).items() if v}
            if left:
                fail(f"{key}: GrpTRESRunMins not released after the job ended: {left}")
            grown = rec.get("usage", 0.0) - before.get(key, {}).get("usage", 0.0)
            if abs(grown - 4 * secs) > 4 * 1.5:
                fail(f"{key}: UsageRaw grew by {grown}, want 4 CPUs x {secs}s")
        # A restart while a job runs: slurmctld reserves its whole
        # TRES x TimeLimit again; the first pass gives back what it ran
        # before (8 CPUs x 12 s = 96 CPU-seconds, more than a minute), and
        # its usage is not charged twice.
        j = c.submit("daemon", "-n", "8", "-t", "10", seconds=300)
        wait_state(c, j, ("RUNNING",))
        time.sleep(12)
        c.next_pass()
        t_pre = time.time()
        pre = assoc_mgr(c, "daemon")[("acct_a", "daemon")]
        c.stop_ctld()
        c.start_ctld()
        c.next_pass()
        post = assoc_mgr(c, "daemon")[("acct_a", "daemon")]
        elapsed = time.time() - t_pre
        print(f"restart after {elapsed:.1f}s: {pre} -> {post}")
        if not pre["run_mins"]["cpu"] - 2 <= post["run_mins"]["cpu"] <= pre["run_mins"]["cpu"]:
            fail(f"GrpTRESRunMins cpu across the restart: {pre['run_mins']['cpu']} -> {post['run_mins']['cpu']} "
                 f"(80 reserved; what ran before the restart must stay given back)")
        if not 0 <= post["usage"] - pre["usage"] <= 8 * (elapsed + 2):
            fail(f"UsageRaw across the restart: {pre['usage']} -> {post['usage']} in {elapsed:.1f}s of 8 CPUs")
        check_reset_period(c, post)
    finally:
        c.stop()


def usage_state(c):
    with open(os.path.join(c.root, "state", "mfprio-slurm-usage")) as f:
        return dict(l.split() for l in f if l.strip())


def check_reset_period(c, before):
    """PriorityUsageResetPeriod (job j of bookkeeping_dbd runs on 8 CPUs):
    DAILY with the state file's last reset two days back clears every
    association's and QOS's UsageRaw at the first pass after the restart
    (then only the running job's seconds since that pass count) and keeps
    the latest midnight as the last reset; the next pass does not clear
    again; NOW clears at the pass a reconfigure starts."""
    c.stop_ctld()
    state = usage_state(c)
    path = os.path.join(c.root, "state", "mfprio-slurm-usage")
    with open(path, "w") as f:
        f.write(f"last_pass {state['last_pass']}\nlast_reset {int(time.time()) - 2 * 86400}\n")
    set_conf(c, lambda l: l, "PriorityUsageResetPeriod=DAILY")
    c.start_ctld()
    c.next_pass()
    cleared = assoc_mgr(c, "daemon")
    # after the reset, the pass adds what the job ran since the last pass
    # before the stop (slurmctld was down, the job was not)
    since = time.time() - int(state["last_pass"])
    midnight = int(time.mktime(time.localtime()[:3] + (0, 0, 0, 0, 0, -1)))
    print(f"DAILY, last reset 2 days back: {before['usage']} -> {cleared[('acct_a', 'daemon')]['usage']} "
          f"in {since:.1f}s; state {usage_state(c)}")
    for key in (("acct_a", "daemon"), ("acct_a", ""), ("root", ""), ("qos", "normal")):
        if not 0 <= cleared[key]["usage"] <= 8 * (since + 2) or cleared[key]["usage"] >= before["usage"]:
            fail(f"{key}: UsageRaw {cleared[key]['usage']} after the DAILY reset (before {before['usage']}, "
                 f"{since:.1f}s of 8 CPUs since the last pass before the stop)")
    if int(usage_state(c).get("last_reset", 0)) != midnight:
        fail(f"the state file's last reset {usage_state(c)}, want today's midnight {midnight}")
    time.sleep(2)
    c.next_pass()
    grown = assoc_mgr(c, "daemon")[("acct_a", "daemon")]["usage"]
    if grown <= cleared[("acct_a", "daemon")]["usage"]:
        fail(f"the next pass cleared again: {cleared[('acct_a', 'daemon')]['usage']} -> {grown}")
    set_conf(c, lambda l: "PriorityUsageResetPeriod=NOW" if l.startswith("PriorityUsageResetPeriod=") else l)
    time.sleep(3)
    t1 = time.time()
    c.next_pass()
    now_cleared = assoc_mgr(c, "daemon")[("acct_a", "daemon")]["usage"]
    print(f"NOW at reconfigure: {grown} -> {now_cleared}")
    if now_cleared >= grown or now_cleared > 8 * (time.time() - t1 + 3 + 2):
        fail(f"PriorityUsageResetPeriod=NOW and a reconfigure: UsageRaw {grown} -> {now_cleared}")


def sprio_rows(c):
    out = c.run("sprio", "-h", "-o", "%i|%r|%Y")
    return {(int(a), b.strip()): int(p) for a, b, p in (l.split("|") for l in out.splitlines() if l.strip())}


SSHARE_FIELDS = "Account,User,RawShares,NormShares,RawUsage,NormUsage,EffectvUsage,FairShare,LevelFS"


def sshare_rows(c):
    """sshare -a's share columns, by (account, user)."""
    out = c.run("sshare", "-a", "-n", "-P", "-o", SSHARE_FIELDS)
    rows = {}
    for line in out.splitlines():
        if line.strip():
            f = [x.strip() for x in line.split("|")]
            rows[(f[0], f[1])] = f[2:]
    return rows


def sshare_differs(ours, theirs):
    """The rows' differences: text columns equal, numbers within sshare's
    printed precision (RawUsage: 1, it decays between the two reads)."""
    diff = {}
    if set(ours) != set(theirs):
        return {"rows": (sorted(ours), sorted(theirs))}
    for key in ours:
        for name, a, b in zip(SSHARE_FIELDS.split(",")[2:], ours[key], theirs[key]):
            try:
                x, y = float(a), float(b)
                bad = abs(x - y) > (1.0 if name == "RawUsage" else 2e-6 + 1e-6 * abs(y))
            except ValueError:
                bad = a != b
            if bad:
                diff[(key, name)] = (a, b)
    return diff


def settled_priorities(c, timeout=30):
    """squeue's priorities once two reads 2 s apart agree and every job has
    one (Slurm's multifactor prices at its first decay pass)."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        now = c.squeue_priorities()
        if now and now == last and all(p > 0 for p in now.values()):
            return now
        last = now
        time.sleep(2)
    fail(f"priorities did not settle in {timeout}s: {last}\n{tail(c.ctld_log)}")


def case_equal_multifactor():
    """family=multifactor equals Slurm's own priority/multifactor: the same
    controller state (slurmdbd's tree, the usage of two finished jobs, four
    pending jobs on a drained node, one in two partitions, and one not yet
    eligible) priced by priority/mfprio, then,
    after a restart with PriorityType=priority/multifactor, by Slurm's
    plugin (its usage is what the adapter's bookkeeping kept in the
    association manager, saved and restored by slurmctld): the same
    priority for every job, and sprio the same in every partition."""
    root = os.path.join(RUN, "equal_multifactor")
    os.makedirs(root + ".files", exist_ok=True)
    # no age term: the two controllers price at different times
    lines = ["PriorityWeightAge=0" if l.startswith("PriorityWeightAge=") else l
             for l in family_setup("multifactor", root + ".files")]
    c = Cluster(root, BUILD, lines, ["DefMemPerCPU=100"],
                dbd_accounts={"daemon": "acct_a", "bin": "acct_a", "nobody": "acct_b"})
    try:
        c.start()
        c.run("sacctmgr", "-i", "modify", "account", "acct_b", "set", "fairshare=3")
        done = [c.submit("daemon", "-n", "8", seconds=3), c.submit("bin", "-n", "2", seconds=3)]
        for j in done:
            wait_state(c, j, ("GONE", "COMPLETED"), timeout=60)
        # the node drained: the jobs stay pending, eligible (sprio shows
        # them), and nothing runs across the switch
        c.run("scontrol", "update", f"nodename={c.node}", "state=drain", "reason=mfprio-test")
        jobs = [c.submit("daemon", "-n", "2"),
                c.submit("nobody", "-n", "2"),
                c.submit("nobody", "-n", "4", "-p", "debug,batch", "-t", "30"),
                c.submit("bin", "-n", "1", "-t", "90")]
        pending_ids = [j for j in jobs if j not in c.squeue_priorities()]
        if pending_ids:
            fail(f"jobs {pending_ids} are not pending on the drained node")
        # a job not yet eligible (its begin time ahead) is priced but sprio
        # leaves it out, under either plugin
        later = c.submit("bin", "-n", "1", "--begin=now+3600")
        wait_store(c, lambda r: r.get(("acct_b", "")) == 3, "acct_b's fairshare=3")
        c.next_pass()
        ours = c.squeue_priorities()
        ours_sprio = sprio_rows(c)
        ours_sshare = sshare_rows(c)
        print(f"priority/mfprio family=multifactor: {ours}; sprio {sorted(ours_sprio.items())}")
        if not ours.get(later) or any(j == later for j, _ in ours_sprio):
            fail(f"the job not yet eligible ({later}): priority {ours.get(later)}, sprio {sorted(ours_sprio)}")
        if len(set(ours[j] for j in jobs)) < 3:
            fail(f"too few distinct priorities to compare: {ours}")
        c.stop_ctld()
        with open(c.conf) as f:
            params = next(l for l in f.read().splitlines() if l.startswith("PriorityParameters="))
        with open(c.conf) as f:
            conf = [l for l in f.read().splitlines() if not l.startswith("PriorityParameters=")]
        with open(c.conf, "w") as f:
            f.write("\n".join("PriorityType=priority/multifactor" if l.startswith("PriorityType=") else l
                              for l in conf) + "\n")
        c.start_ctld(wait_node=False)
        theirs = settled_priorities(c)
        theirs_sprio = sprio_rows(c)
        print(f"priority/multifactor: {theirs}; sprio {sorted(theirs_sprio.items())}")
        diff = {j: (ours.get(j), theirs.get(j)) for j in jobs + [later] if ours.get(j) != theirs.get(j)}
        if diff:
            fail(f"priorities differ (mfprio, Slurm's multifactor): {diff}")
        if ours_sprio != theirs_sprio:
            fail(f"sprio differs: mfprio {sorted(ours_sprio.items())}, multifactor {sorted(theirs_sprio.items())}")
        # sshare's share columns (Slurm's bookkeeping under the adapter):
        # Fair Tree here; then the classic algorithm (NO_FAIR_TREE) under
        # Slurm's multifactor and under priority/mfprio on the same usage
        theirs_sshare = sshare_rows(c)
        compare_sshare(ours_sshare, theirs_sshare, "Fair Tree")
        set_conf(c, lambda l: l + ",NO_FAIR_TREE" if l.startswith("PriorityFlags=") else l)
        c.stop_ctld()
        c.start_ctld(wait_node=False)
        settled_priorities(c)
        theirs_sshare = sshare_rows(c)
        set_conf(c, lambda l: "PriorityType=priority/mfprio" if l.startswith("PriorityType=") else l, params)
        c.stop_ctld()
        c.start_ctld(wait_node=False)
        c.next_pass()
        compare_sshare(sshare_rows(c), theirs_sshare, "classic (NO_FAIR_TREE)")
    finally:
        c.stop()


def set_conf(c, edit, add=None):
    with open(c.conf) as f:
        lines = [edit(l) for l in f.read().splitlines()]
    with open(c.conf, "w") as f:
        f.write("\n".join(lines + ([add] if add else [])) + "\n")


def compare_sshare(ours, theirs, algo):
    print(f"sshare, {algo}: priority/mfprio {sorted(ours.items())}\npriority/multifactor {sorted(theirs.items())}")
    diff = sshare_differs(ours, theirs)
    if diff:
        fail(f"sshare ({algo}) differs (mfprio, Slurm's multifactor): {diff}")
    if not any(r[3] and float(r[3]) > 0 for r in ours.values()):
        fail(f"sshare ({algo}): no NormUsage above 0: the comparison shows nothing")


def case_bad_params():
    """A bad PriorityParameters item stops slurmctld with slurm.conf's
    file:line and the item."""
    c = make_cluster("bad_params", "maui")
    with open(c.conf) as f:
        lines = f.read().splitlines()
    n = next(i for i, l in enumerate(lines) if l.startswith("PriorityParameters="))
    lines[n] = lines[n].replace("family=maui", "family=nosuch")
    with open(c.conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        rc = c.start(expect_fail=True)
        log = tail(c.ctld_log, 40) + tail(os.path.join(c.root, "log", "slurmctld.out"), 40)
        want = f"{c.conf}:{n + 1}: PriorityParameters: family=nosuch: unknown"
        print(f"slurmctld exit {rc}; want {want!r}")
        if rc == 0 or want not in log:
            fail(f"slurmctld exit {rc}, log end:\n{log}")
    finally:
        c.stop()


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    if not BUILD or not RUN:
        print("test_slurm.py: MFPRIO_BUILD and MFPRIO_SLURM_RUN must be set", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("test_slurm.py: the live Slurm tests run the daemons as root: run as root", file=sys.stderr)
        return 1
    case = sys.argv[1]
    t0 = time.time()
    try:
        if case.startswith("prices_"):
            case_prices(case[len("prices_"):])
        elif case == "usage_restart":
            case_usage_restart()
        elif case == "end_once":
            case_end_once()
        elif case == "bad_cfg":
            case_bad_cfg()
        elif case == "bad_params":
            case_bad_params()
        elif case == "held_admin":
            case_held_admin()
        elif case == "accounts_dbd":
            case_accounts_dbd()
        elif case == "bookkeeping_dbd":
            case_bookkeeping_dbd()
        elif case == "equal_multifactor":
            case_equal_multifactor()
        else:
            print(f"unknown case {case}", file=sys.stderr)
            return 2
    except (AssertionError, ClusterError, subprocess.CalledProcessError) as e:
        print(f"FAIL {case}: {e}")
        return 1
    print(f"ok {case} ({time.time() - t0:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
