#!/usr/bin/env bash
# plan-scaling.sh — planning cost against trace size: every strategy on random traces of 1k, 10k, 100k
# and 1M buffers (mkgraph trace), timed with hyperfine, all strategies of one size in one hyperfine run
# so their ratios come from the same conditions. Writes results/plan-scaling.md.
# The timed command is the whole `sim --trace FILE --strategy S --no-verify` (reading the trace
# included); the table also gives sim's own planning time for each run, which excludes reading.
# `best` runs every heuristic in turn, so it is left out at 1M buffers. Usage: bench/plan-scaling.sh [SIZES]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v hyperfine > /dev/null || { sudo_=$([ "$(id -u)" = 0 ] || echo sudo); $sudo_ apt-get install -y -q hyperfine; }
make -s build/sim build/mkgraph
sizes=${1:-"1000 10000 100000 1000000"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$root/results/plan-scaling.md"
strategies=$(build/sim --list | awk 'NR > 1 {print $1}')
{
    echo "# Planning time against trace size"
    echo
    echo "Made by \`bench/plan-scaling.sh\` on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
    echo "Traces: \`mkgraph trace --buffers N --seed 1\` (sizes log-uniform 64 B to 1 MiB, ~8 buffers born per step,"
    echo "lifetimes mostly a few steps, 2% living up to half the trace or 2,000 steps). Time: hyperfine mean ± σ of the whole command"
    echo "(reading the trace included); *plan* is sim's own planning time; arena relative to the lower bound."
    echo "Targets: online strategies under 2 s at 1M buffers; offline under 5 s at 100k."
} > "$out"
for n in $sizes; do
    trace="$work/t$n.trace"
    build/mkgraph trace --buffers "$n" --seed 1 -o "$trace"
    runs=10
    [ "$n" -ge 100000 ] && runs=3
    [ "$n" -ge 1000000 ] && runs=1
    cmds=()
    for s in $strategies; do
        [ "$n" -ge 1000000 ] && [ "$s" = best ] && continue
        cmds+=("build/sim --trace $trace --strategy $s --no-verify --format csv")
    done
    hyperfine --runs "$runs" --warmup $((runs > 1 ? 1 : 0)) --style none --export-json "$work/h.json" "${cmds[@]}" > /dev/null
    {
        echo
        echo "## $n buffers"
        echo
        echo "| strategy | time (s) | vs fastest | plan (s) | arena | vs lower bound |"
        echo "|---|---:|---:|---:|---:|---:|"
    } >> "$out"
    fastest=$(/usr/bin/python3 -c "import json,sys; print(min(r['mean'] for r in json.load(open(sys.argv[1]))['results']))" "$work/h.json")
    i=0
    for s in $strategies; do
        [ "$n" -ge 1000000 ] && [ "$s" = best ] && continue
        row=$(build/sim --trace "$trace" --strategy "$s" --no-verify --format csv | tail -1)
        /usr/bin/python3 - "$work/h.json" "$i" "$fastest" "$s" "$row" >> "$out" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]
fastest, name, row = float(sys.argv[3]), sys.argv[4], sys.argv[5].split(",")
arena, lb, plan = int(row[6]), int(row[7]), float(row[13])
print(f"| {name} | {results['mean']:.3f} ± {results.get('stddev') or 0:.3f} | {results['mean'] / fastest:.2f}x | {plan:.3f} | {arena:,} | +{100 * (arena - lb) / lb:.2f}% |")
PY
        i=$((i + 1))
    done
done
echo "wrote $out"
