#!/usr/bin/env bash
# slurm.sh — a one-node Slurm cluster for the Slurm sweep test: munged, slurmctld and slurmd from Debian's
# munge and slurm-wlm, with their own key, config, ports, state and logs, all under DIR. Needs root (slurmd
# runs jobs as their user). Clients reach it with SLURM_CONF=DIR/slurm.conf.
#   tests/hosts/slurm.sh start DIR [PID]  starts the three daemons and waits for the node to be idle; with
#                                         PID, they are also stopped when that process ends
#   tests/hosts/slurm.sh stop DIR    stops them by their pid files
set -euo pipefail
cmd=${1:?start or stop} dir=${2:?DIR} watch=${3:-}
stop_pid() { # a pid file's daemon: TERM, then KILL after five seconds
    [ -s "$1" ] || return 0
    local pid
    pid=$(cat "$1")
    kill "$pid" 2> /dev/null || return 0
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || return 0; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null || true
}
case $cmd in
stop)
    stop_pid "$dir/slurmd.pid"
    stop_pid "$dir/slurmctld.pid"
    stop_pid "$dir/munged.pid"
    exit 0 ;;
start) ;;
*) echo "slurm.sh: start or stop, not '$cmd'" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "slurm.sh: needs root (slurmd runs the jobs as their user)" >&2; exit 77; }
for d in munged slurmctld slurmd sbatch; do
    command -v "$d" > /dev/null || { echo "slurm.sh: $d is missing (Debian's munge, slurmctld, slurmd, slurm-client; make test-deps)" >&2; exit 1; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
chmod 711 "$dir" # munged wants its socket's folder open to everyone for execute
mkdir -p "$dir/state" "$dir/spool"
head -c 1024 /dev/urandom > "$dir/munge.key"
chmod 600 "$dir/munge.key"
munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" --log-file="$dir/munged.log" \
    --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed" < /dev/null > /dev/null 2>&1
# Two free ports: random ones that nothing answers on.
free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 30000))
        (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null || { echo "$p"; return 0; }
    done
    return 1
}
ctld_port=$(free_port) slurmd_port=$(free_port)
host=$(hostname -s)
cat > "$dir/slurm.conf" <<CONF
ClusterName=arenasimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=30
NodeName=arenasimnode NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=sweep Nodes=arenasimnode Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -c -f "$SLURM_CONF" < /dev/null > /dev/null 2>&1
slurmd -c -f "$SLURM_CONF" -N arenasimnode < /dev/null > /dev/null 2>&1
if [ -n "$watch" ]; then
    nohup bash -c 'while kill -0 "$1" 2> /dev/null; do sleep 1; done; "$2" stop "$3"' _ "$watch" "$(realpath "$0")" "$dir" \
        < /dev/null > /dev/null 2>&1 &
fi
for _ in $(seq 100); do
    [ "$(sinfo -h -o %t 2> /dev/null)" = idle ] && exit 0
    sleep 0.2
done
echo "slurm.sh: the node did not come up within 20 s (see $dir/slurmctld.log and $dir/slurmd.log)" >&2
exit 1
