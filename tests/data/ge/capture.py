#!/usr/bin/env python3
"""Capture what the real Son of Grid Engine 8.1.9 scheduler prints for chosen queues.

Run as root on a machine with Debian 12's gridengine-master and gridengine-client
(`apt-get install gridengine-master gridengine-client`; no execd is needed: every
job stays pending, and the scheduler still prices every pending job).

    sudo tests/data/ge/capture.py [--out DIR] [SCENARIO ...]   (default: every scenario here)

--out DIR writes DIR/NAME/out/ instead of NAME/out/ here (a live run that leaves the kept
captures alone: test_ge_capture.py ... DIR compares it).

For each scenario directory tests/data/ge/NAME/in/ it sets up a private cell
(SGE_ROOT in a temporary directory, cell "mfprio", classic spooling, qmaster on
loopback port 16444, never the system's cell), starts sge_qmaster, applies

    sconf           "key value" lines over the cell's default scheduler configuration
    complexes       extra complex lines (qconf -sc format) appended to the defaults
    pe/NAME         parallel environments (qconf -Ap)
    usersets/NAME   usersets, DEPT ones giving departments (qconf -Au)
    users/NAME      Grid Engine user objects (qconf -Auser)
    projects/NAME   projects (qconf -Aprj)
    sstree          the share tree (qconf -Astree)
    jobs.in         one JSON object per line: user, project, posix_priority, job_share,
                    override_tickets (qalter -ot), pe ("mpi 4-8"), requests {complex: text}, name (qsub -N),
                    deadline_in (seconds after submission; qsub -dl), wait (seconds to sleep
                    before this submission), running (true: the job runs; running jobs come
                    first: an execd and a queue all.q with their slots are started, the jobs
                    are dispatched, then the queue is disabled so the others stay pending)

submits the jobs (qsub -w n -b y, each as its Unix user: users gea..geh are created when
missing), triggers one scheduler run (qconf -tsm) and writes into NAME/out/:

    sched_conf complexes sstree users projects usersets pe   qconf -ssconf -sc -sstree -suser
                                                        -sprj -su -sp outputs, unchanged
    qstat-pri.txt qstat-urg.txt qstat-ext.txt qstat.xml    qstat -u '*' -pri / -urg / -ext / all -xml
    jobs.jsonl      the same jobs as mfprio-host job records (ids and submission times as
                    Grid Engine gave them, department from the DEPT usersets, PE slots and
                    urgency_slots from the PE)
    now             the scheduler run's time (epoch seconds, from schedd_runlog)
    runlog          schedd_runlog of that run

tests/families/gridengine/test_ge_capture.py rebuilds every scenario from out/ alone and
compares every number and the three tables with mfprio-host's.

A scenario whose in/ holds a `profile` file ("pending N", "running M", "runs K" lines) instead of
jobs.in gets a generated queue (generated_jobs: every ticket policy of in/'s objects, negative
POSIX priorities, PE jobs, over users gea..geh), submitted by 4 qsub processes at a time; its
sconf should say `params PROFILE=1` and a short schedule_interval.  It waits for K interval runs
that saw every pending job, then prices the queue with one triggered run as above, and also
writes into out/:

    prof.log        the scheduler's PROF lines from the qmaster's messages file (every run
                    from the first submission on)
    capture.txt     pending, running, the qsub processes, the submission time and rate,
                    which runs of prof.log saw the whole queue (profiled_runs, from 0) and the
                    1-minute load average after them (the PROF times are wall clock)

    sudo tests/data/ge/capture.py profile --pending N [--running M] [--runs K] [--workers W]

does the same for a queue of any size with in/ of `profiled`, into profile/N/ here (or
DIR/profile/N/ with --out DIR), compactly: the qconf outputs, now, prof.log, capture.txt,
jobs.jsonl.xz and, instead of the qstat outputs, prices.tsv.xz (per job, in qstat's order, the
numbers qstat -pri -urg -ext -xml gives).  bench/ge_vs_sge.py reads it.
"""
import calendar
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = "/usr/lib/gridengine"
PORT = 16444
USERS = ["gea", "geb", "gec", "ged", "gee", "gef", "geg", "geh"]


