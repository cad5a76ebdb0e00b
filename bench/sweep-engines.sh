#!/usr/bin/env bash
# sweep-engines.sh [N] [SNAKE_N] — what bench/sweep.py costs beside a plain serial loop of the same sim commands,
# GNU parallel beside Snakemake (Debian's) as the engine, and a run over ssh beside one here. Writes
# results/sweep-engines.md.
#   - N cheap runs (default 10000; each plans one of graphs/*.onnx in a few milliseconds): a bash script of N
#     `sim` lines, run serially; bench/sweep.py --jobs 1 (one thread, the ratio that counts) and --jobs 2 on the
#     same product, each to a new table.
#   - SNAKE_N of them (default 1000): bench/sweep.py --jobs 1 beside a Snakefile of one rule per run (what a
#     Snakemake back end would run) with --cores 1; skipped, and said, when snakemake is not installed
#     (apt-get install snakemake).
#   - as root: 348 runs of the small graphs on this machine and over ssh to an sshd on 127.0.0.1 (a second
#     user with its own clone, as tests/test-hosts.c starts it), two at a time each.
# The first three and the ssh pair in ROUNDS rounds (default 3, the commands in turn in each round, the median
# kept), Snakemake once, one after the other, in this one run; the machine is named (bench/machine.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000} snake_n=${2:-1000}
make -s build/sim
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
export SIM_BIN=$PWD/build/sim
product=(--orders file,topo,dfs,ort,freed,lazy,event,event-gap
         --alias all --alias none --alias noop --alias inplace --alias runtime --alias concat-dedup --alias ort
         --alias noop,inplace --alias runtime,noop --alias concat-dedup,runtime --alias noop,inplace,runtime
         --strategies firstfit,bestfit,greedy-size,greedy-breadth,greedy-conflicts,ort,pytorch)
