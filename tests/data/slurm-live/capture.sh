#!/bin/bash
# capture.sh - bring up a one-node Slurm (22.05, Debian 12 packages) with
# slurmdbd and priority/multifactor, build an account tree, make real usage
# with real jobs, queue pending jobs and capture what sprio, sshare, sacctmgr
# and scontrol print.  The captures in this directory were made by it; the
# golden test (tests/host/test_slurm_live_e2e.cpp) reads them.
#
# Run as root on a scratch machine or container (it installs packages,
# creates Unix users alice..frank and starts daemons without systemd):
#   tests/data/slurm-live/capture.sh all OUTDIR
# or step by step:
#   capture.sh install | up | accounts | usage | pending | capture DIR |
#              classic DIR | fairtree DIR |
#              variant DIR | decay DIR | down
# `all OUTDIR` runs every step in the order the committed captures were made:
# OUTDIR/fairtree, OUTDIR/classic (NO_FAIR_TREE), OUTDIR/fairtree again (the
# committed one: Fair Tree after the restart, with the short sprio views) and
# OUTDIR/variant (DEPTH_OBLIVIOUS, PriorityFavorSmall, PriorityWeightAssoc),
# OUTDIR/decay (Fair Tree, PriorityDecayHalfLife=10).
# Everything lives under $WORK (default /tmp/slurm-live); logs in $WORK/log.
set -euo pipefail

WORK=${WORK:-/tmp/slurm-live}
export SLURM_CONF=$WORK/etc/slurm.conf
HOST=$(hostname -s)
USERS="alice bob carol dave erin frank"

log() { echo "[capture $(date +%T)] $*" >&2; }

install_pkgs() {
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm slurmdbd munge mariadb-server
}

write_confs() {
  mkdir -p "$WORK"/{etc,state,spool,log,run}
  # The slurm.conf of the capture (PriorityFlags is edited by `classic`).
  cat > "$SLURM_CONF" <<EOF
ClusterName=live
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldDebug=info
DebugFlags=Priority
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=500
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageEnforce=associations,limits,qos
JobCompType=jobcomp/none
PriorityType=priority/multifactor
PriorityDecayHalfLife=0
PriorityUsageResetPeriod=MONTHLY
PriorityCalcPeriod=1
PriorityMaxAge=1:00:00
PriorityWeightAge=10000
PriorityWeightFairshare=100000
PriorityWeightJobSize=5000
PriorityWeightPartition=20000
PriorityWeightQOS=30000
PriorityWeightTRES=CPU=2000,Mem=1000
NodeName=$HOST CPUs=16 RealMemory=16000 State=UNKNOWN
PartitionName=batch Nodes=$HOST Default=YES PriorityJobFactor=10 MaxTime=INFINITE State=UP
PartitionName=low Nodes=$HOST PriorityJobFactor=2 MaxTime=INFINITE State=UP
EOF
  cat > "$WORK/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=slurmpw
StorageLoc=slurm_acct_db
LogFile=$WORK/log/slurmdbd.log
PidFile=$WORK/run/slurmdbd.pid
EOF
  chmod 600 "$WORK/etc/slurmdbd.conf"
}

wait_for() {  # wait_for SECONDS CMD...
  local n=$1; shift
  for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  log "timed out waiting for: $*"; return 1
}

up() {
  write_confs
  mkdir -p /run/munge && chown munge:munge /run/munge
  runuser -u munge -- /usr/sbin/munged
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  (mariadbd --user=mysql > "$WORK/log/mariadb.log" 2>&1 &)
  wait_for 60 mysqladmin ping
  mysql -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmpw';
            GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
  (slurmdbd -D > "$WORK/log/slurmdbd.out" 2>&1 &)
  wait_for 60 sacctmgr -n show cluster
  sacctmgr -i add cluster live || true
  (slurmctld -D -i > "$WORK/log/slurmctld.out" 2>&1 &)
  wait_for 60 scontrol ping
  (slurmd -D > "$WORK/log/slurmd.out" 2>&1 &)
  wait_for 60 bash -c "sinfo -h -o %T | grep -qE 'idle|mixed'"
  log "cluster up"
}