def run(args, env, user=None, check=True, stdin=None):
    if user:
        args = ["setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups"] + args
    p = subprocess.run(args, env=env, cwd="/tmp", capture_output=True, text=True, input=stdin)
    if check and p.returncode != 0:
        sys.exit("capture: %s: %s%s" % (" ".join(args), p.stdout, p.stderr))
    return p.stdout if check else p.stdout + p.stderr


def ensure_users():
    for i, u in enumerate(USERS):
        try:
            pwd.getpwnam(u)
        except KeyError:
            subprocess.run(["useradd", "-M", "-s", "/bin/sh", "-u", str(2101 + i), u], check=True)


class Cell:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ge-capture-")
        os.chmod(self.dir, 0o755)  # the users submitting read the cell
        self.root = os.path.join(self.dir, "root")
        self.common = os.path.join(self.root, "mfprio", "common")
        self.spool = os.path.join(self.dir, "spool", "qmaster")
        os.makedirs(self.common)
        os.makedirs(self.spool)
        for d in ("bin", "lib", "utilbin", "util"):
            os.symlink("/var/lib/gridengine/" + d, os.path.join(self.root, d))
        self.env = dict(os.environ, SGE_ROOT=self.root, SGE_CELL="mfprio", SGE_QMASTER_PORT=str(PORT),
                        SGE_EXECD_PORT=str(PORT + 1), TZ="UTC", LC_ALL="C",
                        PATH=LIB + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
        with open(os.path.join(self.common, "bootstrap"), "w") as f:
            f.write("admin_user sgeadmin\ndefault_domain none\nignore_fqdn true\nspooling_method classic\n"
                    "spooling_lib libspoolc\nspooling_params %s;%s\nbinary_path /usr/sbin\n"
                    "qmaster_spool_dir %s\nsecurity_mode none\nlistener_threads 2\nworker_threads 2\n"
                    "scheduler_threads 1\n" % (self.common, self.spool, self.spool))
        # The machine's name resolves to 127.0.0.1, which resolves back to localhost.
        with open(os.path.join(self.common, "act_qmaster"), "w") as f:
            f.write("localhost\n")
        with open(os.path.join(self.common, "host_aliases"), "w") as f:
            f.write("localhost %s\n" % os.uname().nodename)
        conf = open("/usr/share/gridengine/default-configuration").read()
        conf = conf.replace("/var/spool/gridengine/execd", os.path.join(self.dir, "spool", "execd"))
        with open(os.path.join(self.dir, "configuration"), "w") as f:
            f.write(conf)
        spool = self.common + ";" + self.spool
        run([LIB + "/spoolinit", "classic", "libspoolc", spool, "init"], self.env)
        run([LIB + "/spooldefaults", "configuration", os.path.join(self.dir, "configuration")], self.env)
        run([LIB + "/spooldefaults", "complexes", "/usr/share/gridengine/util/resources/centry"], self.env)
        run([LIB + "/spooldefaults", "usersets", "/usr/share/gridengine/util/resources/usersets"], self.env)
        run([LIB + "/spooldefaults", "managers", "root"], self.env)
        run([LIB + "/spooldefaults", "managers", "sgeadmin"], self.env)
        subprocess.run(["chown", "-R", "sgeadmin:sgeadmin", self.dir], check=True)
        run([LIB + "/sge_qmaster"], self.env)
        for _ in range(100):
            p = subprocess.run(["qconf", "-ssconf"], env=self.env, capture_output=True, text=True)
            if p.returncode == 0 and "weight_ticket" in p.stdout:
                break
            time.sleep(0.2)
        else:
            sys.exit("capture: sge_qmaster did not answer (see %s/messages)" % self.spool)

    def qconf(self, *args, stdin_file=None):
        return run(["qconf"] + list(args) + ([stdin_file] if stdin_file else []), self.env)

    def start_execd(self, slots, pes):
        """sge_execd on this host and a queue all.q of `slots` slots (no load thresholds)."""
        self.qconf("-ah", "localhost")
        os.makedirs(os.path.join(self.dir, "spool", "execd"), exist_ok=True)
        subprocess.run(["chown", "-R", "sgeadmin:sgeadmin", os.path.join(self.dir, "spool")], check=True)
        run([LIB + "/sge_execd"], self.env)
        for _ in range(100):
            host = [l for l in run(["qhost"], self.env).splitlines() if l.startswith("localhost")]
            if host and host[0].split()[2] != "-":
                break
            time.sleep(0.3)
        else:
            sys.exit("capture: sge_execd did not report")
        # qconf -aq takes the template through $EDITOR: a script that fills it in.
        ed = os.path.join(self.dir, "queue-editor.sh")
        with open(ed, "w") as f:
            f.write("#!/bin/sh\nsed -i -e 's/^hostlist .*/hostlist localhost/' -e 's/^slots .*/slots %d/' "
                    "-e 's/^pe_list .*/pe_list %s/' -e 's/^load_thresholds .*/load_thresholds NONE/' "
                    "-e 's|^shell .*|shell /bin/sh|' -e 's|^tmpdir .*|tmpdir %s|' \"$1\"\n"
                    % (slots, " ".join(pes) or "NONE", self.dir))  # job tmpdirs go with the cell
        os.chmod(ed, 0o755)
        run(["qconf", "-aq", "all.q"], dict(self.env, EDITOR=ed))
        self.execd = True

    def stop(self):
        if getattr(self, "execd", False):
            run(["qconf", "-kej", "localhost"], self.env, check=False)  # the execd and its jobs
            time.sleep(2)
        pidfile = os.path.join(self.spool, "qmaster.pid")
        if os.path.exists(pidfile):
            pid = int(open(pidfile).read().split()[0])
            os.kill(pid, 15)
            for _ in range(100):
                if not os.path.exists("/proc/%d" % pid):
                    break
                time.sleep(0.1)
        shutil.rmtree(self.dir, ignore_errors=True)


def read_kv_lines(path):
    out = []
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            k, _, v = line.partition(" ")
            out.append((k, v.strip()))
    return out


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def setup(cell, inp, tmp):
    # Scheduler: one run only when asked (qconf -tsm), the scenario's keys.
    sconf = dict(line.split(None, 1) if len(line.split(None, 1)) == 2 else (line.strip(), "")
                 for line in cell.qconf("-ssconf").splitlines() if line.strip())
    sconf["schedule_interval"] = "0:10:0"
    sconf["flush_submit_sec"] = "0"
    sconf["flush_finish_sec"] = "0"
    if os.path.exists(os.path.join(inp, "sconf")):
        for k, v in read_kv_lines(os.path.join(inp, "sconf")):
            sconf[k] = v
    write(os.path.join(tmp, "sconf"), "".join("%-33s %s\n" % kv for kv in sconf.items()))
    cell.qconf("-Msconf", stdin_file=os.path.join(tmp, "sconf"))
    if os.path.exists(os.path.join(inp, "complexes")):
        base = cell.qconf("-sc")
        write(os.path.join(tmp, "complexes"), base + open(os.path.join(inp, "complexes")).read())
        cell.qconf("-Mc", stdin_file=os.path.join(tmp, "complexes"))
    cell.qconf("-as", "localhost")
    for u in USERS:
        cell.qconf("-au", u, "deadlineusers")
    for kind, flag in (("usersets", "-Au"), ("users", "-Auser"), ("projects", "-Aprj"), ("pe", "-Ap")):
        d = os.path.join(inp, kind)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if kind == "usersets" and name in ("deadlineusers", "defaultdepartment"):
                cell.qconf("-Mu", stdin_file=os.path.join(d, name))
            else:
                cell.qconf(flag, stdin_file=os.path.join(d, name))
    if os.path.exists(os.path.join(inp, "sstree")):
        cell.qconf("-Astree", stdin_file=os.path.join(inp, "sstree"))


def qconf_objects(text):
    """'key value' blocks of qconf -s* output -> dict (continuation lines joined)."""
    out, key = {}, None
    for line in text.splitlines():
        if line.startswith((" ", "\t")) and key:
            out[key] += line.strip().rstrip("\\")
            continue
        parts = line.split(None, 1)
        if not parts:
            continue
        key = parts[0]
        out[key] = (parts[1] if len(parts) > 1 else "").rstrip("\\").strip()
    return out


def wait_running(cell, ids):
    for _ in range(60):
        cell.qconf("-tsm")
        time.sleep(1)
        import xml.etree.ElementTree as ET
        root = ET.fromstring(run(["qstat", "-u", "*", "-xml"], cell.env))
        running = {int(j.findtext("JB_job_number")) for j in root.iter("job_list") if j.get("state") == "running"}
        if set(ids) <= running:
            return
    sys.exit("capture: jobs %s did not start" % ids)


def submit_one(cell, spec, n):
    """qsub one job as its user; (job id, spec, deadline)."""
    if spec.get("wait"):
        time.sleep(spec["wait"])
    args = ["qsub", "-w", "n", "-b", "y", "-wd", "/tmp", "-o", "/dev/null", "-e", "/dev/null", "-N", spec.get("name", "j%d" % (n + 1))]
    if spec.get("project"):
        args += ["-P", spec["project"]]
    if spec.get("posix_priority", 0) < 0:
        args += ["-p", str(spec["posix_priority"])]
    if spec.get("job_share"):
        args += ["-js", str(spec["job_share"])]
    if spec.get("pe"):
        args += ["-pe"] + spec["pe"].split(None, 1)
    for k, v in spec.get("requests", {}).items():
        args += ["-l", "%s=%s" % (k, v)]
    deadline = None
    if "deadline_in" in spec:
        deadline = int(time.time()) + spec["deadline_in"]
        args += ["-dl", time.strftime("%Y%m%d%H%M.%S", time.gmtime(deadline))]
    args += ["/bin/sleep", "86400"]  # a running job outlives the largest capture
    text = run(args, cell.env, user=spec["user"], check=False)  # exits 1 on the no-queue warning
    if "Your job " not in text:
        sys.exit("capture: %s: not submitted: %s" % (" ".join(args), text))
    job_id = int(text.split("Your job ")[1].split()[0])
    if spec.get("posix_priority", 0) > 0:  # a positive priority: an operator's qalter
        run(["qalter", "-p", str(spec["posix_priority"]), str(job_id)], cell.env)
    if spec.get("override_tickets"):
        run(["qalter", "-ot", str(spec["override_tickets"]), str(job_id)], cell.env)
    return job_id, spec, deadline


def submit(cell, inp, jobs_in, workers=1):
    """qsub each job; returns the records with Grid Engine's job ids.  workers > 1: the
    pending jobs are submitted by that many qsub processes at a time (job ids then follow
    the order the qmaster took them in, each record keeping its own)."""
    running = [s for s in jobs_in if s.get("running")]
    if jobs_in[:len(running)] != running:
        sys.exit("capture: running jobs come first in jobs.in")
    out = []
    if running:
        slots = sum(int(s["pe"].split()[1]) if s.get("pe") else 1 for s in running)
        pe_dir = os.path.join(inp, "pe")
        cell.start_execd(slots, sorted(os.listdir(pe_dir)) if os.path.isdir(pe_dir) else [])
        out = [submit_one(cell, spec, n) for n, spec in enumerate(running)]
        wait_running(cell, [job_id for job_id, _, _ in out])  # they start; the queue takes no more
        run(["qmod", "-d", "all.q"], cell.env)
    rest = list(enumerate(jobs_in[len(running):], len(running)))
    if workers > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(workers) as pool:
            out += list(pool.map(lambda nspec: submit_one(cell, nspec[1], nspec[0]), rest))
    else:
        out += [submit_one(cell, spec, n) for n, spec in rest]
    return out


def departments(cell):
    dept = {}
    for name in cell.qconf("-sul").split():
        o = qconf_objects(cell.qconf("-su", name))
        if "DEPT" in o.get("type", "") and o.get("entries", "NONE") != "NONE":
            for u in o["entries"].split(","):
                dept.setdefault(u.strip(), name)
    return dept


def job_records(cell, submitted, xml_text):
    import xml.etree.ElementTree as ET
    root = ET.fromstring(xml_text)
    submit_times, start_times, queues = {}, {}, {}
    stamp = lambda t: calendar.timegm(time.strptime(t, "%Y-%m-%dT%H:%M:%S"))
    for j in root.iter("job_list"):
        jid = int(j.findtext("JB_job_number"))
        if j.findtext("JB_submission_time"):
            submit_times[jid] = stamp(j.findtext("JB_submission_time"))
        else:  # a running job's list entry has its start only: qstat -j has the submission
            for line in run(["qstat", "-j", str(jid)], cell.env).splitlines():
                if line.startswith("submission_time:"):
                    t = line.split(":", 1)[1].strip()
                    submit_times[jid] = calendar.timegm(time.strptime(t, "%a %b %d %H:%M:%S %Y"))
        if j.get("state") == "running":
            start_times[jid] = stamp(j.findtext("JAT_start_time"))
            queues[jid] = j.findtext("queue_name")
    dept = departments(cell)
    pes = {}
    records = []
    for job_id, spec, deadline in submitted:
        if job_id not in submit_times:
            sys.exit("capture: job %d (%s) is no longer in qstat's list (a running job ended?)" %
                     (job_id, spec.get("name", "")))
        r = {"id": job_id, "name": spec.get("name", "j%d" % (len(records) + 1)), "user": spec["user"],
             "submit": submit_times[job_id]}
        if spec.get("project"):
            r["account"] = spec["project"]
        r["department"] = dept.get(spec["user"], "defaultdepartment")
        if spec.get("posix_priority"):
            r["posix_priority"] = spec["posix_priority"]
            if spec["posix_priority"] > 0:
                r["user_priority_admin"] = True  # an operator's qalter -p
        if spec.get("job_share"):
            r["job_share"] = spec["job_share"]
        if spec.get("override_tickets"):
            r["override_tickets"] = spec["override_tickets"]
        if spec.get("pe"):
            name = spec["pe"].split()[0]
            if name not in pes:
                pes[name] = qconf_objects(cell.qconf("-sp", name))
            r["pe"] = spec["pe"]
            r["urgency_slots"] = pes[name]["urgency_slots"]
            r["pe_slots"] = int(pes[name]["slots"])
        if spec.get("requests"):
            r["requests"] = spec["requests"]
        if deadline is not None:
            r["deadline"] = deadline
        if job_id in start_times:
            r["state"] = "running"
            r["start"] = start_times[job_id]
            r["queue"] = queues[job_id]
        records.append(r)
    return records


def schedule(cell, timeout=30):
    """One scheduler run (qconf -tsm); its start time (epoch seconds)."""
    log = os.path.join(cell.common, "schedd_runlog")
    if os.path.exists(log):
        os.remove(log)
    time.sleep(1)
    cell.qconf("-tsm")
    for _ in range(int(timeout * 10)):
        if os.path.exists(log) and "STOP-SCHEDULER-RUN" in open(log).read():
            break
        time.sleep(0.1)
    else:
        sys.exit("capture: no scheduler run")
    text = open(log).read()
    first = text.splitlines()[0]
    stamp = first.split("|")[0]
    now = calendar.timegm(time.strptime(stamp, "%a %b %d %H:%M:%S %Y"))
    time.sleep(1)  # the run's priorities reach the qmaster
    return now, text


def write_objects(cell, inp, out):
    """The qconf outputs the replay reads (sched_conf complexes sstree users projects usersets pe)."""
    write(os.path.join(out, "sched_conf"), cell.qconf("-ssconf"))
    write(os.path.join(out, "complexes"), cell.qconf("-sc"))
    if os.path.exists(os.path.join(inp, "sstree")):
        write(os.path.join(out, "sstree"), cell.qconf("-sstree"))
    for kind, lflag, sflag in (("users", "-suserl", "-suser"), ("projects", "-sprjl", "-sprj"),
                               ("usersets", "-sul", "-su"), ("pe", "-spl", "-sp")):
        p = subprocess.run(["qconf", lflag], env=cell.env, capture_output=True, text=True)
        names = p.stdout.split() if p.returncode == 0 else []
        write(os.path.join(out, kind), "".join(cell.qconf(sflag, n) for n in names))


def capture(name, out_root=HERE, profile=None):
    """One scenario NAME (in/jobs.in, or in/profile: a generated queue, PROF lines kept), or,
    with `profile` given, the generated queue of that size into OUT/profile/N/ (compact)."""
    inp = os.path.join(HERE, name, "in")
    full = profile is None
    if full and os.path.exists(os.path.join(inp, "profile")):
        profile = dict((k, int(v)) for k, v in read_kv_lines(os.path.join(inp, "profile")))
    if full:
        out = os.path.join(out_root, name, "out")
    else:
        out = os.path.join(out_root, "profile", str(profile["pending"]))
    os.makedirs(out, exist_ok=True)
    cell = Cell()
    try:
        tmp = cell.dir
        setup(cell, inp, tmp)
        if profile:
            jobs_in = generated_jobs(profile["pending"], profile.get("running", 0))
            mark = messages_size(cell)
            t0 = time.time()
            submitted = submit(cell, inp, jobs_in, workers=profile.get("workers", 4))
            took = time.time() - t0
            runs = wait_profiled_runs(cell, mark, profile["pending"], profile.get("runs", 3))
            load = os.getloadavg()[0]  # the runs' times are wall clock: what else the machine ran
            quiet_scheduler(cell, tmp)
        else:
            jobs_in = [json.loads(l) for l in open(os.path.join(inp, "jobs.in")) if l.strip()]
            submitted = submit(cell, inp, jobs_in)
        before = len(scheduler_runs(cell, 0)) if profile else 0
        now, runlog = schedule(cell, timeout=30 + len(jobs_in) / 100)
        q = lambda *a: run(["qstat", "-u", "*"] + list(a), cell.env)
        xml_text = q("-pri", "-urg", "-ext", "-xml")
        if profile and len(scheduler_runs(cell, 0)) != before + 1:
            sys.exit("capture: a scheduler run other than the triggered one priced the queue")
        if full:
            write(os.path.join(out, "qstat.xml"), xml_text)
            write(os.path.join(out, "qstat-pri.txt"), q("-pri"))
            write(os.path.join(out, "qstat-urg.txt"), q("-urg"))
            write(os.path.join(out, "qstat-ext.txt"), q("-ext"))
            write(os.path.join(out, "runlog"), runlog)
        else:
            write_xz(os.path.join(out, "prices.tsv.xz"), prices_tsv(xml_text))
        write(os.path.join(out, "now"), "%d\n" % now)
        write_objects(cell, inp, out)
        records = job_records(cell, submitted, xml_text)
        text = "".join(json.dumps(r) + "\n" for r in records)
        if full:
            write(os.path.join(out, "jobs.jsonl"), text)
        else:
            write_xz(os.path.join(out, "jobs.jsonl.xz"), text)
        if profile:
            pending = len(jobs_in) - profile.get("running", 0)
            write(os.path.join(out, "prof.log"), "".join(l + "\n" for l in prof_lines(cell, mark)))
            write(os.path.join(out, "capture.txt"),
                  "pending %d\nrunning %d\nworkers %d\nsubmit_seconds %.1f\nqsub_per_second %.1f\n"
                  "profiled_runs %s\nloadavg %.2f\n" % (pending, profile.get("running", 0), profile.get("workers", 4),
                                                       took, pending / took if took else 0,
                                                       ",".join(str(r) for r in runs), load))
    finally:
        cell.stop()
    print("captured %s: %d jobs, now %d" % (out, len(records), now))


# ---- profile: the real scheduler's own run times (params PROFILE=1) --------------------

# The per-job values qstat -pri -urg -ext -xml gives, kept for a large queue (prices.tsv.xz).
PRICE_TAGS = ["JB_job_number", "state", "JAT_prio", "JB_nurg", "JB_nppri", "JAT_ntix", "JB_rrcontr",
              "JB_wtcontr", "JB_dlcontr", "JB_priority", "tickets", "otickets", "ftickets", "stickets", "JAT_share"]


def generated_jobs(pending, running):
    """The profiled queue: `running` running jobs, then `pending` pending ones mixing every
    ticket policy of the in/ objects (share tree through users and a project node, functional
    and override tickets of users, projects and a department, job shares), negative POSIX
    priorities and 4-slot PE jobs, over the eight users."""
    jobs = []
    for i in range(running):
        s = {"user": USERS[i % len(USERS)], "name": "r%d" % i, "running": True}
        if i % 3 == 1:
            s["project"] = "projX"
        jobs.append(s)
    for i in range(pending):
        s = {"user": USERS[i % len(USERS)], "name": "p%d" % i}
        if i % 5 < 2:
            s["project"] = ("projX", "projY")[i % 5]
        if i % 4 == 2:
            s["posix_priority"] = -(1 + (i * 37) % 1023)
        if i % 7 == 3:
            s["job_share"] = 10 * (1 + i % 5)
        if i % 50 == 5:
            s["pe"] = "mpi 4"
        if i % 97 == 11:
            s["override_tickets"] = 100 * (1 + i % 3)
        jobs.append(s)
    return jobs


def messages_size(cell):
    path = os.path.join(cell.spool, "messages")
    return os.path.getsize(path) if os.path.exists(path) else 0


def prof_lines(cell, start):
    """The scheduler's PROF lines in the qmaster's messages file from byte `start` on."""
    path = os.path.join(cell.spool, "messages")
    if not os.path.exists(path):
        return []
    with open(path, errors="replace") as f:
        f.seek(start)
        return [l.rstrip("\n") for l in f if "PROF:" in l]


def scheduler_runs(cell, start):
    """The PROF lines from byte `start` cut into runs (each ends with 'schedd run took')."""
    runs, cur = [], []
    for line in prof_lines(cell, start):
        cur.append(line)
        if "PROF: schedd run took" in line:
            runs.append(cur)
            cur = []
    return runs


def run_pending(run_lines):
    """J(qw) of a run's 'scheduled in' line (None when the run has none)."""
    for line in run_lines:
        if "PROF: scheduled in" in line:
            return int(line.split(" J(qw)")[0].rsplit(None, 1)[1])
    return None


def wait_profiled_runs(cell, start, pending, count):
    """Waits for `count` scheduler runs (schedule_interval) that saw every pending job;
    their indices among the runs from `start` on."""
    deadline = time.time() + 120 + count * (25 + pending / 200)
    while time.time() < deadline:
        runs = scheduler_runs(cell, start)
        full = [i for i, r in enumerate(runs) if run_pending(r) is not None and run_pending(r) >= pending]
        if len(full) >= count:
            return full[:count]
        time.sleep(1)
    sys.exit("capture: no %d scheduler runs over %d pending jobs (PROF lines: %s/messages)" %
             (count, pending, cell.spool))


def quiet_scheduler(cell, tmp):
    """schedule_interval back to 10 minutes, after the run already timed has passed: the
    triggered run (qconf -tsm) is then the only one pricing the queue."""
    text = cell.qconf("-ssconf")
    write(os.path.join(tmp, "sconf-quiet"), "".join(
        ("schedule_interval                 0:10:0\n" if l.startswith("schedule_interval") else l + "\n")
        for l in text.splitlines()))
    n = len(scheduler_runs(cell, 0))
    cell.qconf("-Msconf", stdin_file=os.path.join(tmp, "sconf-quiet"))
    for _ in range(600):  # the run the old interval still had planned
        if len(scheduler_runs(cell, 0)) > n:
            break
        time.sleep(0.1)
    time.sleep(2)


def prices_tsv(xml_text):
    import xml.etree.ElementTree as ET
    rows = ["\t".join(PRICE_TAGS)]
    for j in ET.fromstring(xml_text).iter("job_list"):
        vals = {c.tag: (c.text or "") for c in j}
        vals["state"] = j.get("state")
        rows.append("\t".join(vals.get(t, "") for t in PRICE_TAGS))
    return "\n".join(rows) + "\n"


def write_xz(path, text):
    import lzma
    with lzma.open(path, "wb", preset=9 | lzma.PRESET_EXTREME) as f:
        f.write(text.encode())


def main():
    if os.geteuid() != 0:
        sys.exit("capture: run as root (it starts sge_qmaster and submits as users gea..geh)")
    if not os.path.exists(LIB + "/sge_qmaster"):
        sys.exit("capture: install gridengine-master and gridengine-client first")
    ensure_users()
    args = sys.argv[1:]
    out_root = HERE
    if args[:1] == ["--out"]:
        if len(args) < 2:
            sys.exit("capture: --out needs a directory")
        out_root = os.path.abspath(args[1])
        args = args[2:]
    if args[:1] == ["profile"]:
        opts = {"pending": None, "running": 0, "runs": 3, "workers": 4}
        rest = args[1:]
        while rest:
            key = rest[0][2:] if rest[0].startswith("--") else None
            if key not in opts or len(rest) < 2 or not rest[1].isdigit():
                sys.exit("capture: profile: %s: expected --pending N [--running M] [--runs K] [--workers W]"
                         % rest[0])
            opts[key] = int(rest[1])
            rest = rest[2:]
        if not opts["pending"] or not opts["runs"] or not opts["workers"]:
            sys.exit("capture: profile: --pending, --runs and --workers must be positive")
        capture("profiled", out_root, profile=opts)
        return
    known = sorted(d for d in os.listdir(HERE) if os.path.isdir(os.path.join(HERE, d, "in")))
    for name in args:
        if name not in known:
            sys.exit("capture: no scenario %s (known: %s)" % (name, " ".join(known)))
    for name in args or known:
        capture(name, out_root)


if __name__ == "__main__":
    main()
