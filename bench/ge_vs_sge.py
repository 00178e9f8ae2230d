#!/usr/bin/env python3
"""The real Son of Grid Engine 8.1.9 scheduler's pass time beside priority/gridengine's, same queue.

    bench/ge_vs_sge.py BUILD_DIR [--reps N] [CAPTURE_DIR ...]

CAPTURE_DIR: a queue captured by `tests/data/ge/capture.py profile --pending N` (default: every
tests/data/ge/profile/*/), or a profiled scenario's out/ (tests/data/ge/profiled/out: qstat.xml).  Only the captured files are read (no daemon runs here): the qconf
outputs, the job records (jobs.jsonl.xz), the scheduler run's time (now), the priorities qstat
gave (prices.tsv.xz) and the scheduler's own PROF lines (prof.log, params PROFILE=1).

For each queue it

  1. rebuilds the store as tests/families/gridengine/test_ge_capture.py does (mfprio-acct
     import-sstree and import-qconf, the captured sched_conf and complexes);
  2. checks that every value qstat -xml gave per job (prio nurg npprior ntckts rrcontr wtcontr
     dlcontr ppri tckts otckt ftckt stckt share) equals mfprio-host sprio --json's, printed as
     qstat prints it, and that qstat's pending order never puts a job above one we price higher;
  3. times our whole-queue pass (BUILD_DIR/bench/mfprio-bench-ge-pass: prioritize() alone,
     a warm-up then N repetitions, median) and prints it beside the median of the real
     scheduler's profiled runs over the same queue, phase by phase, per pass and per job.

The 8.1.9 phases that do what our pass does are "static urgency" (urgency of every job),
"job ticket calculation" (printed twice per run: the pending jobs with the running ones, then
the running ones alone) and "normalizing job tickets" (ntckts, nurg, npprior and prio): their
sum is the row compared.  "job-order calculation" is all of sgeee_scheduler() plus sending the
orders; "scheduled in" the whole run (queue and job lists split, dispatching, every order), "schedd
run took" with the copy of the qmaster's lists.  8.1.9 measures with times(): 10 ms steps, and
its phase times are wall clock (capture.txt gives the load average when they were taken); only
"scheduled in" also gives CPU time (user + system, from times(): the whole qmaster process, every
thread, during the run), printed as a row of its own.  The
last line gives two ratios: 8.1.9's matching phases over our pass (wall), and 8.1.9's whole run
over our pass (CPU; the run does more than our pass, the phases alone have no CPU figure).

Exit status: 0, or 1 when a value or the order differs, or a tool fails.
"""
import json
import lzma
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "ge", "profile")
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data", "ge"))
import ge_replay  # noqa: E402  (tests/data/ge/ge_replay.py: a capture as the store and conf)

# qstat -xml tag, our term, how qstat prints it (as in test_ge_capture.py).
CHECKS = [("JAT_prio", "prio", "%.5f"), ("JB_nurg", "nurg", "%.5f"), ("JB_nppri", "npprior", "%.5f"),
          ("JAT_ntix", "ntckts", "%.5f"), ("JB_rrcontr", "rrcontr", None), ("JB_wtcontr", "wtcontr", None),
          ("JB_dlcontr", "dlcontr", None), ("JB_priority", "ppri", "%.0f"), ("tickets", "tckts", "trunc"),
          ("otickets", "otckt", "trunc"), ("ftickets", "ftckt", "trunc"), ("stickets", "stckt", "trunc"),
          ("JAT_share", "share", "%.5f")]
# The PROF phases of one 8.1.9 scheduler run, in the order printed.
PHASES = [("static urgency", r"PROF: static urgency took ([0-9.]+) s"),
          ("job ticket calculation", r"PROF: job ticket calculation: init: ([0-9.]+) s, pass 0: ([0-9.]+) s, "
                                     r"pass 1: ([0-9.]+), pass2: ([0-9.]+), calc: ([0-9.]+) s"),
          ("normalizing job tickets", r"PROF: normalizing job tickets took ([0-9.]+) s"),
          ("job-order calculation", r"PROF: job-order calculation took ([0-9.]+) s"),
          ("scheduled in", r"PROF: scheduled in ([0-9.]+) "),
          ("scheduled in, its CPU (u + s)", r"PROF: scheduled in [0-9.]+ \(u [0-9.]+ \+ s [0-9.]+ = ([0-9.]+)\)"),
          ("schedd run took", r"PROF: schedd run took: ([0-9.]+) s")]
MATCHING = ["static urgency", "job ticket calculation", "normalizing job tickets"]