accounts() {
  for u in $USERS; do id "$u" >/dev/null 2>&1 || useradd -m "$u"; done
  sacctmgr -i modify qos normal set Priority=10
  sacctmgr -i add qos high Priority=100
  sacctmgr -i add account physics parent=root fairshare=40
  sacctmgr -i add account theory parent=physics fairshare=30
  sacctmgr -i add account exp parent=physics fairshare=10
  sacctmgr -i add account chem parent=root fairshare=60
  sacctmgr -i add user alice account=theory fairshare=2 qos=normal,high
  sacctmgr -i add user bob account=theory fairshare=1 qos=normal,high
  sacctmgr -i add user carol account=exp fairshare=1 qos=normal,high
  sacctmgr -i add user dave account=exp fairshare=parent qos=normal,high
  sacctmgr -i add user erin account=chem fairshare=3 qos=normal,high
  sacctmgr -i add user frank account=chem fairshare=1 qos=normal,high
  sleep 2
}

as() { local u=$1; shift; runuser -u "$u" -- "$@"; }

usage() {
  # Real jobs make real usage (CPU-seconds, no decay: PriorityDecayHalfLife=0).
  local common=(--chdir=/tmp -o /dev/null)
  as alice sbatch "${common[@]}" -n 4 --wrap "sleep 40"
  as bob sbatch "${common[@]}" -n 1 --wrap "sleep 20"
  as carol sbatch "${common[@]}" -n 2 --wrap "sleep 30"
  as dave sbatch "${common[@]}" -n 1 --wrap "sleep 30"
  as erin sbatch "${common[@]}" -n 3 --wrap "sleep 15"
  as frank sbatch "${common[@]}" -n 2 --wrap "sleep 45"
  wait_for 240 bash -c '[ -z "$(squeue -h)" ]'
  # Let one decay pass (PriorityCalcPeriod=1 minute) fold the ended jobs' usage in.
  sleep 70
}

pending() {
  # The node is drained, so these stay pending (and accrue age) while their
  # priorities are recalculated every calc period.
  scontrol update nodename="$HOST" state=drain reason=capture
  local common=(--chdir=/tmp -o /dev/null)
  as alice sbatch "${common[@]}" -n 2 -p batch --wrap "sleep 10"
  as alice sbatch "${common[@]}" -n 8 --mem=4000 -p low --qos=high --wrap "sleep 10"
  as bob sbatch "${common[@]}" -n 1 -p batch --qos=high --wrap "sleep 10"
  as carol sbatch "${common[@]}" -n 4 -p low --wrap "sleep 10"
  as dave sbatch "${common[@]}" -n 1 -p batch --wrap "sleep 10"
  as erin sbatch "${common[@]}" -n 16 -p batch,low --wrap "sleep 10"
  as frank sbatch "${common[@]}" -n 2 --nice=100 -p batch --wrap "sleep 10"
  as frank sbatch "${common[@]}" -n 1 -p batch --hold --wrap "sleep 10"
  # A few calc periods of age.
  sleep 200
}

capture() {
  local out=$1
  mkdir -p "$out"
  # Capture just after a priority recalculation so every job's factors are
  # from one pass; the pass's time is in the copy of slurmctld.log.
  date -u +%s > "$out/capture_time.txt"
  date -u +%Y-%m-%dT%H:%M:%SZ >> "$out/capture_time.txt"
  echo "local time zone of the captured timestamps: $(date +%Z)" >> "$out/capture_time.txt"
  slurmctld -V > "$out/version.txt"
  cp "$SLURM_CONF" "$out/slurm.conf"
  sprio > "$out/sprio.txt"
  sprio -n > "$out/sprio_n.txt"
  sprio -u alice,erin > "$out/sprio_u.txt"
  sprio -l > "$out/sprio_l.txt"
  sprio -n -l > "$out/sprio_nl.txt"
  sprio -w > "$out/sprio_w.txt"
  sshare -a -l -P > "$out/sshare_alP.txt"
  sshare -a -l > "$out/sshare_al.txt"
  sacctmgr show assoc -P format=Cluster,Account,User,Partition,Share,Priority,ParentName,QOS,DefaultQOS > "$out/sacctmgr_assoc.txt"
  sacctmgr show qos -P format=Name,Priority,UsageFactor > "$out/sacctmgr_qos.txt"
  scontrol show assoc_mgr flags=assoc,qos > "$out/assoc_mgr.txt"
  scontrol show job -d > "$out/scontrol_jobs.txt"
  squeue -o "%.8i %.9P %.8u %.10a %.6q %.8T %.10Q %.12r %.5C %V" > "$out/squeue.txt"
  scontrol show config | grep -i prior > "$out/config_prio.txt"
  date -u +%s >> "$out/capture_time.txt"
  cp "$WORK/log/slurmctld.log" "$out/slurmctld.log"
  log "captured into $out"
}

