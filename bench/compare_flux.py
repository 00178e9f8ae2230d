#!/usr/bin/env python3
"""compare_flux.py - the side-by-side: mfprio's cold recompute
against flux-accounting's update-fshare on the same tree.

  bench/compare_flux.py [--build DIR] [--assocs N] [--runs R] [--dir OUT] [--keep]

1. `mfprio-bench-tree OUT N` writes the benchmarks' comparison shape (root ->
   20 departments -> 50 groups each, N users spread evenly, Zipf usage:
   generator.cpp make_comparison_tree) as an mfprio store and as
   flux-accounting CSVs (bank_table.csv, association_table.csv).
2. Two flux-accounting databases are written from the CSVs with
   flux-accounting's schema for association_table and bank_table (column
   names and types of its create_db; usage in job_usage, default fair share
   0.5): flux-noindex.db as create_db makes it (the only index on
   association_table is its primary key (username, bank)), and
   flux-index.db with one more index, on association_table(bank).
3. mfprio's cold recompute `mfprio-host --conf C decay --now T` (open, load,
   build, fair share, persist) is run R times as a process; the median wall
   time is printed.
4. If flux-accounting is installed (`flux account-update-fshare` runs), its
   update-fshare is timed R times on each database.  Otherwise the script
   says so and prints the figures once measured on this machine class
   (8.3 - 10.5 s unindexed, 387 ms indexed).

No timing is asserted: the script prints figures and exits 0 (1 on a setup
error, naming what failed).
"""
import argparse
import csv
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

# flux-accounting's association_table and bank_table: the column names and
# types of its create_db (fluxacct/accounting/create_db.py), written here so
# the comparison can be rerun without flux-accounting installed.
ASSOCIATION_TABLE = """
CREATE TABLE association_table (
  creation_time    bigint(20)  NOT NULL,
  mod_time         bigint(20)  DEFAULT 0          NOT NULL,
  active           int(11)     DEFAULT 1          NOT NULL,
  username         tinytext    NOT NULL,
  userid           int(11)     DEFAULT 65534      NOT NULL,
  bank             tinytext    NOT NULL,
  default_bank     tinytext    NOT NULL,
  shares           int(11)     DEFAULT 1          NOT NULL ON CONFLICT REPLACE DEFAULT 1,
  job_usage        real        DEFAULT 0.0        NOT NULL,
  fairshare        real        DEFAULT 0.5        NOT NULL ON CONFLICT REPLACE DEFAULT 0.5,
  max_running_jobs int(11)     DEFAULT 5          NOT NULL ON CONFLICT REPLACE DEFAULT 5,
  max_active_jobs  int(11)     DEFAULT 7          NOT NULL ON CONFLICT REPLACE DEFAULT 7,
  max_nodes        int(11)     DEFAULT 2147483647 NOT NULL ON CONFLICT REPLACE DEFAULT 2147483647,
  max_cores        int(11)     DEFAULT 2147483647 NOT NULL ON CONFLICT REPLACE DEFAULT 2147483647,
  queues           tinytext    DEFAULT ''         NOT NULL ON CONFLICT REPLACE DEFAULT '',
  projects         tinytext    DEFAULT '*'        NOT NULL ON CONFLICT REPLACE DEFAULT '*',
  default_project  tinytext    DEFAULT '*'        NOT NULL ON CONFLICT REPLACE DEFAULT '*',
  max_sched_jobs   int(11)     DEFAULT 2147483647 NOT NULL ON CONFLICT REPLACE DEFAULT 2147483647,
  PRIMARY KEY (username, bank)
)"""
BANK_TABLE = """
CREATE TABLE bank_table (
  bank_id           integer    PRIMARY KEY AUTOINCREMENT,
  bank              text       NOT NULL,
  active            int(11)    DEFAULT 1   NOT NULL,
  parent_bank       text       DEFAULT '',
  shares            int        NOT NULL,
  job_usage         real       DEFAULT 0.0 NOT NULL,
  priority          real       DEFAULT 0.0 NOT NULL ON CONFLICT REPLACE DEFAULT 0.0,
  ignore_older_than bigint(20) DEFAULT 0
)"""
BANK_INDEX = "CREATE INDEX association_table_bank ON association_table(bank)"

# measured once on this machine class with flux-accounting's own code
RECORDED = {"unindexed": "8.3 - 10.5 s", "indexed": "387 ms"}

MULTIFACTOR_CONF = [
    ("PriorityType", "priority/multifactor"),
    ("PriorityDecayHalfLife", "7-0"),
    ("PriorityCalcPeriod", "5"),
    ("PriorityMaxAge", "7-0"),
    ("PriorityWeightAge", "1000"),
    ("PriorityWeightFairshare", "10000"),
    ("PriorityWeightJobSize", "1000"),
    ("PriorityWeightPartition", "1000"),
    ("PriorityWeightQOS", "2000"),
    ("PriorityWeightTRES", "CPU=500,Mem=250,GRES/gpu=3000"),
]


def fail(msg):
    print("compare_flux: " + msg, file=sys.stderr)
    sys.exit(1)


