#!/usr/bin/env python3
"""The real Son of Grid Engine 8.1.9 against priority/gridengine, from captured files alone.

For every scenario tests/data/ge/NAME/out/ (made by tests/data/ge/capture.py on a machine
running the real daemons): the store is built from the captured qconf outputs with
mfprio-acct (import-sstree, import-qconf), the conf names the captured sched_conf and
complexes, mfprio-host prices the captured job records at the scheduler run's time, and

  * every number qstat -xml gives per job (prio, nurg, npprior, ntckts, rrcontr, wtcontr,
    dlcontr, ppri, tckts, otckt, ftckt, stckt, share) equals ours printed as qstat prints it;
  * the pending order is qstat's;
  * mfprio-host sprio --view pri / urg / ext prints qstat -pri / -urg / -ext's text, byte
    for byte.

usage: test_ge_capture.py MFPRIO_HOST MFPRIO_ACCT PLUGIN_DIR DATA_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HOST, ACCT, PLUGINS, DATA = (os.path.abspath(a) for a in sys.argv[1:5])
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, DATA)
import ge_replay  # noqa: E402  (tests/data/ge/ge_replay.py)
failures = []


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def qstat_jobs(path):
    jobs = []
    for j in ET.parse(path).getroot().iter("job_list"):
        jobs.append({c.tag: (c.text or "") for c in j})
    return jobs


def opti8(v):  # qstat's urgency columns: %8.0f, %8.3g above 99999999
    return ("%.3g" % v) if v > 99999999 else ("%.0f" % v)


def mask_usage(text, running):
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    at, end = lines[0].find(" cpu ") + 1, lines[0].find(" tckts ") + 1
    for k in range(2, len(lines)):
        if lines[k].split() and int(lines[k].split()[0]) in running:
            lines[k] = lines[k][:at] + "-" * (end - at) + lines[k][end:]
    return "".join(lines)


def scenario(name, tmp):
    out = os.path.join(DATA, name, "out")
    conf = ge_replay.store_and_conf(run, ACCT, out, PLUGINS, tmp)
    now = open(os.path.join(out, "now")).read().strip()
    jobs = os.path.join(out, "jobs.jsonl")
    ours = {o["job_id"]: o for o in json.loads(run([HOST, "--conf", conf, "--now", now, "sprio", "--json",
                                                      "--all-states", "--job-file", jobs]) or "[]")}
    running = {json.loads(l)["id"] for l in open(jobs) if json.loads(l).get("state") == "running"}
    theirs = qstat_jobs(os.path.join(out, "qstat.xml"))
    checks = [("JAT_prio", "prio", "%.5f"), ("JB_nurg", "nurg", "%.5f"), ("JB_nppri", "npprior", "%.5f"),
              ("JAT_ntix", "ntckts", "%.5f"), ("JB_rrcontr", "rrcontr", None), ("JB_wtcontr", "wtcontr", None),
              ("JB_dlcontr", "dlcontr", None), ("JB_priority", "ppri", "%.0f"), ("tickets", "tckts", "trunc"),
              ("otickets", "otckt", "trunc"), ("ftickets", "ftckt", "trunc"), ("stickets", "stckt", "trunc"),
              ("JAT_share", "share", "%.5f")]
    n = 0
    for j in theirs:
        jid = int(j["JB_job_number"])
        o = ours.get(jid)
        if o is None:
            failures.append("%s: job %d: not priced by mfprio-host" % (name, jid))
            continue
        terms = {t["name"]: t for t in o["terms"]}
        for tag, term, fmt in checks:
            if tag not in j:
                continue
            if term not in terms:
                failures.append("%s: job %d: no term %s" % (name, jid, term))
                continue
            v = terms[term]["contribution"] if term in ("rrcontr", "wtcontr", "dlcontr") else terms[term]["factor"]
            mine = opti8(v) if fmt is None else str(int(v)) if fmt == "trunc" else fmt % v
            n += 1
            if mine != j[tag]:
                failures.append("%s: job %d: %s %s, 8.1.9 %s (ours %r)" % (name, jid, term, mine, j[tag], v))
            # The text sprio -l prints for a qstat column is qstat's (TCKTS truncated, not rounded).
            if terms[term].get("text") is not None and term in ("prio", "nurg", "ntckts", "npprior", "tckts"):
                n += 1
                if terms[term]["text"] != j[tag]:
                    failures.append("%s: job %d: %s text %s, 8.1.9 %s" % (name, jid, term, terms[term]["text"], j[tag]))
    # qstat's order: the running jobs, then the pending ones by prio desc (then submission and job
    # id: no ties in the captures).
    theirs_order = [int(j["JB_job_number"]) for j in theirs]
    prio = lambda i: [t for t in ours[i]["terms"] if t["name"] == "prio"][0]["factor"]
    mine_order = sorted(running & set(ours)) + sorted(set(ours) - running, key=lambda i: -prio(i))
    if theirs_order != mine_order:
        failures.append("%s: pending order %s, 8.1.9 %s" % (name, mine_order, theirs_order))
    for view in ("pri", "urg", "ext"):
        text_path = os.path.join(out, "qstat-%s.txt" % view)
        if not os.path.exists(text_path):
            continue
        mine = run([HOST, "--conf", conf, "--now", now, "sprio", "--view", view, "--all-states", "--job-file",
                    jobs])
        real = open(text_path).read()
        if view == "ext":  # running jobs' usage (cpu mem io) never reaches mfprio-host: not compared
            real, mine = mask_usage(real, running), mask_usage(mine, running)
        if mine != real:
            failures.append("%s: sprio --view %s differs from qstat -%s:\n--- 8.1.9\n%s--- ours\n%s" %
                            (name, view, view, real, mine))
        n += 1
    # A view the layout lacks: refused before any pricing, naming the ones it has; nothing printed.
    p = subprocess.run([HOST, "--conf", conf, "--now", now, "sprio", "--view", "nope", "--job-file", jobs],
                       capture_output=True, text=True)
    if p.returncode == 0 or p.stdout or "--view nope: the plugin's view layout (sge-8.1.9) has the views pri, urg, ext" \
            not in p.stderr or "job" in p.stderr:
        failures.append("%s: sprio --view nope: exit %d, out %r, err %r" % (name, p.returncode, p.stdout, p.stderr))
    return n + 1


def main():
    names = sorted(d for d in os.listdir(DATA) if os.path.isdir(os.path.join(DATA, d, "out")))
    if not names:
        sys.exit("no captured scenario under %s" % DATA)
    total = 0
    for name in names:
        tmp = tempfile.mkdtemp(prefix="ge-capture-test-")
        try:
            total += scenario(name, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    print("%d scenarios, %d values and tables compared, %d differ" % (len(names), total, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
