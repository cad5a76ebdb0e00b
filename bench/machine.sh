#!/usr/bin/env bash
# machine.sh start|end|made — one markdown line saying where a timing ran, for the tables whose columns are
# seconds (a ratio measured side by side is only read right beside the machine that measured it), or where a
# deterministic table was made:
#   start: the date, the commit, the CPU model, the cores, the load average (1, 5, 15 min), OpenBLAS's
#          core type (OPENBLAS_CORETYPE, set on some machines of this kind) and its threads;
#   end:   the load average when the part finished;
#   made:  "DATE at commit C on CPU, N cores" (no load: a deterministic table's words do not depend on it).
# Sourced facts only: /proc, git, the environment. Prints to stdout.
set -euo pipefail
load() { cut -d' ' -f1-3 /proc/loadavg; }
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
commit=$(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
case ${1:-start} in
made)
    echo "$(date -u '+%Y-%m-%d') at commit $commit on $cpu, $(nproc) cores"
    ;;
start)
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') at commit $commit on $cpu, $(nproc) cores;" \
         "load average $(load) at the start; OpenBLAS core type ${OPENBLAS_CORETYPE:-auto}," \
         "${OPENBLAS_NUM_THREADS:-default} threads."
    ;;
end)
    echo "Load average $(load) at the end."
    ;;
*)
    echo "usage: bench/machine.sh start|end|made" >&2
    exit 2
    ;;
esac