def fail(msg):
    sys.exit("ge_vs_sge: " + msg)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()[:2000]))
    return p.stdout


def read_text(path):
    if os.path.exists(path):
        return open(path).read()
    if os.path.exists(path + ".xz"):
        return lzma.open(path + ".xz", "rt").read()
    fail("%s: missing (and no %s.xz)" % (path, path))


def kv_file(path):
    return dict(l.split(None, 1) for l in read_text(path).splitlines() if l.strip())


def profiled_runs(cap):
    """{phase: [seconds per profiled run]} from prof.log: the runs capture.txt names."""
    runs, cur = [], []
    for line in read_text(os.path.join(cap, "prof.log")).splitlines():
        cur.append(line)
        if "PROF: schedd run took" in line:
            runs.append(cur)
            cur = []
    picked = [int(i) for i in kv_file(os.path.join(cap, "capture.txt"))["profiled_runs"].split(",")]
    if not picked or max(picked) >= len(runs):
        fail("%s: capture.txt names runs %s, prof.log has %d" % (cap, picked, len(runs)))
    out = {name: [] for name, _ in PHASES}
    for i in picked:
        for name, pattern in PHASES:
            found = [m for m in (re.search(pattern, l) for l in runs[i]) if m]
            if not found:
                fail("%s: profiled run %d has no '%s' line" % (cap, i, name))
            out[name].append(sum(float(g) for m in found for g in m.groups()))
    out["jobs"] = [int(re.search(r"jobs: (\d+)", runs[i][-1]).group(1)) for i in picked]
    return out


def qstat_prices(cap):
    """Per job, qstat's numbers: prices.tsv(.xz), else a scenario's qstat.xml."""
    if not os.path.exists(os.path.join(cap, "prices.tsv.xz")) and os.path.exists(os.path.join(cap, "qstat.xml")):
        import xml.etree.ElementTree as ET
        return [{c.tag: (c.text or "") for c in j} for j in ET.parse(os.path.join(cap, "qstat.xml")).iter("job_list")]
    rows = read_text(os.path.join(cap, "prices.tsv")).splitlines()
    head = rows[0].split("\t")
    return [dict(zip(head, r.split("\t"))) for r in rows[1:] if r]


def opti8(v):  # qstat's urgency columns: %8.0f, %8.3g above 99999999
    return ("%.3g" % v) if v > 99999999 else ("%.0f" % v)


def compare(theirs, ours, running):
    """(values compared, differences); differences as text, the first 20 kept."""
    diffs, n = [], 0
    for j in theirs:
        jid = int(j["JB_job_number"])
        o = ours.get(jid)
        if o is None:
            diffs.append("job %d: not priced by mfprio-host" % jid)
            continue
        terms = {t["name"]: t for t in o["terms"]}
        for tag, term, fmt in CHECKS:
            if j.get(tag, "") == "" or term not in terms:
                continue
            v = terms[term]["contribution"] if term in ("rrcontr", "wtcontr", "dlcontr") else terms[term]["factor"]
            mine = opti8(v) if fmt is None else str(int(v)) if fmt == "trunc" else fmt % v
            n += 1
            if mine != j[tag]:
                diffs.append("job %d: %s %s, 8.1.9 %s" % (jid, term, mine, j[tag]))
    # qstat lists the pending jobs by prio, highest first: ours must never rise along that order.
    prio = lambda jid: [t for t in ours[jid]["terms"] if t["name"] == "prio"][0]["factor"]
    pend = [int(j["JB_job_number"]) for j in theirs if int(j["JB_job_number"]) not in running]
    pend = [i for i in pend if i in ours]
    for a, b in zip(pend, pend[1:]):
        n += 1
        if prio(b) > prio(a) + 1e-9:
            diffs.append("order: 8.1.9 lists job %d (ours %.6f) before job %d (ours %.6f)" % (a, prio(a), b, prio(b)))
    return n, diffs


