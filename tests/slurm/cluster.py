"""cluster.py - a private Slurm 22.05 cluster on loopback for the live tests:
munged (as user munge), slurmctld and one slurmd, no systemd, every file
under one directory of the build tree, fixed ports checked free first.

The tests load priority/mfprio from the build tree (PluginDir = Debian's
plugin directory : the adapter's build directory) and the family from the
build tree's plugin/ (PriorityParameters=mfprio_plugin_dir=).  A daemon that
does not come up is a failure (ClusterError with its log's end), never a
skip.
"""
import os
import pwd
import shutil
import socket
import subprocess
import time

SLURM_PLUGINS = "/usr/lib/x86_64-linux-gnu/slurm-wlm"
CTLD_PORT = 16817
SLURMD_PORT = 16818
DBD_PORT = 16819
MARIADB_PORT = 16820
NODE_CPUS = 8
NODE_MEM = 16000


class ClusterError(Exception):
    pass


def tail(path, n=30):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError as e:
        return f"({path}: {e})"


def port_free(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


class Cluster:
    """One test's cluster in `root` (wiped first).  `priority_lines` are the
    Priority* lines of slurm.conf besides PriorityType (priority/mfprio unless
    `priority_type` says otherwise; bench_locks.py runs Slurm's own
    multifactor from `plugin_dir_first`, searched before Debian's)."""

    def __init__(self, root, build, priority_lines, extra_lines=(), priority_type="priority/mfprio",
                 plugin_dir_first=None, dbd_accounts=None, enforce="associations"):
        self.root = root
        self.build = build
        self.node = "mfpn1"
        shutil.rmtree(root, ignore_errors=True)
        for d in ("state", "spool", "munge", "log"):
            os.makedirs(os.path.join(root, d))
        os.chmod(root, 0o755)
        munge = pwd.getpwnam("munge")
        os.chown(os.path.join(root, "munge"), munge.pw_uid, munge.pw_gid)
        os.chmod(os.path.join(root, "munge"), 0o755)
        self.sock = os.path.join(root, "munge", "munge.socket")
        self.conf = os.path.join(root, "slurm.conf")
        self.ctld_log = os.path.join(root, "log", "slurmctld.log")
        self.procs = {}
        adapter_dir = os.path.join(build, "host-shim", "slurm")
        lines = [
            "ClusterName=mfpriotest",
            "SlurmctldHost=localhost(127.0.0.1)",
            f"SlurmctldPort={CTLD_PORT}",
            f"SlurmdPort={SLURMD_PORT}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.sock}",
            f"PluginDir={plugin_dir_first + ':' if plugin_dir_first else ''}{SLURM_PLUGINS}:{adapter_dir}",
            f"StateSaveLocation={root}/state",
            f"SlurmdSpoolDir={root}/spool",
            f"SlurmctldPidFile={root}/slurmctld.pid",
            f"SlurmdPidFile={root}/slurmd.pid",
            f"SlurmctldLogFile={self.ctld_log}",
            f"SlurmdLogFile={root}/log/slurmd.log",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            "MpiDefault=none",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "SwitchType=switch/none",
            "SchedulerType=sched/builtin",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            "SlurmdParameters=config_overrides",
            "ReturnToService=2",
            "MinJobAge=600",
            # job ids unique across cases: a step left running by an earlier
            # case reports to this port by job id
            f"FirstJobId={1 + int(time.time() * 10) % 50_000_000}",
            "KillWait=2",
            "InactiveLimit=0",
            f"PriorityType={priority_type}",
        ]
        # dbd_accounts ({user: account}): slurmdbd over a private MariaDB,
        # the associations added with sacctmgr before slurmctld starts
        self.dbd_accounts = dbd_accounts
        if dbd_accounts:
            lines += ["AccountingStorageType=accounting_storage/slurmdbd", "AccountingStorageHost=localhost",
                      f"AccountingStoragePort={DBD_PORT}", f"AccountingStoragePass=socket={self.sock}",
                      f"AccountingStorageEnforce={enforce}"]
            os.makedirs(os.path.join(root, "mariadb"))
            with open(os.path.join(root, "slurmdbd.conf"), "w") as f:
                f.write("\n".join([
                    "AuthType=auth/munge", f"AuthInfo=socket={self.sock}", "DbdHost=localhost",
                    f"DbdPort={DBD_PORT}", "SlurmUser=root", f"PidFile={root}/slurmdbd.pid",
                    f"LogFile={root}/log/slurmdbd.log", "StorageType=accounting_storage/mysql",
                    "StorageHost=127.0.0.1", f"StoragePort={MARIADB_PORT}", "StorageUser=root",
                    "StorageLoc=slurm_acct_db", "DebugLevel=info"]) + "\n")
            os.chmod(os.path.join(root, "slurmdbd.conf"), 0o600)
        lines += list(priority_lines) + list(extra_lines) + [
            f"NodeName={self.node} NodeHostname=localhost NodeAddr=127.0.0.1 CPUs={NODE_CPUS} "
            f"RealMemory={NODE_MEM} State=UNKNOWN",
            f"PartitionName=batch Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
            f"PartitionName=debug Nodes={self.node} MaxTime=60 State=UP",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    # ---- daemons -------------------------------------------------------
    def start(self, expect_fail=False):
        for port in (CTLD_PORT, SLURMD_PORT):
            if not port_free(port):
                raise ClusterError(f"port {port} (127.0.0.1) is in use: another slurmctld/slurmd?")
        if "munged" not in self.procs:
            self._start_munged()
        if self.dbd_accounts and "slurmdbd" not in self.procs:
            self._start_dbd()
        return self.start_ctld(expect_fail)

    def _start_dbd(self):
        for port in (DBD_PORT, MARIADB_PORT):
            if not port_free(port):
                raise ClusterError(f"port {port} (127.0.0.1) is in use: another slurmdbd/mariadbd?")
        data = os.path.join(self.root, "mariadb")
        r = subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={data}", "--user=root",
                            "--auth-root-authentication-method=normal", "--skip-test-db"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise ClusterError("mariadb-install-db failed: " + r.stderr[-2000:])
        self._spawn("mariadbd", ["mariadbd", "--no-defaults", f"--datadir={data}", f"--socket={data}/mysql.sock",
                                 f"--port={MARIADB_PORT}", "--bind-address=127.0.0.1", "--user=root",
                                 "--skip-log-bin", "--innodb-buffer-pool-size=64M",
                                 "--innodb-flush-log-at-trx-commit=0"], "mariadbd.log", env=None)
        self._wait(lambda: socket.create_connection(("127.0.0.1", MARIADB_PORT), 0.2).close() or True,
                   "mariadbd", os.path.join(self.root, "log", "mariadbd.log"), "mariadbd")
        self._spawn("slurmdbd", ["slurmdbd", "-D"], "slurmdbd.out")
        self._wait(lambda: subprocess.run(["sacctmgr", "-n", "show", "cluster"], env=self.env,
                                          capture_output=True).returncode == 0,
                   "slurmdbd", os.path.join(self.root, "log", "slurmdbd.log"), "slurmdbd")
        self.run("sacctmgr", "-i", "add", "cluster", "mfpriotest")
        accounts = sorted(set(self.dbd_accounts.values()))
        self.run("sacctmgr", "-i", "add", "account", ",".join(accounts))
        for user, acct in sorted(self.dbd_accounts.items()):
            self.run("sacctmgr", "-i", "add", "user", user, f"account={acct}")

    def _spawn(self, name, cmd, log_name, env="cluster"):
        """Starts daemon `name` in the foreground of its own process, its
        output appended to log/<log_name>, with the cluster's SLURM_CONF
        (env=None: the test's own environment)."""
        with open(os.path.join(self.root, "log", log_name), "a") as out:
            self.procs[name] = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                                env=self.env if env == "cluster" else env)
        return self.procs[name]

    def _stop(self, name):
        """Stops daemon `name` (SIGTERM, SIGKILL after 30 s) if it runs."""
        p = self.procs.pop(name, None)
        if p and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def _wait(self, probe, what, log, proc, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.procs[proc].poll() is not None:
                raise ClusterError(f"{what} exited: " + tail(log))
            try:
                if probe():
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise ClusterError(f"{what} not up in {timeout} s: " + tail(log))

    def _start_munged(self):
        cmd = ["setpriv", "--reuid=munge", "--regid=munge", "--clear-groups", "munged", "-F",
               f"--socket={self.sock}", f"--pid-file={self.root}/munge/munged.pid",
               f"--log-file={self.root}/munge/munged.log", f"--seed-file={self.root}/munge/munged.seed"]
        self._spawn("munged", cmd, "munged.out", env=None)
        for _ in range(100):
            if os.path.exists(self.sock):
                return
            if self.procs["munged"].poll() is not None:
                break
            time.sleep(0.05)
        raise ClusterError("munged did not start: " + tail(f"{self.root}/munge/munged.log"))

    def start_ctld(self, expect_fail=False, wait_node=True):
        self._spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf], "slurmctld.out")
        if expect_fail:
            try:
                rc = self.procs["slurmctld"].wait(timeout=20)
            except subprocess.TimeoutExpired:
                raise ClusterError("slurmctld kept running; it should have refused to start")
            del self.procs["slurmctld"]
            return rc
        self._wait_ctld()
        if "slurmd" not in self.procs or self.procs["slurmd"].poll() is not None:
            self._spawn("slurmd", ["slurmd", "-D", "-N", self.node, "-f", self.conf], "slurmd.out")
        if wait_node:  # a drained node stays drained
            self._wait_node()
        return 0

    def _wait_ctld(self):
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.procs["slurmctld"].poll() is not None:
                raise ClusterError("slurmctld exited: " + tail(self.ctld_log))
            r = subprocess.run(["scontrol", "ping"], env=self.env, capture_output=True, text=True)
            if "UP" in r.stdout:
                return
            time.sleep(0.2)
        raise ClusterError("slurmctld did not answer scontrol ping in 30 s: " + tail(self.ctld_log))

    def _wait_node(self):
        deadline = time.time() + 30
        state = ""
        while time.time() < deadline:
            state = self.run("sinfo", "-h", "-n", self.node, "-o", "%T").strip()
            if state.startswith("idle") or state.startswith("mixed") or state.startswith("alloc"):
                return
            time.sleep(0.2)
        raise ClusterError(f"node {self.node} not idle in 30 s (state {state!r}): " +
                           tail(f"{self.root}/log/slurmd.log"))

    def stop_ctld(self):
        self._stop("slurmctld")

    def _cancel_all(self):
        """Ends every job first: a job step outlives slurmd and would report
        its end, by job id, to the next case's controller on the same port."""
        ctld = self.procs.get("slurmctld")
        if not ctld or ctld.poll() is not None:
            return
        ids = self.run("squeue", "-h", "-o", "%i", check=False).split()
        if ids:
            self.run("scancel", *ids, check=False)
        deadline = time.time() + 20
        while time.time() < deadline and self.run("squeue", "-h", "-t", "R,CG,S", "-o", "%i", check=False).strip():
            time.sleep(0.2)

    def stop(self, cancel=True):
        """Stops every daemon; first ends every job unless cancel=False
        (bench_locks.py: its jobs never ran, and cancelling 10^5 of them
        one by one takes minutes)."""
        if cancel:
            self._cancel_all()
        for name in ("slurmd", "slurmctld", "slurmdbd", "mariadbd", "munged"):
            self._stop(name)

    # ---- clients ---------------------------------------------------------
    def run(self, *args, user=None, check=True):
        cmd = list(args)
        if user:
            cmd = ["setpriv", f"--reuid={user}", f"--regid={pwd.getpwnam(user).pw_gid}", "--clear-groups"] + cmd
        r = subprocess.run(cmd, env=self.env, capture_output=True, text=True)
        if check and r.returncode != 0:
            raise ClusterError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
        return r.stdout

    def submit(self, user, *opts, seconds=300):
        out = self.run("sbatch", "--parsable", "--chdir=/tmp", "--output=/dev/null", *opts,
                       f"--wrap=sleep {seconds}", user=user)
        return int(out.strip().split(";")[0])

    def squeue_priorities(self):
        out = self.run("squeue", "-h", "-t", "PD", "-o", "%i %Q")
        return {int(a): int(b) for a, b in (l.split() for l in out.splitlines() if l.strip())}

    def show_job(self, job_id):
        out = self.run("scontrol", "-o", "show", "job", str(job_id))
        fields = {}
        for tok in out.split():
            if "=" in tok:
                k, v = tok.split("=", 1)
                fields.setdefault(k, v)
        return fields

    def pass_file(self):
        return os.path.join(self.root, "state", "mfprio-pass.jsonl")

    def read_pass(self):
        import json
        try:
            with open(self.pass_file()) as f:
                return [json.loads(l) for l in f if l.strip()]
        except OSError:
            return None

    def pass_mtime(self):
        try:
            return os.stat(self.pass_file()).st_mtime_ns
        except OSError:
            return 0

    def next_pass(self, timeout=20):
        """Asks for a pass (scontrol reconfigure wakes the adapter's pass
        thread) and waits until it has published (the priorities are stored
        under the job write lock before the publish)."""
        before = self.pass_mtime()
        self.run("scontrol", "reconfigure")
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.pass_mtime() != before:
                return self.read_pass()
            time.sleep(0.1)
        raise ClusterError("no pass published in %ds after scontrol reconfigure: %s" %
                           (timeout, tail(self.ctld_log)))
