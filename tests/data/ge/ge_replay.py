"""One captured Grid Engine scenario as mfprio's inputs: the store and the conf.

Shared by tests/families/gridengine/test_ge_capture.py (the CI comparison) and
bench/ge_vs_sge.py (the real scheduler's pass time beside ours), so both rebuild a
capture the same way: mfprio-acct import-sstree (when the capture has a share tree) and
import-qconf from the captured qconf outputs, and a conf naming the captured sched_conf
and complexes.
"""
import os


def store_and_conf(run, acct, cap, plugin_dir, tmp):
    """run(argv) runs a tool (the caller decides what a failure does); returns the conf's path."""
    db = os.path.join(tmp, "ge.db")
    if os.path.exists(os.path.join(cap, "sstree")):
        run([acct, "--db", db, "import-sstree", os.path.join(cap, "sstree")])
    run([acct, "--db", db, "import-qconf", "--users", os.path.join(cap, "users"), "--projects",
         os.path.join(cap, "projects"), "--usersets", os.path.join(cap, "usersets")])
    conf = os.path.join(tmp, "ge.conf")
    with open(conf, "w") as f:
        f.write("PriorityType=priority/gridengine\nPriorityParameters=sched_conf=%s,complexes=%s\n"
                "PluginDir=%s\nAccountingStorageLoc=%s\n" % (os.path.join(cap, "sched_conf"),
                                                             os.path.join(cap, "complexes"),
                                                             plugin_dir, db))
    return conf