def one(build, cap, reps, tmp):
    host = os.path.join(build, "host-shim", "mfprio-host")
    acct = os.path.join(build, "accounting", "mfprio-acct")
    passer = os.path.join(build, "bench", "mfprio-bench-ge-pass")
    for tool in (host, acct, passer):
        if not os.access(tool, os.X_OK):
            fail("%s: not built (meson compile -C %s %s)" % (tool, build, os.path.relpath(tool, build)))
    conf = ge_replay.store_and_conf(run, acct, cap, os.path.join(build, "plugin"), tmp)
    jobs = os.path.join(tmp, "jobs.jsonl")
    with open(jobs, "w") as f:
        f.write(read_text(os.path.join(cap, "jobs.jsonl")))
    now = read_text(os.path.join(cap, "now")).strip()
    running = {json.loads(l)["id"] for l in open(jobs) if json.loads(l).get("state") == "running"}

    ours = {o["job_id"]: o for o in json.loads(run([host, "--conf", conf, "--now", now, "sprio", "--json",
                                                      "--all-states", "--job-file", jobs]))}
    n, diffs = compare(qstat_prices(cap), ours, running)

    mine = json.loads(run([passer, conf, jobs, now, str(reps)]))
    real = profiled_runs(cap)
    jobs_n = mine["pending"] + mine["running"]
    if real["jobs"] and max(real["jobs"]) != jobs_n:
        diffs.append("8.1.9's profiled runs saw %s jobs, the job file has %d" % (real["jobs"], jobs_n))
    return {"n": n, "diffs": diffs, "mine": mine, "real": real, "jobs": jobs_n}


def report(cap, r):
    mine, real, jobs = r["mine"], r["real"], r["jobs"]
    print("queue %s: %d pending + %d running jobs (8.1.9: %d profiled runs; ours: %d repetitions)" %
          (os.path.relpath(cap), mine["pending"], mine["running"], len(real["jobs"]), len(mine["wall_ns"])))
    print("  values: %d compared (every qstat -xml number per job and the pending order), %d differ" %
          (r["n"], len(r["diffs"])))
    for d in r["diffs"][:20]:
        print("    DIFF " + d)
    load = kv_file(os.path.join(cap, "capture.txt")).get("loadavg")
    if load:
        print("  load average when 8.1.9's runs were timed: %s (its phase times are wall clock)" % load.strip())
    print("  %-46s %12s %12s %12s" % ("phase", "median ms", "min ms", "median ns/job"))
    matched = [sum(real[p][k] for p in MATCHING) for k in range(len(real["jobs"]))]
    rows = [("8.1.9 " + name, real[name]) for name, _ in PHASES] + [
        ("8.1.9 urgency + tickets + normalizing", matched)]
    for label, secs in rows:
        s = statistics.median(secs)
        print("  %-46s %12.1f %12.1f %12.0f" % (label, s * 1e3, min(secs) * 1e3, s * 1e9 / jobs))
    for label, key in (("ours: prioritize() wall", "wall_ns"), ("ours: prioritize() thread cpu", "cpu_ns")):
        s = statistics.median(mine[key])
        print("  %-46s %12.1f %12.1f %12.0f" % (label, s / 1e6, min(mine[key]) / 1e6, s / jobs))
    wall = statistics.median(mine["wall_ns"])
    m = statistics.median(matched)
    if m > 0:
        cpu = statistics.median(real["scheduled in, its CPU (u + s)"])
        print("  8.1.9's matching phases / ours, wall: %.1fx; 8.1.9's whole run / our pass, CPU: %.1fx" %
              (m * 1e9 / wall, cpu * 1e9 / statistics.median(mine["cpu_ns"])))
    else:
        print("  8.1.9's matching phases: below its 10 ms step in every run (a larger queue is needed)")


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        fail("usage: ge_vs_sge.py BUILD_DIR [--reps N] [CAPTURE_DIR ...]")
    build, reps, caps = os.path.abspath(args[0]), 7, []
    args = args[1:]
    while args:
        if args[0] == "--reps":
            if len(args) < 2 or not args[1].isdigit() or not 1 <= int(args[1]) <= 1000:
                fail("--reps needs a number from 1 to 1000")
            reps, args = int(args[1]), args[2:]
        elif args[0].startswith("-"):
            fail("%s: unknown option (usage: ge_vs_sge.py BUILD_DIR [--reps N] [CAPTURE_DIR ...])" % args[0])
        else:
            caps.append(os.path.abspath(args[0]))
            args = args[1:]
    if not caps:
        if not os.path.isdir(DATA):
            fail("no captured queue under %s (tests/data/ge/capture.py profile --pending N)" % DATA)
        caps = sorted((os.path.join(DATA, d) for d in os.listdir(DATA) if os.path.isdir(os.path.join(DATA, d))),
                      key=lambda p: int(os.path.basename(p)) if os.path.basename(p).isdigit() else 0)
        if not caps:
            fail("no captured queue under %s (tests/data/ge/capture.py profile --pending N)" % DATA)
    bad = 0
    for cap in caps:
        if not os.path.isdir(cap):
            fail("%s: no such capture directory" % cap)
        tmp = tempfile.mkdtemp(prefix="ge-vs-sge-")
        try:
            r = one(build, cap, reps, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        report(cap, r)
        bad += len(r["diffs"]) > 0
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