def write_flux_db(path, banks_csv, assocs_csv, index):
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)
    con = sqlite3.connect(path)
    con.execute(ASSOCIATION_TABLE)
    con.execute(BANK_TABLE)
    if index:
        con.execute(BANK_INDEX)
    now = int(time.time())
    with open(banks_csv, newline="") as f:
        rows = [(r["bank"], r["parent_bank"], int(r["shares"]), float(r["job_usage"])) for r in csv.DictReader(f)]
    con.executemany("INSERT INTO bank_table (bank, parent_bank, shares, job_usage) VALUES (?, ?, ?, ?)", rows)
    nbanks = len(rows)
    with open(assocs_csv, newline="") as f:
        rows = [(now, r["username"], int(r["userid"]), r["bank"], r["default_bank"], int(r["shares"]),
                 float(r["job_usage"])) for r in csv.DictReader(f)]
    con.executemany("INSERT INTO association_table (creation_time, username, userid, bank, default_bank, shares,"
                    " job_usage) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return nbanks, len(rows)


def time_runs(cmd, runs, env=None):
    """Median, min, max wall seconds of `runs` runs (after one warm-up run)."""
    def once():
        t0 = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        t = time.monotonic() - t0
        if p.returncode != 0:
            fail("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode(errors="replace").strip()[:400]))
        return t
    once()
    ts = [once() for _ in range(runs)]
    return statistics.median(ts), min(ts), max(ts)


def flux_update_fshare():
    """The update-fshare command when flux-accounting is installed, else None."""
    flux = shutil.which("flux")
    if not flux:
        return None
    p = subprocess.run([flux, "account-update-fshare", "--help"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return [flux, "account-update-fshare"] if p.returncode == 0 else None


def fmt(t):
    return "%.0f ms" % (t * 1e3) if t < 10 else "%.1f s" % t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "build-release"), help="meson build tree (release)")
    ap.add_argument("--assocs", type=int, default=100000, help="user associations (default 100000)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5; median printed)")
    ap.add_argument("--dir", help="where the stores go (default: a new temp dir, removed unless --keep)")
    ap.add_argument("--keep", action="store_true", help="keep the stores")
    a = ap.parse_args()
    if a.assocs < 1 or a.runs < 1:
        fail("--assocs and --runs must be >= 1")
    tree = os.path.join(a.build, "bench", "mfprio-bench-tree")
    host = os.path.join(a.build, "host-shim", "mfprio-host")
    plugins = os.path.join(a.build, "plugin")
    for p in (tree, host):
        if not os.access(p, os.X_OK):
            fail(p + ": not built (meson setup %s --buildtype=release -Dtests=false && meson compile -C %s)"
                 % (a.build, a.build))
    out = a.dir or tempfile.mkdtemp(prefix="mfprio-cmpflux-")
    os.makedirs(out, exist_ok=True)
    try:
        p = subprocess.run([tree, out, str(a.assocs)], capture_output=True, text=True)
        if p.returncode != 0:
            fail(p.stderr.strip())
        print(p.stdout.strip())
        banks_csv = os.path.join(out, "bank_table.csv")
        assocs_csv = os.path.join(out, "association_table.csv")
        dbs = {}
        for name, index in (("unindexed", False), ("indexed", True)):
            path = os.path.join(out, "flux-%s.db" % ("index" if index else "noindex"))
            nb, na = write_flux_db(path, banks_csv, assocs_csv, index)
            dbs[name] = path
            print("flux-accounting schema, %s: %s (%d banks, %d associations%s)"
                  % (name, path, nb, na, "; index on association_table(bank)" if index else ""))

        conf = os.path.join(out, "mfprio.conf")
        with open(conf, "w") as f:
            for k, v in MULTIFACTOR_CONF:
                f.write("%s=%s\n" % (k, v))
            f.write("AccountingStorageLoc=%s\n" % os.path.join(out, "mfprio.db"))
        now = str(1_700_000_000 + 86400)
        med, lo, hi = time_runs([host, "--conf", conf, "--plugin-dir", plugins, "decay", "--now", now], a.runs)
        print()
        print("%-62s %10s   (min %s, max %s, %d runs)" % ("mfprio cold recompute: mfprio-host decay --now T",
                                                          fmt(med), fmt(lo), fmt(hi), a.runs))
        cmd = flux_update_fshare()
        if cmd:
            for name in ("unindexed", "indexed"):
                fm, flo, fhi = time_runs(cmd + ["-p", dbs[name]], a.runs)
                print("%-62s %10s   (min %s, max %s; %.1fx mfprio)" % (
                    "flux-accounting update-fshare, " + name, fmt(fm), fmt(flo), fmt(fhi), fm / med))
        else:
            print("flux-accounting is not installed here (no `flux account-update-fshare`): its figures as")
            print("once measured on this machine class, same tree and size:")
            for name in ("unindexed", "indexed"):
                print("%-62s %10s" % ("  flux-accounting update-fshare, " + name, RECORDED[name]))
            print("rerun with flux-accounting installed (and --keep) to time it on the databases above.")
    finally:
        if not a.keep and not a.dir:
            shutil.rmtree(out, ignore_errors=True)
        elif a.keep:
            print("kept " + out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