graphs=()
for g in graphs/*.onnx; do graphs+=(--graph "$g"); done
bench/sweep.py --out "$work/list.csv" "${graphs[@]}" "${product[@]}" --dry-run 2> /dev/null | head -n "$n" > "$work/list"
n=$(wc -l < "$work/list")
# The same runs as sweep.py arguments: the first n of the product, as --graph/--orders/... cannot cut it,
# a table holding the others already is what makes sweep.py run exactly these.
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
serial_script() { # the plain loop: one sim line a run
    sed 's#^#build/sim --format csv #; s#$# > /dev/null#' "$1" > "$2"
}
limit_to() { # N OUT [SWEEP ARGS]: a table holding every run of the product but the first N (the runs that
    # succeed), so that sweep.py with those arguments runs exactly the first N; the full table is made once
    local k=$1 out=$2 full
    shift 2
    [ $# -gt 0 ] || set -- "${graphs[@]}" "${product[@]}"
    full=$work/full-$(printf '%s\n' "$@" | md5sum | cut -c1-8).csv
    [ -s "$full" ] || bench/sweep.py --out "$full" "$@" --jobs 2 > /dev/null 2>&1 || true
    { head -1 "$full"; tail -n +$((k + 2)) "$full"; } > "$out"
}
limit_to "$n" "$work/rest.csv"
serial_script "$work/list" "$work/serial.sh"
machine=$(bench/machine.sh start)
# ROUNDS rounds (default 3), the three commands in turn in each, and the median of each: a busy neighbour
# of this virtual machine moves one round, not the ratio.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
s_serial=() s_j1=() s_j2=()
for ((round = 0; round < ${ROUNDS:-3}; round++)); do
    s_serial+=("$(seconds bash "$work/serial.sh")")
    cp "$work/rest.csv" "$work/j1.csv"
    s_j1+=("$(seconds bench/sweep.py --out "$work/j1.csv" "${graphs[@]}" "${product[@]}" --jobs 1)")
    cp "$work/rest.csv" "$work/j2.csv"
    s_j2+=("$(seconds bench/sweep.py --out "$work/j2.csv" "${graphs[@]}" "${product[@]}" --jobs 2)")
done
t_serial=$(median "${s_serial[@]}") t_j1=$(median "${s_j1[@]}") t_j2=$(median "${s_j2[@]}")
rows=$(($(wc -l < "$work/j1.csv") - 1))
snake=""
if command -v snakemake > /dev/null; then
    head -n "$snake_n" "$work/list" > "$work/snake-list"
    limit_to "$snake_n" "$work/snake-rest.csv"
    cp "$work/snake-rest.csv" "$work/s1.csv"
    t_p=$(seconds bench/sweep.py --out "$work/s1.csv" "${graphs[@]}" "${product[@]}" --jobs 1)
    /usr/bin/python3 - "$work/snake-list" "$PWD" "$SIM_BIN" > "$work/Snakefile" <<'PY'
import json, sys
runs = {str(k): line.rstrip("\n") for k, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1)}
print("RUNS = " + json.dumps(runs, indent=0))
print('rule all:\n    input: expand("out/{k}.csv", k=RUNS)')
print('rule run:\n    output: "out/{k}.csv"\n    params: args=lambda w: RUNS[w.k]')
print(f'    shell: "(cd {sys.argv[2]} && {sys.argv[3]} --format csv {{params.args}}) > {{output}}"')
PY
    t_s=$(seconds snakemake --snakefile "$work/Snakefile" --directory "$work/snake" --cores 1 --quiet)
    made=$(find "$work/snake/out" -name '*.csv' | wc -l)
    snake="| $snake_n runs: bench/sweep.py --jobs 1 (GNU parallel) | $t_p | 1.00 |
| $snake_n runs: Snakemake $(snakemake --version), --cores 1, a rule a run ($made outputs) | $t_s | $(ratio "$t_s" "$t_p") |"
else
    snake="| Snakemake | not installed here (apt-get install snakemake) | |"
fi
# Over ssh (as root: an sshd on 127.0.0.1 and a second user with its own clone, tests/hosts/sshd.sh): 348 runs
# of the small graphs on this machine and on that host, two at a time each.
ssh_rows="| ssh | needs root (an sshd on 127.0.0.1 for a second user) | |"
if [ "$(id -u)" = 0 ] && [ -x /usr/sbin/sshd ]; then
    chmod 711 "$work"
    tests/hosts/sshd.sh start "$work/sshd" > /dev/null
    trap 'tests/hosts/sshd.sh stop "$work/sshd"; rm -rf -- "$work"' EXIT
    git clone -q --depth 1 "file://$PWD" "$work/remote/arenasim"
    mkdir -p "$work/remote/arenasim/build"
    cp build/sim "$work/remote/arenasim/build/sim"
    chown -R arenasim-sweep: "$work/remote"
    small=(--strategies firstfit,bestfit,greedy-size,greedy-breadth,greedy-conflicts,ort,pytorch
           --alias all --alias none --alias noop)
    limit_to 348 "$work/small-rest.csv" "${graphs[@]}" "${small[@]}"
    s_local=() s_ssh=()
    for ((round = 0; round < ${ROUNDS:-3}; round++)); do
        cp "$work/small-rest.csv" "$work/local.csv"
        cp "$work/small-rest.csv" "$work/ssh.csv"
        s_local+=("$(seconds bench/sweep.py --out "$work/local.csv" "${graphs[@]}" "${small[@]}" --jobs 2)")
        s_ssh+=("$(seconds bench/sweep.py --out "$work/ssh.csv" "${graphs[@]}" "${small[@]}" -- \
            --ssh "ssh -F $work/sshd/ssh_config" -S 2/sweephost --workdir "$work/remote/arenasim")")
    done
    t_local=$(median "${s_local[@]}") t_ssh=$(median "${s_ssh[@]}")
    local_what="348 runs of the small graphs: bench/sweep.py --jobs 2 on this machine (rounds: ${s_local[*]})"
    ssh_what="348 runs: the same over ssh to 127.0.0.1, 2/sweephost (one shared login, up to 16 runs a session;"
    ssh_what+=" rounds: ${s_ssh[*]})"
    ssh_rows="| $local_what | $t_local | 1.00 |
| $ssh_what | $t_ssh | $(ratio "$t_ssh" "$t_local") |"
fi
{
    echo "# bench/sweep.py beside a plain serial loop, GNU parallel beside Snakemake, ssh beside this machine"
    echo
    echo "Made by \`bench/sweep-engines.sh $n $snake_n\`. $machine"
    echo
    echo "The first three rows: the median of ${ROUNDS:-3} rounds (seconds per round: serial ${s_serial[*]};" \
         "--jobs 1 ${s_j1[*]}; --jobs 2 ${s_j2[*]}), the ssh pair likewise; Snakemake and its pair: one run each."
    echo
    echo "| what | seconds | ratio |"
    echo "|---|---:|---:|"
    echo "| $n runs: a bash script of $n \`sim\` lines, serially | $t_serial | 1.00 |"
    echo "| $n runs: bench/sweep.py --jobs 1 (each row journaled as its run ends; the table then holds all $rows) | $t_j1 | $(ratio "$t_j1" "$t_serial") |"
    echo "| $n runs: bench/sweep.py --jobs 2 | $t_j2 | $(ratio "$t_j2" "$t_serial") |"
    echo "$snake"
    echo "$ssh_rows"
    echo
    bench/machine.sh end
} > results/sweep-engines.md
cat results/sweep-engines.md