restart_ctld() {
  scontrol shutdown slurmctld || true
  wait_for 60 bash -c '! scontrol ping | grep -q UP'
  sleep 3
  (slurmctld -D > "$WORK/log/slurmctld2.out" 2>&1 &)
  wait_for 60 scontrol ping
  sleep 80
}

classic() {
  # Same cluster, same usage and jobs, PriorityFlags=NO_FAIR_TREE.
  sed -i 's/^PriorityType=priority\/multifactor$/&\nPriorityFlags=NO_FAIR_TREE/' "$SLURM_CONF"
  restart_ctld
  capture "$1"
}

fairtree() {
  # Back to the default (Fair Tree) after `classic`.
  sed -i '/^PriorityFlags=NO_FAIR_TREE$/d' "$SLURM_CONF"
  restart_ctld
  capture "$1"
}

variant() {
  # After `fairtree`: DEPTH_OBLIVIOUS, PriorityFavorSmall=YES and an
  # association factor (PriorityWeightAssoc, user associations with Priority).
  sacctmgr -i modify user alice set priority=50
  sacctmgr -i modify user bob set priority=10
  sed -i 's/^PriorityType=priority\/multifactor$/&\nPriorityFlags=DEPTH_OBLIVIOUS\nPriorityFavorSmall=YES\nPriorityWeightAssoc=7000/' "$SLURM_CONF"
  restart_ctld
  capture "$1"
}

decay() {
  # After `variant`: Fair Tree again with PriorityDecayHalfLife=10 (minutes);
  # the usage (whole CPU-seconds so far) decays at every pass from the restart
  # on.  sshare_before_alP.txt is the usage just before.
  mkdir -p "$1"
  sshare -a -l -P > "$1/sshare_before_alP.txt"
  sed -i -e '/^PriorityFlags=DEPTH_OBLIVIOUS$/d' -e '/^PriorityFavorSmall=YES$/d' -e '/^PriorityWeightAssoc=7000$/d' \
    -e 's/^PriorityDecayHalfLife=0$/PriorityDecayHalfLife=10/' "$SLURM_CONF"
  restart_ctld
  capture "$1"
}

down() {
  for p in slurmd slurmctld slurmdbd; do
    [ -f "$WORK/run/$p.pid" ] && kill "$(cat "$WORK/run/$p.pid")" 2>/dev/null || true
  done
  sleep 2
  mysqladmin shutdown 2>/dev/null || true
  [ -f /run/munge/munged.pid ] && kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
  log "daemons stopped"
}

case "${1:-}" in
  install) install_pkgs ;;
  up) up ;;
  accounts) accounts ;;
  usage) usage ;;
  pending) pending ;;
  capture) capture "${2:?capture DIR}" ;;
  classic) classic "${2:?classic DIR}" ;;
  fairtree) fairtree "${2:?fairtree DIR}" ;;
  variant) variant "${2:?variant DIR}" ;;
  decay) decay "${2:?decay DIR}" ;;
  down) down ;;
  all)
    out=${2:?all OUTDIR}
    install_pkgs; up; accounts; usage; pending
    capture "$out/fairtree"; classic "$out/classic"; fairtree "$out/fairtree"
    variant "$out/variant"; decay "$out/decay"; down ;;
  *) echo "usage: $0 install|up|accounts|usage|pending|capture DIR|classic DIR|fairtree DIR|variant DIR|decay DIR|down|all OUTDIR" >&2; exit 2 ;;
esac
